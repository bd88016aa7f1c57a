//! `kf apply --prune` and `kf delete`: removing objects, only ever kf's own.
//!
//! Prune looks for objects carrying this app's and environment's kf labels that the
//! render no longer contains. It never touches an object a controller owns (it is the
//! controller's to delete), nor one annotated or labelled `kf.dev/prune: never`. Each
//! deletion carries the object's UID as a precondition, so an object recreated meanwhile
//! under the same name is left alone.

use std::collections::BTreeSet;

use futures::StreamExt;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use super::apply::DryRun;
use super::client::{Cluster, Failure};
use super::resources::{Resource, Resources};
use super::{ClusterError, labels};

/// An object found on the cluster.
#[derive(Debug, Clone)]
pub struct Found {
    pub resource: Resource,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: Option<String>,
}

impl Found {
    pub fn id(&self) -> String {
        let ns = self
            .namespace
            .as_deref()
            .map(|n| format!(" -n {n}"))
            .unwrap_or_default();
        format!("{}/{}{ns}", self.resource.kind_name(), self.name)
    }

    /// (_, kind, namespace, name): how a rendered object is matched. The group is left
    /// out: a cluster serving a kind under two groups (Ingress in extensions and
    /// networking.k8s.io) lists the same object twice, and neither copy may be pruned.
    pub fn identity(&self) -> (String, String, String, String) {
        (
            String::new(),
            self.resource.api.kind.clone(),
            self.namespace.clone().unwrap_or_default(),
            self.name.clone(),
        )
    }
}

fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn never_prune(obj: &Value) -> bool {
    let meta = &obj["metadata"];
    meta["annotations"][labels::PRUNE] == "never" || meta["labels"][labels::PRUNE] == "never"
}

fn controlled(obj: &Value) -> bool {
    obj["metadata"]["ownerReferences"]
        .as_array()
        .is_some_and(|refs| refs.iter().any(|r| r["controller"] == true))
}

/// kf's objects of this app and env that `keep` (identities of the render) lacks.
pub async fn candidates(
    cluster: &Cluster,
    resources: &Resources,
    app: &str,
    env: &str,
    keep: &BTreeSet<(String, String, String, String)>,
) -> Result<Vec<Found>, ClusterError> {
    let selector = encode(&labels::selector(app, env));
    let selector = selector.as_str();
    let lists: Vec<(Resource, Result<Value, Failure>)> =
        futures::stream::iter(resources.prunable())
            .map(|res| async move {
                let path = format!("{}?labelSelector={selector}", res.path(None, None));
                let r = cluster.get(&path).await.map(|r| r.body);
                (res, r)
            })
            .buffered(8)
            .collect()
            .await;
    let mut out = Vec::new();
    for (res, list) in lists {
        let list = match list {
            Ok(l) => l,
            // A kind the user may not list is not one kf applied.
            Err(Failure::Status(r))
                if matches!(
                    r.status,
                    StatusCode::FORBIDDEN | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
                ) =>
            {
                continue;
            }
            Err(e) => {
                return Err(ClusterError::Api(format!(
                    "listing {} for prune: {e}",
                    res.kind_name()
                )));
            }
        };
        for obj in list["items"].as_array().into_iter().flatten() {
            let found = Found {
                resource: res.clone(),
                namespace: obj["metadata"]["namespace"].as_str().map(str::to_string),
                name: obj["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                uid: obj["metadata"]["uid"].as_str().map(str::to_string),
            };
            if keep.contains(&found.identity()) || controlled(obj) || never_prune(obj) {
                continue;
            }
            out.push(found);
        }
    }
    Ok(out)
}

/// What happened to one deletion.
#[derive(Debug, Clone)]
pub struct Deleted {
    pub id: String,
    pub result: Result<bool, String>,
}

impl Deleted {
    pub fn line(&self, verb: &str, dry_run: DryRun) -> String {
        let suffix = if dry_run == DryRun::None {
            ""
        } else {
            " (dry run)"
        };
        match &self.result {
            Ok(true) => format!("{} {verb}{suffix}", self.id),
            Ok(false) => format!("{} already gone", self.id),
            Err(e) => format!("{} failed: {e}", self.id),
        }
    }
}

/// Delete objects (foreground propagation, UID preconditions where known); NotFound
/// counts as done.
pub async fn delete(
    cluster: &Cluster,
    objects: Vec<Found>,
    dry_run: DryRun,
    concurrency: usize,
) -> Vec<Deleted> {
    futures::stream::iter(objects)
        .map(|f| async move {
            let id = f.id();
            if dry_run == DryRun::Client {
                return Deleted { id, result: Ok(true) };
            }
            let mut path = f.resource.path(f.namespace.as_deref(), Some(&f.name));
            if dry_run == DryRun::Server {
                path.push_str("?dryRun=All");
            }
            let mut options = json!({"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"});
            if let Some(uid) = &f.uid {
                options["preconditions"] = json!({ "uid": uid });
            }
            let body = serde_json::to_vec(&options).unwrap_or_default();
            let result = match cluster
                .request(Method::DELETE, &path, Some("application/json"), body)
                .await
            {
                Ok(_) => Ok(true),
                Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => Ok(false),
                // Recreated meanwhile (another UID): not the object kf meant; left alone.
                Err(Failure::Status(r))
                    if r.status == StatusCode::CONFLICT && r.message().contains("Precondition") =>
                {
                    Ok(false)
                }
                Err(e) => Err(e.to_string()),
            };
            Deleted { id, result }
        })
        .buffered(concurrency.max(1))
        .collect()
        .await
}
