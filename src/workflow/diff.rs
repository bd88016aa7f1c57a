//! `kf diff`: what `kf apply` would change (the live object against the server's dry-run
//! apply, and with prune the objects it would delete), or two renders against each other.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, anyhow};
use futures::StreamExt;
use http::StatusCode;
use serde::Serialize;
use serde_json::Value;

use super::{Connection, Target};
use crate::cluster::apply::{Sending, send_apply};
use crate::cluster::client::{Cluster, Failure};
use crate::cluster::diff::{comparable, mask_secrets, unified, yaml};
use crate::cluster::events::{Phase, Reporter};
use crate::cluster::item::Item;
use crate::cluster::outcome::DryRun;
use crate::cluster::ownership::Owner;
use crate::cluster::prune;
use crate::cluster::resources::{Resource, Resources};
use crate::render::RenderedObject;

/// What `kf diff ENV` was asked to do.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Print Secret values instead of `***`.
    pub show_secrets: bool,
    /// Also show the objects `kf apply --prune` would delete.
    pub prune: bool,
    pub concurrency: usize,
    pub connection: Connection,
}

/// One object that differs.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// `deployment.apps/prod/web` (cluster) or `apps/v1/Deployment/prod/web` (renders).
    pub name: String,
    /// create, update, delete (the other side has no such object) or prune.
    pub change: &'static str,
    /// The unified diff, as printed.
    pub diff: String,
}

/// Every difference, in the objects' order.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DiffReport {
    pub changes: Vec<Change>,
    /// Why the comparison is not complete (with `--prune`, kinds kf could not list): the
    /// command then fails, whatever it found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

/// Secret values as `***` unless `show_secrets`.
fn masked(
    show_secrets: bool,
    l: Option<&Value>,
    r: Option<&Value>,
) -> (Option<Value>, Option<Value>) {
    if show_secrets {
        (l.cloned(), r.cloned())
    } else {
        mask_secrets(l, r)
    }
}

fn key(o: &Value) -> String {
    format!(
        "{}/{}/{}/{}",
        o["apiVersion"].as_str().unwrap_or_default(),
        o["kind"].as_str().unwrap_or_default(),
        o["metadata"]["namespace"].as_str().unwrap_or_default(),
        o["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// How two renders' objects are paired: group, kind and name — not the version (a
/// v1beta1 → v1 move is a change of one object) nor the namespace (two envs usually
/// deploy to different ones).
fn pairing_key(o: &Value) -> String {
    let api_version = o["apiVersion"].as_str().unwrap_or_default();
    let group = api_version.split_once('/').map(|(g, _)| g).unwrap_or("");
    let kind = o["kind"].as_str().unwrap_or_default().to_ascii_lowercase();
    let kind = if group.is_empty() {
        kind
    } else {
        format!("{kind}.{group}")
    };
    format!(
        "{kind}/{}",
        o["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// `left` (env `left_env`) against `right`, paired by [`pairing_key`].
pub fn diff_renders(
    left_env: &str,
    left: Vec<RenderedObject>,
    right_env: &str,
    right: Vec<RenderedObject>,
    show_secrets: bool,
) -> DiffReport {
    let side = |objects: Vec<RenderedObject>| -> BTreeMap<String, Value> {
        objects
            .into_iter()
            .map(|o| {
                let v = Value::Object(o.object);
                (pairing_key(&v), v)
            })
            .collect()
    };
    let (l, r) = (side(left), side(right));
    let keys: BTreeSet<&String> = l.keys().chain(r.keys()).collect();
    let changes = keys
        .into_iter()
        .filter_map(|k| {
            let (lv, rv) = masked(show_secrets, l.get(k), r.get(k));
            let name = |env: &str, v: Option<&Value>| match v {
                Some(v) => format!("{env}/{}", key(v)),
                None => format!("{env}/(none)"),
            };
            let diff = unified(
                &yaml(lv.as_ref()),
                &yaml(rv.as_ref()),
                &name(left_env, l.get(k)),
                &name(right_env, r.get(k)),
            )?;
            let (object, change) = match (l.get(k), r.get(k)) {
                (Some(_), Some(v)) => (v, "update"),
                (None, Some(v)) => (v, "create"),
                (Some(v), None) => (v, "delete"),
                (None, None) => return None,
            };
            Some(Change {
                name: key(object),
                change,
                diff,
            })
        })
        .collect();
    DiffReport {
        changes,
        incomplete: None,
    }
}

/// One object of `kf diff ENV`: the change already known (a kind the cluster does not
/// serve), or the resource, the object and its namespace to ask the server about.
enum Job {
    Ready(Option<Change>),
    Server(Box<(Resource, Item, Option<String>)>),
}

/// The live object against the server's dry-run apply of `item`.
async fn server_diff(
    cluster: &Cluster,
    owner: &Owner,
    show_secrets: bool,
    res: &Resource,
    item: &Item,
    ns: Option<&str>,
) -> Result<Option<Change>> {
    let path = res.path(ns, Some(&item.name));
    let id = format!(
        "{}/{}{}",
        res.kind_name(),
        item.name,
        ns.map(|n| format!(" -n {n}")).unwrap_or_default()
    );
    let live = match cluster.get(&path).await {
        Ok(r) => Some(r.body),
        Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => None,
        Err(e) => return Err(anyhow!("{id}: reading the live object: {e}")),
    };
    let name = format!(
        "{}/{}{}",
        res.kind_name(),
        ns.map(|n| format!("{n}/")).unwrap_or_default(),
        item.name
    );
    // Being deleted: apply waits until it is gone and creates it anew, so the change is
    // the live object against the object as rendered (a dry-run apply would patch the
    // object that is going).
    if let Some(live) = live
        .as_ref()
        .filter(|l| crate::cluster::status::being_deleted(l).is_some())
    {
        let left = comparable(live);
        let right = comparable(&Value::Object(item.object.clone()));
        let (left, right) = masked(show_secrets, Some(&left), Some(&right));
        let diff = unified(
            &yaml(left.as_ref()),
            &yaml(right.as_ref()),
            &format!("live/{name} (being deleted)"),
            &format!("kf/{name}"),
        )
        .unwrap_or_default();
        return Ok(Some(Change {
            name,
            change: "recreate",
            diff,
        }));
    }
    let body = serde_json::to_vec(&item.object)?;
    let how = Sending {
        field_manager: &owner.field_manager,
        force: true,
        dry_run: DryRun::Server,
        field_validation: None,
    };
    let planned = send_apply(cluster, &path, body, &how)
        .await
        .map_err(|e| anyhow!("{id}: server dry-run apply: {e}"))?
        .body;
    let left = live.as_ref().map(comparable);
    let right = comparable(&planned);
    let (left, right) = masked(show_secrets, left.as_ref(), Some(&right));
    Ok(unified(
        &yaml(left.as_ref()),
        &yaml(right.as_ref()),
        &format!("live/{name}"),
        &format!("kf/{name}"),
    )
    .map(|diff| Change {
        name,
        change: if live.is_some() { "update" } else { "create" },
        diff,
    }))
}

/// The target against its cluster.
pub async fn diff_env(
    target: Target,
    options: &DiffOptions,
    reporter: &mut dyn Reporter,
) -> Result<DiffReport> {
    let env = &target.env;
    let cluster = super::connect(env, &options.connection, reporter).await?;
    let resources = Resources::discover(&cluster).await?;
    let mut keep = BTreeSet::new();
    let mut jobs = Vec::new();
    let components = target.prune_components();
    for mut item in target.items {
        let Some(res) = resources.resolve(&item.api_version, &item.kind) else {
            // A kind the cluster does not serve yet: all of it is new.
            let planned = Value::Object(item.object.clone());
            let (_, right) = masked(options.show_secrets, None, Some(&planned));
            let name = format!("kf/{}", key(&planned));
            jobs.push(Job::Ready(
                unified("", &yaml(right.as_ref()), "live/(none)", &name).map(|diff| Change {
                    name: key(&planned),
                    change: "create",
                    diff,
                }),
            ));
            continue;
        };
        let ns = item.namespace_for(&res, &env.namespace);
        keep.insert((
            String::new(),
            res.api.kind.clone(),
            ns.clone().unwrap_or_default(),
            item.name.clone(),
        ));
        if let Some(Value::Object(m)) = item.object.get_mut("metadata") {
            match &ns {
                Some(n) => m.insert("namespace".into(), Value::String(n.clone())),
                None => m.remove("namespace"),
            };
        }
        jobs.push(Job::Server(Box::new((res, item, ns))));
    }
    reporter.phase(Phase::Comparing { count: jobs.len() });
    // A GET and a dry-run PATCH per object, as many at once as apply makes; the diffs
    // come out in the objects' order whichever answer arrives first.
    let cluster = &cluster;
    let owner = &target.owner;
    let show = options.show_secrets;
    let per_object: Vec<Result<Option<Change>>> = futures::stream::iter(jobs)
        .map(|job| async move {
            match job {
                Job::Ready(change) => Ok(change),
                Job::Server(job) => {
                    let (res, item, ns) = *job;
                    server_diff(cluster, owner, show, &res, &item, ns.as_deref()).await
                }
            }
        })
        .buffered(options.concurrency.max(1))
        .collect()
        .await;
    let mut report = DiffReport::default();
    for change in per_object {
        report.changes.extend(change?);
    }
    if options.prune {
        let scope = prune::Scope {
            keep,
            components,
            namespace: env.namespace.clone(),
        };
        reporter.phase(Phase::FindingPrunable);
        let found = prune::candidates(cluster, &resources, owner, &scope).await?;
        report.incomplete = found.warning(&env.namespace);
        for f in found.found {
            let path = f.resource.path(f.namespace.as_deref(), Some(&f.name));
            let live = match cluster.get(&path).await {
                Ok(r) => r.body,
                Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => continue,
                Err(e) => return Err(anyhow!("{}: reading the live object: {e}", f.id())),
            };
            let name = format!(
                "{}/{}{}",
                f.resource.kind_name(),
                f.namespace
                    .as_deref()
                    .map(|n| format!("{n}/"))
                    .unwrap_or_default(),
                f.name
            );
            let (left, _) = masked(show, Some(&comparable(&live)), None);
            report.changes.extend(
                unified(
                    &yaml(left.as_ref()),
                    "",
                    &format!("live/{name}"),
                    &format!("kf/{name} (pruned)"),
                )
                .map(|diff| Change {
                    name,
                    change: "prune",
                    diff,
                }),
            );
        }
    }
    Ok(report)
}
