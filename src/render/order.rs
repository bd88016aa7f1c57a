//! Deterministic output order: namespace, then kind in dependency order (what must exist
//! before what), then group/version, then name.

use serde_json::Value;

use super::RenderedObject;

/// Kinds that others depend on come first; unknown kinds (custom resources) after them all.
const KIND_ORDER: &[&str] = &[
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleBinding",
    "Role",
    "RoleBinding",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "Ingress",
    "APIService",
];

fn str_at<'a>(o: &'a serde_json::Map<String, Value>, path: &[&str]) -> &'a str {
    let mut cur: Option<&Value> = o.get(path[0]);
    for key in &path[1..] {
        cur = cur.and_then(|v| v.get(key));
    }
    cur.and_then(Value::as_str).unwrap_or("")
}

pub fn sort_objects(objects: &mut [RenderedObject]) {
    objects.sort_by_cached_key(|r| {
        let o = &r.object;
        let kind = str_at(o, &["kind"]);
        let rank = KIND_ORDER
            .iter()
            .position(|k| *k == kind)
            .unwrap_or(KIND_ORDER.len());
        (
            str_at(o, &["metadata", "namespace"]).to_string(),
            rank,
            kind.to_string(),
            str_at(o, &["apiVersion"]).to_string(),
            str_at(o, &["metadata", "name"]).to_string(),
            r.component.clone(),
        )
    });
}
