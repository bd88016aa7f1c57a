//! An object as kf sends it: its identity read once, its status dropped, its namespace
//! fixed for its kind's scope.

use serde_json::{Map, Value};

use crate::cluster::resources::Resource;

pub(crate) fn str_at<'a>(obj: &'a Map<String, Value>, path: &[&str]) -> Option<&'a str> {
    let mut v = obj.get(path[0])?;
    for p in &path[1..] {
        v = v.get(p)?;
    }
    v.as_str()
}

/// An object ready to send.
#[derive(Debug, Clone)]
pub struct Item {
    pub object: Map<String, Value>,
    pub api_version: String,
    pub kind: String,
    pub name: String,
}

impl Item {
    /// The object as kf sends it: without its `status`, which the server and the
    /// controllers own. A rendered status (upstream CRD files carry an empty one) would
    /// make kf's field manager an owner of fields the API server then sets, and every
    /// later apply a 409 conflict with `kube-apiserver` (seen on Seldon's CRD, v1.20).
    pub fn new(mut object: Map<String, Value>) -> Item {
        object.remove("status");
        Item {
            api_version: str_at(&object, &["apiVersion"])
                .unwrap_or_default()
                .to_string(),
            kind: str_at(&object, &["kind"]).unwrap_or_default().to_string(),
            name: str_at(&object, &["metadata", "name"])
                .unwrap_or_default()
                .to_string(),
            object,
        }
    }

    /// Where the object lives on a cluster: its own namespace, or the env's when it has
    /// none (or ""), for a namespaced kind; `None` for a cluster-scoped one.
    pub fn namespace_for(&self, res: &Resource, env_namespace: &str) -> Option<String> {
        res.namespaced.then(|| {
            str_at(&self.object, &["metadata", "namespace"])
                .filter(|s| !s.is_empty())
                .unwrap_or(env_namespace)
                .to_string()
        })
    }

    pub(crate) fn fallback_id(&self) -> String {
        format!("{}/{}", self.kind.to_ascii_lowercase(), self.name)
    }
}

/// Fix the namespace for the resource's scope: namespaced objects without one go to the
/// env's; cluster-scoped objects have none.
pub(crate) fn place(item: &mut Item, res: &Resource, env_namespace: &str) -> Option<String> {
    let namespace = item.namespace_for(res, env_namespace);
    let metadata = item
        .object
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(metadata) = metadata else {
        return None;
    };
    match &namespace {
        Some(ns) => metadata.insert("namespace".into(), Value::String(ns.clone())),
        None => metadata.remove("namespace"),
    };
    namespace
}
