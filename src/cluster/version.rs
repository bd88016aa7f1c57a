//! The server's Kubernetes version, read once per cluster verb: to warn when the env
//! renders and validates for another API than the cluster serves, and to know what the
//! server supports (strict field validation came in 1.25).

/// A Kubernetes `major.minor`, as `/version` or a `k8sVersion` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct MinorVersion {
    pub major: u32,
    pub minor: u32,
}

impl MinorVersion {
    /// `v1.20.2`, `1.33`, `v1.30.0-rc.1+k3s1` → 1.20, 1.33, 1.30.
    pub fn parse(v: &str) -> Option<MinorVersion> {
        let v = v.trim().strip_prefix('v').unwrap_or(v.trim());
        let mut parts = v.split(['.', '-', '+']);
        let major = parts.next()?.parse().ok()?;
        // Some providers say `20+` for the minor in /version.
        let minor = parts.next()?.trim_end_matches('+').parse().ok()?;
        Some(MinorVersion { major, minor })
    }
}

impl std::fmt::Display for MinorVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A warning when the env's `k8sVersion` is more than one minor away from the server's.
pub fn skew(
    env: &str,
    env_version: &str,
    server: MinorVersion,
    server_git: &str,
) -> Option<String> {
    let ours = MinorVersion::parse(env_version)?;
    let apart = ours.major != server.major || ours.minor.abs_diff(server.minor) > 1;
    apart.then(|| {
        format!(
            "environment '{env}' is for Kubernetes {env_version} (its k8sVersion) but the cluster runs {server_git}: `kf validate` checks the objects against {ours}'s API, not the server's; use `kf validate --server`, or move the env with `kf env set {env} --api-spec version:{server_git}`"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_as_servers_and_apps_write_them() {
        let v = |s| MinorVersion::parse(s).map(|m| m.to_string());
        assert_eq!(v("v1.20.2").as_deref(), Some("1.20"));
        assert_eq!(v("1.33").as_deref(), Some("1.33"));
        assert_eq!(v("v1.30.0-rc.1+k3s1").as_deref(), Some("1.30"));
        assert_eq!(v("v1.28.4-gke.100").as_deref(), Some("1.28"));
        assert_eq!(v("latest"), None);
    }

    #[test]
    fn only_more_than_one_minor_apart_is_a_warning() {
        let server = MinorVersion::parse("v1.20.2").unwrap();
        assert!(skew("prod", "v1.33.0", server, "v1.20.2").is_some());
        assert!(skew("prod", "v1.10.3", server, "v1.20.2").is_some());
        assert!(skew("prod", "v1.21.0", server, "v1.20.2").is_none());
        assert!(skew("prod", "v1.19.4", server, "v1.20.2").is_none());
        assert!(skew("prod", "v1.20.2", server, "v1.20.2").is_none());
        let w = skew("prod", "v1.33.0", server, "v1.20.2").unwrap();
        assert!(
            w.contains("kf validate --server") && w.contains("v1.20.2"),
            "{w}"
        );
    }
}
