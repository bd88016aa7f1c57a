//! Deterministic output order: namespace, then kind in dependency order (what must exist
//! before what), then group/version, then name.

use serde_json::{Map, Value};

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

/// What [`sort_objects`] reads of `object`: its apiVersion and kind, and its metadata's
/// name and namespace.
pub(super) fn ordering_fields(object: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ["apiVersion", "kind"] {
        if let Some(value) = object.get(key) {
            out.insert(key.to_string(), value.clone());
        }
    }
    if let Some(Value::Object(metadata)) = object.get("metadata") {
        let kept: Map<String, Value> = ["name", "namespace"]
            .into_iter()
            .filter_map(|key| Some((key.to_string(), metadata.get(key)?.clone())))
            .collect();
        out.insert("metadata".to_string(), Value::Object(kept));
    }
    out
}

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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Objects keep only their ordering fields once their documents are made
    /// (`RenderOptions::documents`): they sort as the whole objects do.
    #[test]
    fn the_ordering_fields_sort_as_the_whole_objects() {
        let objects = [
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b", "namespace": "x", "labels": {"a": "b"}}, "spec": {"replicas": 1}}),
            json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a"}}),
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "x"}}),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": "not an object"}),
            json!({"kind": 5, "metadata": {"name": ["odd"], "namespace": "x"}}),
            json!({"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "a", "namespace": "x"}}),
        ];
        let whole: Vec<RenderedObject> = objects
            .iter()
            .enumerate()
            .map(|(n, o)| RenderedObject::new(format!("c{n}"), o.as_object().unwrap().clone()))
            .collect();
        let slim: Vec<RenderedObject> = whole
            .iter()
            .map(|r| RenderedObject::new(r.component.clone(), ordering_fields(&r.object)))
            .collect();
        assert_eq!(
            slim[0].object,
            *json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b", "namespace": "x"}}).as_object().unwrap()
        );
        let order = |mut list: Vec<RenderedObject>| {
            sort_objects(&mut list);
            list.into_iter().map(|r| r.component).collect::<Vec<_>>()
        };
        assert_eq!(order(whole), order(slim));
    }

    /// Objects that keep only their ordering fields still compare by their documents.
    #[test]
    fn objects_kept_as_documents_compare_by_them() {
        let object = |replicas: u32| {
            let o = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a"}, "spec": {"replicas": replicas}});
            let mut r = RenderedObject::new("c".into(), o.as_object().unwrap().clone());
            r.keep_document_only(crate::render::DocumentFormat::Yaml);
            r
        };
        assert_eq!(object(1), object(1));
        assert_ne!(object(1), object(2));
    }
}
