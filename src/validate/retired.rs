//! API versions Kubernetes stopped serving, and the env's `k8sVersion` against them.

use serde_json::{Map, Value};

/// An API version Kubernetes stopped serving (the deprecated-API migration guide,
/// kubernetes.io/docs/reference/using-api/deprecation-guide).
pub struct Retired {
    pub group: &'static str,
    pub version: &'static str,
    /// The kinds retired with it; `[""]` for every kind of the group version.
    pub kinds: &'static [&'static str],
    /// The 1.x release that no longer serves it.
    pub removed_minor: u32,
    pub instead: &'static str,
}

const fn retired_api(
    group: &'static str,
    version: &'static str,
    kinds: &'static [&'static str],
    removed_minor: u32,
    instead: &'static str,
) -> Retired {
    Retired {
        group,
        version,
        kinds,
        removed_minor,
        instead,
    }
}

/// The most specific entry first (extensions/v1beta1 Ingress before the rest of it).
pub const RETIRED: &[Retired] = &[
    retired_api(
        "extensions",
        "v1beta1",
        &["Ingress"],
        22,
        "networking.k8s.io/v1",
    ),
    retired_api(
        "extensions",
        "v1beta1",
        &["NetworkPolicy"],
        16,
        "networking.k8s.io/v1",
    ),
    retired_api(
        "extensions",
        "v1beta1",
        &["PodSecurityPolicy"],
        16,
        "policy/v1beta1, itself removed in 1.25",
    ),
    retired_api("extensions", "v1beta1", &[""], 16, "apps/v1"),
    retired_api("apps", "v1beta1", &[""], 16, "apps/v1"),
    retired_api("apps", "v1beta2", &[""], 16, "apps/v1"),
    retired_api(
        "networking.k8s.io",
        "v1beta1",
        &[""],
        22,
        "networking.k8s.io/v1",
    ),
    retired_api(
        "rbac.authorization.k8s.io",
        "v1beta1",
        &[""],
        22,
        "rbac.authorization.k8s.io/v1",
    ),
    retired_api(
        "rbac.authorization.k8s.io",
        "v1alpha1",
        &[""],
        22,
        "rbac.authorization.k8s.io/v1",
    ),
    retired_api(
        "apiextensions.k8s.io",
        "v1beta1",
        &[""],
        22,
        "apiextensions.k8s.io/v1 (with a structural schema)",
    ),
    retired_api(
        "admissionregistration.k8s.io",
        "v1beta1",
        &[""],
        22,
        "admissionregistration.k8s.io/v1",
    ),
    retired_api(
        "scheduling.k8s.io",
        "v1beta1",
        &[""],
        22,
        "scheduling.k8s.io/v1",
    ),
    retired_api(
        "storage.k8s.io",
        "v1beta1",
        &["StorageClass", "VolumeAttachment", "CSIDriver", "CSINode"],
        22,
        "storage.k8s.io/v1",
    ),
    retired_api("batch", "v1beta1", &["CronJob"], 25, "batch/v1"),
    retired_api(
        "policy",
        "v1beta1",
        &["PodDisruptionBudget"],
        25,
        "policy/v1",
    ),
    retired_api(
        "policy",
        "v1beta1",
        &["PodSecurityPolicy"],
        25,
        "Pod Security admission (no replacement kind)",
    ),
    retired_api("autoscaling", "v2beta1", &[""], 25, "autoscaling/v2"),
    retired_api("autoscaling", "v2beta2", &[""], 26, "autoscaling/v2"),
];

/// The retirement of `api_version` `kind`, if Kubernetes retired it.
pub fn retired(api_version: &str, kind: &str) -> Option<&'static Retired> {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    RETIRED.iter().find(|r| {
        r.group == group
            && r.version == version
            && (r.kinds.contains(&kind) || r.kinds.contains(&""))
    })
}

/// `v1.33.0`, `1.33`, `v1.10.3` → (1, 33); `None` for anything else.
pub fn k8s_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim_start_matches('v').split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The error for an object the env's Kubernetes version no longer serves.
pub fn served_problem(obj: &Map<String, Value>, k8s_version: &str) -> Option<String> {
    served_problem_for(obj, k8s_version, "the environment's k8sVersion")
}

/// The same for a version from `whose` (the env's k8sVersion, or the server's).
pub fn served_problem_for(
    obj: &Map<String, Value>,
    k8s_version: &str,
    whose: &str,
) -> Option<String> {
    let (major, minor) = k8s_minor(k8s_version)?;
    let api = obj.get("apiVersion").and_then(Value::as_str)?;
    let kind = obj.get("kind").and_then(Value::as_str)?;
    let r = retired(api, kind)?;
    (major > 1 || minor >= r.removed_minor).then(|| {
        format!(
            "Kubernetes {k8s_version} ({whose}) does not serve {api} {kind}: removed in 1.{}; use {}",
            r.removed_minor, r.instead
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{Finding, Validator};
    use serde_json::{Map, Value, json};

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn apis_the_envs_kubernetes_retired_are_errors() {
        let deploy = obj(
            json!({"apiVersion": "extensions/v1beta1", "kind": "Deployment",
            "metadata": {"name": "web"}, "spec": {}}),
        );
        let mut v = Validator::with_builtin_crds().for_k8s_version("v1.33.0");
        match v.validate(&deploy) {
            Some(Finding::Error(e)) => assert!(
                e.contains("v1.33.0 (the environment's k8sVersion) does not serve extensions/v1beta1 Deployment: removed in 1.16; use apps/v1"),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
        // A ksonnet-era env at v1.10.3 still has it; extensions/v1beta1 Ingress lasted to 1.22.
        assert_eq!(served_problem(&deploy, "v1.10.3"), None);
        let ingress = obj(json!({"apiVersion": "extensions/v1beta1", "kind": "Ingress"}));
        assert_eq!(served_problem(&ingress, "v1.21.0"), None);
        assert!(served_problem(&ingress, "v1.22.0").is_some());
        assert_eq!(served_problem(&deploy, "latest"), None);
    }
}
