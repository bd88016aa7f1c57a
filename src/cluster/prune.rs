//! `kf apply --prune` and `kf delete`: removing objects, only ever kf's own.
//!
//! Prune asks the server for objects carrying this app's and environment's kf labels that
//! the render no longer contains, then checks every one itself (`ownership`: a server or
//! proxy that ignores the labelSelector must not make kf delete anybody else's object).
//! It never touches an object a controller owns (it is the controller's to delete), nor
//! one annotated or labelled `kf.dev/prune: never`. With `-c`, only objects of the selected
//! components are candidates. Each deletion carries the object's UID as a precondition, so
//! an object recreated meanwhile under the same name is left alone. Deletions go in reverse
//! apply order: custom resources before their CRDs, workloads before namespaces.

use std::collections::BTreeSet;
use std::time::Duration;

use futures::StreamExt;
use http::{Method, StatusCode};
use serde_json::{Value, json};

use super::client::{Cluster, Failure};
use super::outcome::DryRun;
use super::ownership::Owner;
use super::resources::{Resource, Resources};
use super::tier::tier;
use super::{ClusterError, labels};

/// An object found on the cluster.
#[derive(Debug, Clone)]
pub struct Found {
    pub resource: Resource,
    pub namespace: Option<String>,
    pub name: String,
    /// The live object's UID: its deletion is conditional on it. None: not checked yet,
    /// and then it is never deleted.
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

    /// The apply tier of its kind; deletions go from the highest down.
    pub fn tier(&self) -> u8 {
        let api_version = if self.resource.api.group.is_empty() {
            self.resource.api.version.clone()
        } else {
            format!("{}/{}", self.resource.api.group, self.resource.api.version)
        };
        tier(&api_version, &self.resource.api.kind)
    }
}

fn never_prune(obj: &Value) -> bool {
    let meta = &obj["metadata"];
    meta["annotations"][labels::PRUNE] == "never" || meta["labels"][labels::PRUNE] == "never"
}

/// An object the server is deleting already (kf deletes in the foreground: until the
/// garbage collector is done, the object is still listed, with a deletionTimestamp).
pub fn being_deleted(obj: &Value) -> bool {
    obj["metadata"]["deletionTimestamp"].is_string()
}

fn controlled(obj: &Value) -> bool {
    obj["metadata"]["ownerReferences"]
        .as_array()
        .is_some_and(|refs| refs.iter().any(|r| r["controller"] == true))
}

/// Which objects a prune may consider.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Identities of the render (as [`Found::identity`]): never pruned.
    pub keep: BTreeSet<(String, String, String, String)>,
    /// With `-c`: only objects labelled `ksonnet.io/component` with one of these.
    pub components: Option<BTreeSet<String>>,
    /// The env's namespace: where a kind is listed when the user may not list it
    /// cluster-wide (a user whose Role covers one namespace).
    pub namespace: String,
}

/// What a prune found: the objects to delete, and the kinds it could not look at.
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    pub found: Vec<Found>,
    /// Kinds (`Deployment.apps`) the user may list neither cluster-wide nor in the env's
    /// namespace, of those the render has: objects of these kinds kf applied and no longer
    /// renders would stay, so such a prune is not complete.
    pub unchecked: Vec<String>,
    /// Kinds discovery listed whose LIST then answered 404 or 405: gone from the server
    /// since (a CRD being removed), or not listable at all.
    pub gone: Vec<String>,
}

impl Candidates {
    /// One warning naming the kinds prune could not check, if any.
    pub fn warning(&self, namespace: &str) -> Option<String> {
        let rbac = (!self.unchecked.is_empty()).then(|| {
            format!(
                "prune could not check {}: you may list them neither cluster-wide nor in namespace {namespace} (RBAC), so objects of those kinds that kf applied and no longer renders are not pruned",
                self.unchecked.join(", ")
            )
        });
        let gone = (!self.gone.is_empty()).then(|| {
            format!(
                "prune could not check {}: the server answered their list with 404 (gone since discovery, a CRD being removed?) or 405; objects of those kinds were not pruned",
                self.gone.join(", ")
            )
        });
        match (rbac, gone) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        }
    }
}

/// A kind's objects with `selector`: cluster-wide, or — when the user may not list the
/// kind cluster-wide and it is namespaced — in `namespace`.
async fn list_kind(
    cluster: &Cluster,
    res: &Resource,
    selector: &str,
    namespace: &str,
) -> Result<Value, Failure> {
    let everywhere = format!("{}?labelSelector={selector}", res.path(None, None));
    match cluster.get(&everywhere).await {
        Err(Failure::Status(r))
            if r.status == StatusCode::FORBIDDEN && res.namespaced && !namespace.is_empty() =>
        {
            let here = format!(
                "{}?labelSelector={selector}",
                res.path(Some(namespace), None)
            );
            cluster.get(&here).await.map(|r| r.body)
        }
        other => other.map(|r| r.body),
    }
}

/// kf's objects of this owner that the render lacks, in deletion order (reverse tiers),
/// and the kinds of the render it could not list.
pub async fn candidates(
    cluster: &Cluster,
    resources: &Resources,
    owner: &Owner,
    scope: &Scope,
) -> Result<Candidates, ClusterError> {
    let selector = super::query::encode(&labels::selector(&owner.app, &owner.env));
    let selector = selector.as_str();
    let namespace = scope.namespace.as_str();
    let lists: Vec<(Resource, Result<Value, Failure>)> =
        futures::stream::iter(resources.prunable())
            .map(|res| async move {
                let r = list_kind(cluster, &res, selector, namespace).await;
                (res, r)
            })
            .buffered(8)
            .collect()
            .await;
    let rendered_kinds: BTreeSet<&str> = scope.keep.iter().map(|(_, k, _, _)| k.as_str()).collect();
    let mut out = Candidates::default();
    for (res, list) in lists {
        let list = match list {
            Ok(l) => l,
            // Not listable by this user, here or anywhere: said once, for the render's
            // kinds; another kind is taken as one kf never applied.
            Err(Failure::Status(r)) if r.status == StatusCode::FORBIDDEN => {
                if rendered_kinds.contains(res.api.kind.as_str()) {
                    out.unchecked.push(res.kind_name());
                }
                continue;
            }
            Err(Failure::Status(r))
                if matches!(
                    r.status,
                    StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
                ) =>
            {
                out.gone.push(res.kind_name());
                continue;
            }
            Err(e) => {
                return Err(ClusterError::PruneList {
                    kind: res.kind_name(),
                    source: e,
                });
            }
        };
        for obj in list["items"].as_array().into_iter().flatten() {
            // The server's filtering is not trusted: each candidate is checked again here.
            let Ok(uid) = owner.deletable(obj) else {
                continue;
            };
            let found = Found {
                resource: res.clone(),
                namespace: obj["metadata"]["namespace"].as_str().map(str::to_string),
                name: obj["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                uid: Some(uid),
            };
            if found.name.is_empty()
                || scope.keep.contains(&found.identity())
                || controlled(obj)
                || never_prune(obj)
                || being_deleted(obj)
            {
                continue;
            }
            if let Some(components) = &scope.components {
                let component = obj["metadata"]["labels"][crate::render::COMPONENT_LABEL]
                    .as_str()
                    .unwrap_or_default();
                if !components.contains(component) {
                    continue;
                }
            }
            out.found.push(found);
        }
    }
    // Stable: higher tiers first (custom resources before CRDs, workloads before
    // namespaces), the discovery order within a tier.
    out.found.sort_by_key(|f| std::cmp::Reverse(f.tier()));
    out.unchecked.sort();
    out.unchecked.dedup();
    out.gone.sort();
    out.gone.dedup();
    Ok(out)
}

/// What happened to one deletion.
#[derive(Debug, Clone)]
pub struct Deleted {
    /// `deployment.apps/web -n prod`, as lines name it.
    pub id: String,
    /// `deployment.apps/web`, and its namespace: as `-o` reports name it.
    pub name: String,
    pub namespace: Option<String>,
    pub result: Result<bool, String>,
}

/// How a delete treats what depends on the object (kubectl's `--cascade`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Cascade {
    /// Foreground for workloads (their pods go before they do, so a wait for them means
    /// their pods are gone too), background for everything else.
    #[default]
    Auto,
    /// The object goes at once; the garbage collector removes its dependents after.
    Background,
    /// The object stays (Terminating) until its dependents are gone.
    Foreground,
    /// Dependents are left, their owner reference removed.
    Orphan,
}

impl Cascade {
    /// The DeleteOptions propagationPolicy for `f`.
    fn policy(self, f: &Found) -> &'static str {
        match self {
            Cascade::Auto if f.tier() == 4 => "Foreground",
            Cascade::Auto | Cascade::Background => "Background",
            Cascade::Foreground => "Foreground",
            Cascade::Orphan => "Orphan",
        }
    }
}

async fn delete_one(cluster: &Cluster, f: Found, dry_run: DryRun, cascade: Cascade) -> Deleted {
    let done = |result| Deleted {
        id: f.id(),
        name: format!("{}/{}", f.resource.kind_name(), f.name),
        namespace: f.namespace.clone(),
        result,
    };
    // Without a UID the deletion could hit an object recreated under the name by someone
    // else; kf never sends one.
    let Some(uid) = &f.uid else {
        return done(Err("no UID known for it; not deleted".into()));
    };
    if dry_run == DryRun::Client {
        return done(Ok(true));
    }
    let path = f.resource.path(f.namespace.as_deref(), Some(&f.name));
    // A DELETE with a body takes its options from the body alone (the query's dryRun is
    // then ignored and the delete is real: seen on a 1.20 server, which deleted the
    // Deployments a `--dry-run=server` prune named).
    let mut options = json!({"kind": "DeleteOptions", "apiVersion": "v1",
        "propagationPolicy": cascade.policy(&f), "preconditions": { "uid": uid }});
    if dry_run == DryRun::Server {
        options["dryRun"] = json!(["All"]);
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
        // A server's answer says nothing of the request; kf's own failures name it already.
        Err(e @ Failure::Status(_)) => Err(format!("DELETE {path}: {e}")),
        Err(e) => Err(e.to_string()),
    };
    done(result)
}

/// Delete objects tier by tier, highest tier first (propagation as `cascade` says, UID
/// preconditions); objects of one tier go in parallel. NotFound counts as done. `report`
/// hears each result as its tier finishes.
pub async fn delete(
    cluster: &Cluster,
    objects: Vec<Found>,
    dry_run: DryRun,
    cascade: Cascade,
    concurrency: usize,
    report: &mut dyn FnMut(&Deleted),
) -> Vec<Deleted> {
    let mut tiers: Vec<Vec<Found>> = vec![Vec::new(); 6];
    for f in objects {
        let t = usize::from(f.tier()).min(5);
        tiers[t].push(f);
    }
    let mut all = Vec::new();
    for objects in tiers.into_iter().rev() {
        let done: Vec<Deleted> = futures::stream::iter(objects)
            .map(|f| delete_one(cluster, f, dry_run, cascade))
            .buffered(concurrency.max(1))
            .collect()
            .await;
        for d in &done {
            report(d);
        }
        all.extend(done);
    }
    all
}

/// Wait until none of `objects` is on the cluster (foreground deletion takes a while:
/// the dependents go first; background, until the garbage collector is done). Returns the ones still there when the command's deadline
/// (or `limit`) passes.
pub async fn wait_gone(cluster: &Cluster, objects: &[Found], limit: Duration) -> Vec<String> {
    let start = std::time::Instant::now();
    let mut left: Vec<&Found> = objects.iter().collect();
    loop {
        let mut still = Vec::new();
        for f in left {
            let path = f.resource.path(f.namespace.as_deref(), Some(&f.name));
            match cluster.get(&path).await {
                Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => {}
                Ok(live) if live.body["metadata"]["uid"].as_str() != f.uid.as_deref() => {}
                _ => still.push(f),
            }
        }
        left = still;
        let out_of_time =
            start.elapsed() >= limit || cluster.remaining().is_some_and(|r| r.is_zero());
        if left.is_empty() || out_of_time {
            return left.iter().map(|f| f.id()).collect();
        }
        let pause = Duration::from_millis(500);
        let pause = cluster.remaining().map_or(pause, |r| pause.min(r));
        tokio::time::sleep(pause).await;
    }
}
