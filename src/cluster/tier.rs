//! The order kinds are applied in (and deleted in, reversed): namespaces, CRDs, what
//! workloads need, everything else, workloads, webhooks.

/// The apply tier of a kind.
pub fn tier(api_version: &str, kind: &str) -> u8 {
    let group = api_version.split_once('/').map(|(g, _)| g).unwrap_or("");
    match kind {
        "Namespace" if group.is_empty() => 0,
        "CustomResourceDefinition" => 1,
        "ServiceAccount"
        | "Role"
        | "ClusterRole"
        | "RoleBinding"
        | "ClusterRoleBinding"
        | "ConfigMap"
        | "Secret"
        | "PriorityClass"
        | "StorageClass"
        | "PersistentVolume"
        | "PersistentVolumeClaim"
        | "LimitRange"
        | "ResourceQuota" => 2,
        "Deployment"
        | "StatefulSet"
        | "DaemonSet"
        | "ReplicaSet"
        | "Job"
        | "CronJob"
        | "Pod"
        | "ReplicationController" => 4,
        "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" | "APIService" => 5,
        _ => 3,
    }
}
