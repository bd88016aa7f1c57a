//! The names kf accepts for components and environments: what ksonnet allowed, minus
//! anything that could leave the folder it names or break a Jsonnet field name.

use super::AppError;

/// Component and prototype-instance names: what ksonnet allowed, minus anything that could
/// escape `components/` or break a Jsonnet field name.
pub fn validate_component_name(name: &str) -> Result<(), AppError> {
    validate_segment("component", name)
}

/// Environment names may nest (`us-west/prod`); each segment follows the component rules.
pub fn validate_env_name(name: &str) -> Result<(), AppError> {
    if name.is_empty() {
        return Err(AppError::InvalidName {
            what: "environment",
            name: name.to_string(),
            why: "it is empty",
        });
    }
    for seg in name.split('/') {
        validate_segment("environment", seg).map_err(|_| AppError::InvalidName {
            what: "environment",
            name: name.to_string(),
            why: "each '/'-separated part must be letters, digits, '-', '_' or '.', not starting with '.'",
        })?;
    }
    Ok(())
}

pub(super) fn validate_segment(what: &'static str, name: &str) -> Result<(), AppError> {
    let bad = |why| {
        Err(AppError::InvalidName {
            what,
            name: name.to_string(),
            why,
        })
    };
    if name.is_empty() {
        return bad("it is empty");
    }
    if name.len() > 253 {
        return bad("it is longer than 253 characters");
    }
    if name.contains('/') || name.contains('\\') {
        return bad("it contains a path separator");
    }
    if name.starts_with('.') {
        return bad("it starts with '.'");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return bad("only letters, digits, '-', '_' and '.' are allowed");
    }
    Ok(())
}

/// Why `namespace` is not a namespace the API server would accept (a DNS-1123 label:
/// at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit).
pub fn namespace_problem(namespace: &str) -> Option<String> {
    let why = if namespace.is_empty() {
        "it is empty"
    } else if namespace.len() > 63 {
        "it is longer than 63 characters"
    } else if !namespace
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        "only lowercase letters, digits and '-' are allowed"
    } else if namespace.starts_with('-') || namespace.ends_with('-') {
        "it must start and end with a letter or digit"
    } else {
        return None;
    };
    Some(format!(
        "namespace '{}' is not a DNS-1123 label the API server accepts: {why}",
        namespace.escape_debug()
    ))
}

/// Why `name` is not a DNS-1035 label (lower-case letters, digits and '-', a letter first,
/// a letter or digit last, at most 63 characters: apimachinery's `IsDNS1035Label`, which
/// the job operators check names by), or `None`.
pub fn dns1035_problem(name: &str) -> Option<String> {
    let why = if name.is_empty() {
        "it is empty".to_string()
    } else if name.len() > 63 {
        format!("it is {} characters long, more than 63", name.len())
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        format!(
            "it holds '{}'; only a-z, 0-9 and - may appear",
            c.escape_debug()
        )
    } else if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        "it does not start with a lower-case letter".to_string()
    } else if name.ends_with('-') {
        "it ends with -".to_string()
    } else {
        return None;
    };
    Some(why)
}

/// Why `server` is not an API server URL kf (and kubectl) can connect to: it needs an
/// `https://` (or `http://`) scheme and a host, and no spaces.
pub fn server_problem(server: &str) -> Option<String> {
    let shown = server.escape_debug();
    let Some((scheme, rest)) = server.split_once("://") else {
        return Some(format!(
            "server '{shown}' has no scheme; write it as a URL, e.g. 'https://{shown}'"
        ));
    };
    if !scheme.eq_ignore_ascii_case("https") && !scheme.eq_ignore_ascii_case("http") {
        return Some(format!(
            "server '{shown}' has scheme '{}'; an API server's URL starts with https:// (or http://)",
            scheme.escape_debug()
        ));
    }
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if host.is_empty() || host.starts_with(':') {
        return Some(format!("server '{shown}' names no host"));
    }
    if server.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some(format!(
            "server '{shown}' contains spaces or control characters"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_dns_1123_labels() {
        for ok in ["default", "kf-prod", "a", "ns1", &"a".repeat(63)] {
            assert_eq!(namespace_problem(ok), None, "{ok}");
        }
        for bad in [
            "ML_Prod",
            "Prod",
            "-a",
            "a-",
            "",
            "a.b",
            "ns\u{1b}",
            &"a".repeat(64),
        ] {
            assert!(namespace_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn servers_are_urls_with_a_scheme_and_host() {
        for ok in [
            "https://35.196.210.94",
            "https://10.0.0.1:6443",
            "http://127.0.0.1:8080",
            "https://kubernetes.default.svc",
            "https://h.example.com/prefix",
            "HTTPS://h.example.com",
            "https://[::1]:6443",
        ] {
            assert_eq!(server_problem(ok), None, "{ok}");
        }
        let no_scheme = server_problem("prod.example.com").unwrap();
        assert!(
            no_scheme.contains("https://prod.example.com"),
            "{no_scheme}"
        );
        for bad in [
            "ftp://h",
            "https://",
            "https://:443",
            "https://h x",
            "https://h\n",
        ] {
            assert!(server_problem(bad).is_some(), "{bad:?}");
        }
    }
}
