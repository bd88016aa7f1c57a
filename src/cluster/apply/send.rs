//! One object's server-side apply: what the server holds (read ahead by LIST for a kind
//! with many objects), the PATCH, and its outcome.

use std::collections::{BTreeMap, BTreeSet};

use http::{Method, StatusCode};
use serde_json::Value;

use super::ApplyOptions;
use crate::cluster::client::{Cluster, Failure};
use crate::cluster::item::{Item, place};
use crate::cluster::outcome::{Action, DryRun, Outcome};
use crate::cluster::ownership::Claim;
use crate::cluster::query::encode;
use crate::cluster::resources::Resource;

/// Below this many objects of one kind in one namespace, each is read with its own GET;
/// from it on, one LIST (kf's labelled objects only) reads them all: half the requests
/// for a large app, without listing a namespace's every Secret for a small one.
pub(super) const LIST_FROM: usize = 16;

/// Live objects read ahead with one LIST per kind and namespace.
#[derive(Default)]
pub(super) struct Known {
    /// Collection paths listed: an object of one of them that is not in `objects` has no
    /// kf labels (absent, or someone else's — the apply's reply code tells which).
    listed: BTreeSet<String>,
    /// Object path → live object.
    objects: BTreeMap<String, Value>,
}

pub(super) async fn read_ahead(
    cluster: &Cluster,
    work: &[(Resource, Item)],
    env_namespace: &str,
    options: &ApplyOptions,
) -> Known {
    let mut known = Known::default();
    if options.dry_run == DryRun::Client {
        return known;
    }
    let mut counts: BTreeMap<String, (usize, Resource)> = BTreeMap::new();
    for (res, item) in work {
        let ns = item.namespace_for(res, env_namespace);
        let entry = counts
            .entry(res.path(ns.as_deref(), None))
            .or_insert((0, res.clone()));
        entry.0 += 1;
    }
    let selector = encode(&format!("{}=kf", crate::cluster::labels::MANAGED_BY));
    for (collection, (count, res)) in counts {
        if count < LIST_FROM {
            continue;
        }
        let mut items = Vec::new();
        let mut next: Option<String> = None;
        let complete = loop {
            let mut path = format!("{collection}?labelSelector={selector}&limit=500");
            if let Some(token) = &next {
                path.push_str(&format!("&continue={}", encode(token)));
            }
            // Any failure (no list permission, …): those objects are read one by one.
            let Ok(reply) = cluster.get(&path).await else {
                break false;
            };
            items.extend(reply.body["items"].as_array().cloned().unwrap_or_default());
            match reply.body["metadata"]["continue"].as_str() {
                Some(t) if !t.is_empty() => next = Some(t.to_string()),
                _ => break true,
            }
        };
        if !complete {
            continue;
        }
        let api_version = if res.api.group.is_empty() {
            res.api.version.clone()
        } else {
            format!("{}/{}", res.api.group, res.api.version)
        };
        for mut obj in items {
            let Some(name) = obj["metadata"]["name"].as_str().map(str::to_string) else {
                continue;
            };
            // A list's items come without apiVersion and kind.
            if let Some(o) = obj.as_object_mut() {
                o.insert("apiVersion".into(), Value::String(api_version.clone()));
                o.insert("kind".into(), Value::String(res.api.kind.clone()));
            }
            let ns = obj["metadata"]["namespace"].as_str().map(str::to_string);
            known
                .objects
                .insert(res.path(ns.as_deref(), Some(&name)), obj);
        }
        known.listed.insert(collection);
    }
    known
}

pub(super) async fn apply_one(
    cluster: &Cluster,
    res: Resource,
    mut item: Item,
    env_namespace: &str,
    options: &ApplyOptions,
    known: &Known,
) -> Outcome {
    // As the field check knew it: before it is placed in its namespace.
    let refused = options
        .fields
        .refused
        .get(&crate::cluster::field_check::key(&item));
    let namespace = place(&mut item, &res, env_namespace);
    let id = format!("{}/{}", res.kind_name(), item.name);
    let mut outcome = Outcome {
        id,
        namespace: namespace.clone(),
        result: Ok(Action::Unchanged),
        uid: None,
        resource: Some(res.clone()),
        name: item.name.clone(),
    };
    if item.name.is_empty() {
        outcome.result = Err("the object has no metadata.name".into());
        return outcome;
    }
    if let Some(why) = refused {
        outcome.result = Err(why.clone());
        return outcome;
    }
    let path = res.path(namespace.as_deref(), Some(&item.name));
    let before = if known.listed.contains(&res.path(namespace.as_deref(), None)) {
        known.objects.get(&path).cloned()
    } else {
        match cluster.get(&path).await {
            Ok(r) => Some(r.body),
            Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => None,
            Err(e) => {
                outcome.result = Err(e.to_string());
                return outcome;
            }
        }
    };
    // An object being deleted is not live: patching it would report it unchanged and the
    // garbage collector would then remove it. Wait until it is gone, then create it.
    let before = match before {
        Some(live) if crate::cluster::status::being_deleted(&live).is_some() => {
            if options.dry_run != DryRun::None {
                outcome.result = Ok(Action::Created);
                return outcome;
            }
            if !options
                .deletion_said
                .swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                cluster.say(&format!(
                    "waiting (up to {}) for objects being deleted to go, to create them anew: {} first",
                    crate::cluster::client::humantime(options.terminating_wait),
                    outcome.id
                ));
            }
            if let Err(why) = wait_deleted(cluster, &path, &live, options.terminating_wait).await {
                outcome.result = Err(why);
                return outcome;
            }
            None
        }
        other => other,
    };
    // Another kf app's or environment's object under the same name: applying would
    // relabel it ours and a later prune of its owner would lose it. Refused.
    if let Some(live) = &before
        && !options.force_conflicts
    {
        let refused = match options.owner.claim(live) {
            Claim::OtherKf { app, env } => Some(format!(
                "it belongs to kf app '{app}', environment '{env}' (its kf.dev labels)"
            )),
            Claim::OtherApp { app, id } => Some(options.owner.other_app(&app, &id)),
            Claim::Ours | Claim::Unlabelled => None,
        };
        if let Some(whose) = refused {
            outcome.result = Err(format!(
                "{whose}; refusing to take it over for app '{}', environment '{}'. Rename it, remove it from that app, or pass --force-conflicts",
                options.owner.app, options.owner.env
            ));
            return outcome;
        }
    }
    if options.dry_run == DryRun::Client {
        outcome.result = Ok(if before.is_some() {
            Action::Configured
        } else {
            Action::Created
        });
        return outcome;
    }
    let body = serde_json::to_vec(&item.object).unwrap_or_default();
    let reply = send_apply(cluster, &path, body, &options.sending()).await;
    outcome.result = match reply {
        // A field-manager conflict: say how to resolve it, as kubectl does.
        Err(Failure::Status(r))
            if r.status == StatusCode::CONFLICT && r.message().contains("Apply failed with") =>
        {
            Err(format!(
                "{} (409); another field manager set these fields: take them over with --force-conflicts, or render the values it set",
                crate::cluster::redact::server_message(&r.message())
            ))
        }
        Err(e) => Err(e.to_string()),
        Ok(r) if r.body["metadata"]["name"] != item.name.as_str() => Err(format!(
            "PATCH {path}: the server's reply is not the object (no metadata.name '{}'); nothing is known about what was applied",
            item.name
        )),
        Ok(r) => {
            let rv = |v: &Value| {
                v["metadata"]["resourceVersion"]
                    .as_str()
                    .map(str::to_string)
            };
            if options.dry_run == DryRun::None {
                outcome.uid = r.body["metadata"]["uid"].as_str().map(str::to_string);
            }
            Ok(match &before {
                // Not read ahead (no kf labels) yet there: an unlabelled object adopted.
                None if r.status == StatusCode::OK => Action::Configured,
                None => Action::Created,
                Some(live) if options.dry_run == DryRun::Server => {
                    if crate::cluster::diff::comparable(live)
                        == crate::cluster::diff::comparable(&r.body)
                    {
                        Action::Unchanged
                    } else {
                        Action::Configured
                    }
                }
                Some(live) if rv(live).is_some() && rv(live) == rv(&r.body) => Action::Unchanged,
                // A 1.20 server may write an apply that changes nothing but the time in
                // managedFields (a new resourceVersion): the object is as it was.
                Some(live)
                    if crate::cluster::diff::comparable(live)
                        == crate::cluster::diff::comparable(&r.body) =>
                {
                    Action::Unchanged
                }
                Some(_) => Action::Configured,
            })
        }
    };
    outcome
}

/// Wait until `live`, which is being deleted, is gone from `path` (or replaced by another
/// object of the name), for at most `limit` and never past the command's deadline.
async fn wait_deleted(
    cluster: &Cluster,
    path: &str,
    live: &Value,
    limit: std::time::Duration,
) -> Result<(), String> {
    let uid = live["metadata"]["uid"].as_str();
    let start = std::time::Instant::now();
    let mut last = live.clone();
    loop {
        let waited = start.elapsed();
        let left = cluster.remaining().unwrap_or(limit);
        if waited >= limit || left.is_zero() {
            let (_, detail) = crate::cluster::status::readiness(&last);
            let finalizers = last["metadata"]["finalizers"]
                .as_array()
                .is_some_and(|f| !f.is_empty());
            return Err(format!(
                "it is {detail}; kf waited {} for it to go, to create it anew, and it is still there: apply again once it is gone{}",
                crate::cluster::client::humantime(waited),
                if finalizers {
                    " (its finalizers' controller must finish, or remove the finalizers)"
                } else {
                    " (the controller-manager's garbage collector removes it)"
                }
            ));
        }
        let pause = std::time::Duration::from_millis(500)
            .min(left)
            .min(limit - waited);
        tokio::time::sleep(pause).await;
        match cluster.get(path).await {
            Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => return Ok(()),
            Ok(r) if r.body["metadata"]["uid"].as_str() != uid => {
                // Deleted and made again by someone else meanwhile: apply to that one.
                if crate::cluster::status::being_deleted(&r.body).is_none() {
                    return Ok(());
                }
                last = r.body;
            }
            Ok(r) => last = r.body,
            // Out of time mid-request: said above, on the next turn.
            Err(_)
                if start.elapsed() >= limit || cluster.remaining().is_some_and(|r| r.is_zero()) => {
            }
            Err(e) => return Err(format!("waiting for it to be deleted: {e}")),
        }
    }
}

/// How a server-side apply is sent: the field manager, whether to force conflicts, the
/// server dry run, and the server's field validation.
pub struct Sending<'a> {
    pub field_manager: &'a str,
    pub force: bool,
    pub dry_run: DryRun,
    pub field_validation: Option<&'static str>,
}

impl ApplyOptions {
    pub(super) fn sending(&self) -> Sending<'_> {
        Sending {
            field_manager: &self.owner.field_manager,
            force: self.force_conflicts,
            dry_run: self.dry_run,
            field_validation: self.fields.query,
        }
    }
}

/// PATCH `body` to `path` as a server-side apply, sent as `how` says.
pub async fn send_apply(
    cluster: &Cluster,
    path: &str,
    body: Vec<u8>,
    how: &Sending<'_>,
) -> Result<crate::cluster::client::Reply, Failure> {
    let mut query = format!(
        "?fieldManager={}&force={}",
        encode(how.field_manager),
        how.force
    );
    if how.dry_run == DryRun::Server {
        query.push_str("&dryRun=All");
    }
    if let Some(v) = how.field_validation {
        query.push_str(&format!("&fieldValidation={v}"));
    }
    cluster
        .request(
            Method::PATCH,
            &format!("{path}{query}"),
            Some("application/apply-patch+yaml"),
            body,
        )
        .await
}
