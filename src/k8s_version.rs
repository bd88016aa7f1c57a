//! Kubernetes versions as app.yaml's `k8sVersion` and a prototype's `@kubernetes` name them.

/// `v1.33.0` as numbers, for ordering Kubernetes versions (`1.33` is `(1, 33, 0)`; a
/// suffix such as `-rc.1` is left out; an unreadable version sorts first).
pub fn version_triple(version: &str) -> (u64, u64, u64) {
    let v = version.strip_prefix('v').unwrap_or(version);
    let core = v.split(['-', '+']).next().unwrap_or_default();
    let mut n = core.split('.').map(|n| n.parse::<u64>().ok());
    match (n.next().flatten(), n.next(), n.next()) {
        (Some(major), minor, patch) => (
            major,
            minor.flatten().unwrap_or(0),
            patch.flatten().unwrap_or(0),
        ),
        _ => (0, 0, 0),
    }
}

/// Whether `v` is a Kubernetes version as app.yaml's `k8sVersion` holds one: `v1.10.3`,
/// `1.33`, `v1.30.0-rc.1`, `v1.28.4+k3s1`. It names a folder, so nothing else passes.
pub fn is_k8s_version(v: &str) -> bool {
    let v = v.strip_prefix('v').unwrap_or(v);
    let (core, suffix) = match v.find(['-', '+']) {
        Some(i) => (&v[..i], Some(&v[i + 1..])),
        None => (v, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    (2..=3).contains(&numbers.len())
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.len() <= 6 && n.bytes().all(|b| b.is_ascii_digit()))
        && suffix.is_none_or(|s| {
            s.len() <= 64
                && s.split(['.', '-', '+'])
                    .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric()))
        })
}

#[cfg(test)]
mod tests {
    use super::is_k8s_version;

    #[test]
    fn k8s_versions_are_versions_and_never_paths() {
        for good in ["v1.10.3", "v1.7.0", "1.33", "v1.30.0-rc.1", "v1.28.4+k3s1"] {
            assert!(is_k8s_version(good), "{good}");
        }
        for bad in [
            "",
            "/",
            "../../x",
            "v1.10.3/../../x",
            "v1",
            "v1.2.3.4",
            "v1..3",
            "v1.10.3-",
            "v1.10.3-a/b",
            "version:v1.8.0",
            "latest",
            "v1.10.3\n",
        ] {
            assert!(!is_k8s_version(bad), "{bad}");
        }
    }
}
