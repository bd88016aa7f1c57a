//! `kf apply`: server-side apply of a rendered environment, tier by tier.
//!
//! Tiers: Namespaces; CRDs (then wait until Established and refresh discovery, so their
//! custom resources resolve); RBAC, ServiceAccounts, ConfigMaps, Secrets and other
//! prerequisites; everything else; workloads; webhooks last (a webhook whose service is
//! not up yet would block the rest). Objects of a tier go in parallel, bounded by
//! `concurrency`; results are reported in the tier's own (sorted) order, so output is the
//! same run after run.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use futures::StreamExt;
use http::{Method, StatusCode};
use serde_json::{Map, Value};

use super::ClusterError;
use super::applyset::{self, ApplySet};
use super::client::{Cluster, Failure};
use super::events::{Event, Phase, Reporter};
use super::ownership::{Claim, Owner};
use super::prune::encode;
use super::resources::{Resource, Resources};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    None,
    /// Nothing is sent; kf only checks what it would send.
    Client,
    /// The server runs the apply without persisting it.
    Server,
}

impl DryRun {
    /// `none`, `client` or `server`, as `--dry-run` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            DryRun::None => "none",
            DryRun::Client => "client",
            DryRun::Server => "server",
        }
    }

    /// What a line about a dry run ends with: ` (dry run)`, ` (server dry run)`, or nothing.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ApplyOptions {
    pub dry_run: DryRun,
    /// Take over fields other managers own, and objects another kf app or environment
    /// labelled.
    pub force_conflicts: bool,
    pub concurrency: usize,
    /// How long to wait for new CRDs to become Established (the command's deadline may cut
    /// it shorter). A CRD that is not fails its own custom resources only.
    pub crd_wait: Duration,
    /// Whose objects these are, and the field manager to apply with.
    pub owner: Owner,
    /// The KEP-3659 ApplySet whose parent to keep up to date (none: no parent).
    pub applyset: Option<ApplySet>,
    /// How fields are checked: the server's `fieldValidation`, or objects kf refused.
    pub fields: super::field_check::Plan,
}

/// What happened to one object.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Created,
    Configured,
    Unchanged,
    /// Not sent, and why.
    Skipped(String),
}

#[derive(Debug, Clone)]
pub struct Outcome {
    /// `deployment.apps/web`
    pub id: String,
    pub namespace: Option<String>,
    pub result: Result<Action, String>,
    /// The object's UID on the cluster after the apply (none for dry runs).
    pub uid: Option<String>,
    pub resource: Option<Resource>,
    pub name: String,
}

impl Outcome {
    pub fn line(&self, dry_run: DryRun) -> String {
        let suffix = dry_run.suffix();
        let ns = self
            .namespace
            .as_deref()
            .map(|n| format!(" -n {n}"))
            .unwrap_or_default();
        match &self.result {
            Ok(Action::Created) => format!("{}{ns} created{suffix}", self.id),
            Ok(Action::Configured) => format!("{}{ns} configured{suffix}", self.id),
            Ok(Action::Unchanged) => format!("{}{ns} unchanged{suffix}", self.id),
            Ok(Action::Skipped(why)) => format!("{}{ns} skipped: {why}", self.id),
            Err(e) => format!("{}{ns} failed: {e}", self.id),
        }
    }
}

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

fn str_at<'a>(obj: &'a Map<String, Value>, path: &[&str]) -> Option<&'a str> {
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

    fn fallback_id(&self) -> String {
        format!("{}/{}", self.kind.to_ascii_lowercase(), self.name)
    }
}

/// Fix the namespace for the resource's scope: namespaced objects without one go to the
/// env's; cluster-scoped objects have none.
fn place(item: &mut Item, res: &Resource, env_namespace: &str) -> Option<String> {
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

/// Below this many objects of one kind in one namespace, each is read with its own GET;
/// from it on, one LIST (kf's labelled objects only) reads them all: half the requests
/// for a large app, without listing a namespace's every Secret for a small one.
const LIST_FROM: usize = 16;

/// Live objects read ahead with one LIST per kind and namespace.
#[derive(Default)]
struct Known {
    /// Collection paths listed: an object of one of them that is not in `objects` has no
    /// kf labels (absent, or someone else's — the apply's reply code tells which).
    listed: BTreeSet<String>,
    /// Object path → live object.
    objects: BTreeMap<String, Value>,
}

async fn read_ahead(
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
    let selector = encode(&format!("{}=kf", super::labels::MANAGED_BY));
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

async fn apply_one(
    cluster: &Cluster,
    res: Resource,
    mut item: Item,
    env_namespace: &str,
    options: &ApplyOptions,
    known: &Known,
) -> Outcome {
    // As the field check knew it: before it is placed in its namespace.
    let refused = options.fields.refused.get(&super::field_check::key(&item));
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
                super::redact::server_message(&r.message())
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
                    if super::diff::comparable(live) == super::diff::comparable(&r.body) {
                        Action::Unchanged
                    } else {
                        Action::Configured
                    }
                }
                Some(live) if rv(live).is_some() && rv(live) == rv(&r.body) => Action::Unchanged,
                // A 1.20 server may write an apply that changes nothing but the time in
                // managedFields (a new resourceVersion): the object is as it was.
                Some(live) if super::diff::comparable(live) == super::diff::comparable(&r.body) => {
                    Action::Unchanged
                }
                Some(_) => Action::Configured,
            })
        }
    };
    outcome
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
    fn sending(&self) -> Sending<'_> {
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
) -> Result<super::client::Reply, Failure> {
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

/// What an ApplySet parent lists: the members' group kinds and namespaces.
pub struct SetMembers {
    pub group_kinds: BTreeSet<String>,
    pub namespaces: BTreeSet<String>,
}

impl SetMembers {
    pub fn of<'a>(items: impl IntoIterator<Item = &'a Item>, env_namespace: &str) -> SetMembers {
        let mut members = SetMembers {
            group_kinds: BTreeSet::new(),
            namespaces: BTreeSet::from([env_namespace.to_string()]),
        };
        for i in items {
            members
                .group_kinds
                .insert(applyset::group_kind(&i.api_version, &i.kind));
            if let Some(ns) = str_at(&i.object, &["metadata", "namespace"]) {
                members.namespaces.insert(ns.to_string());
            }
        }
        members
    }
}

/// How the parent's lists change.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ParentUpdate {
    /// Before members are applied: add to what the live parent lists, so a kind whose
    /// objects are still to be pruned stays visible.
    Widen,
    /// After a complete prune: list only what the set now holds (KEP-3659).
    Exact,
}

/// Once a full render is applied and every prune candidate is gone, the parent lists only
/// the kinds the set still has, as kubectl does after its prune. Apply with `-c`, or a
/// prune that did not finish, keeps the wider list.
pub async fn narrow_parent(
    cluster: &Cluster,
    members: &SetMembers,
    options: &ApplyOptions,
) -> Result<(), String> {
    let Some(set) = &options.applyset else {
        return Ok(());
    };
    apply_parent(cluster, set, members, options, ParentUpdate::Exact).await
}

/// Apply the ApplySet's parent Secret.
async fn apply_parent(
    cluster: &Cluster,
    set: &ApplySet,
    members: &SetMembers,
    options: &ApplyOptions,
    update: ParentUpdate,
) -> Result<(), String> {
    let path = format!("/api/v1/namespaces/{}/secrets/{}", set.namespace, set.name);
    let mut kinds = members.group_kinds.clone();
    match cluster.get(&path).await {
        Ok(live) => {
            if live.body["metadata"]["labels"][applyset::ID] != set.id().as_str() {
                return Err(format!(
                    "a Secret of that name exists and is not this ApplySet's parent (no {} label {}); rename or remove it",
                    applyset::ID,
                    set.id()
                ));
            }
            let listed = live.body["metadata"]["annotations"][applyset::CONTAINS_GROUP_KINDS]
                .as_str()
                .unwrap_or_default();
            if update == ParentUpdate::Exact && listed == join(&kinds) {
                return Ok(());
            }
            if update == ParentUpdate::Widen {
                kinds.extend(
                    listed
                        .split(',')
                        .filter(|k| !k.is_empty())
                        .map(str::to_string),
                );
            }
        }
        Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => {}
        Err(e) => return Err(e.to_string()),
    }
    let body = serde_json::to_vec(&set.parent(&kinds, &members.namespaces)).unwrap_or_default();
    send_apply(cluster, &path, body, &options.sending())
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn join(kinds: &BTreeSet<String>) -> String {
    kinds
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

/// Wait until the CRDs named are Established, for at most `limit` (and never past the
/// command's deadline); returns those that are not.
async fn wait_established(cluster: &Cluster, names: &[String], limit: Duration) -> Vec<String> {
    let start = Instant::now();
    let mut pending: Vec<String> = names.to_vec();
    loop {
        let mut still = Vec::new();
        for name in pending {
            let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}");
            let established = match cluster.get(&path).await {
                Ok(r) => r.body["status"]["conditions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|c| c["type"] == "Established" && c["status"] == "True"),
                Err(_) => false,
            };
            if !established {
                still.push(name);
            }
        }
        pending = still;
        let left = cluster.remaining().unwrap_or(limit);
        if pending.is_empty() || start.elapsed() >= limit || left.is_zero() {
            return pending;
        }
        tokio::time::sleep(Duration::from_millis(200).min(left)).await;
    }
}

/// What a tier holds, for the progress line.
const TIER_NAMES: [&str; 6] = [
    "namespaces",
    "CRDs",
    "RBAC and configuration",
    "other objects",
    "workloads",
    "webhooks",
];

/// Apply `items` (already labelled) tier by tier; `reporter` hears each outcome as it is
/// known, and the tier or wait the apply is in.
pub async fn apply(
    cluster: &Cluster,
    mut resources: Resources,
    items: Vec<Item>,
    env_namespace: &str,
    options: &ApplyOptions,
    reporter: &mut dyn Reporter,
) -> Result<Vec<Outcome>, ClusterError> {
    let mut tiers: Vec<Vec<Item>> = vec![Vec::new(); 6];
    for item in items {
        tiers[tier(&item.api_version, &item.kind) as usize].push(item);
    }
    // (group, kind, CRD name) of the CRDs this apply brings.
    let pending_crds: Vec<(String, String, String)> = tiers[1]
        .iter()
        .filter_map(|i| {
            let spec = i.object.get("spec")?;
            Some((
                spec.get("group")?.as_str()?.to_string(),
                spec.get("names")?.get("kind")?.as_str()?.to_string(),
                i.name.clone(),
            ))
        })
        .collect();
    let mut stuck_crds: Vec<String> = Vec::new();
    let members = SetMembers::of(tiers.iter().flatten(), env_namespace);
    let mut all = Vec::new();
    for (t, items) in tiers.into_iter().enumerate() {
        // The ApplySet's parent goes once namespaces exist and before any other member,
        // as KEP-3659 asks (a tool that stops half-way still has every kind recorded).
        if t == 1
            && let Some(set) = &options.applyset
            && options.dry_run != DryRun::Client
            && let Err(e) = apply_parent(cluster, set, &members, options, ParentUpdate::Widen).await
        {
            reporter.warning(&format!(
                "ApplySet parent secret/{} -n {} not applied: {e}; kubectl will not see kf's set (kf's own prune and delete do not need it)",
                set.name, set.namespace
            ));
        }
        if !items.is_empty() {
            reporter.phase(Phase::Applying {
                what: TIER_NAMES[t],
                count: items.len(),
            });
        }
        let mut work = Vec::new();
        for item in items {
            match resources.resolve(&item.api_version, &item.kind) {
                Some(res) => work.push((res, item)),
                None => {
                    let group = item
                        .api_version
                        .split_once('/')
                        .map(|(g, _)| g)
                        .unwrap_or("");
                    let crd = pending_crds
                        .iter()
                        .find(|(g, k, _)| g == group && *k == item.kind)
                        .map(|(_, _, name)| name);
                    let result = if crd.is_some() && options.dry_run != DryRun::None {
                        Ok(Action::Skipped(
                            "its CRD is part of this apply and not on the cluster yet".into(),
                        ))
                    } else if let Some(name) = crd.filter(|n| stuck_crds.contains(n)) {
                        Err(format!(
                            "its CRD {name} is not Established after {}; not applied. Check the CRD (kubectl describe crd {name}) and apply again",
                            super::client::humantime(options.crd_wait)
                        ))
                    } else {
                        Err(
                            match super::resources::retired_hint(&item.api_version, &item.kind) {
                                Some(hint) => format!(
                                    "the cluster does not serve {} {}: {hint}",
                                    item.api_version, item.kind
                                ),
                                None => format!(
                                    "the cluster does not serve {} {}; is its CRD installed?",
                                    item.api_version, item.kind
                                ),
                            },
                        )
                    };
                    let o = Outcome {
                        id: item.fallback_id(),
                        namespace: None,
                        result,
                        uid: None,
                        resource: None,
                        name: item.name.clone(),
                    };
                    reporter.event(Event::Applied(&o, options.dry_run));
                    all.push(o);
                }
            }
        }
        // Unordered, so one slow object does not hold a slot while later ones wait to be
        // reported; the tier's own order is restored before anything is printed.
        let known = read_ahead(cluster, &work, env_namespace, options).await;
        let known = &known;
        let mut outcomes: Vec<(usize, Outcome)> =
            futures::stream::iter(work.into_iter().enumerate())
                .map(|(i, (res, item))| async move {
                    (
                        i,
                        apply_one(cluster, res, item, env_namespace, options, known).await,
                    )
                })
                .buffer_unordered(options.concurrency.max(1))
                .collect()
                .await;
        outcomes.sort_by_key(|(i, _)| *i);
        let outcomes: Vec<Outcome> = outcomes.into_iter().map(|(_, o)| o).collect();
        for o in &outcomes {
            reporter.event(Event::Applied(o, options.dry_run));
        }
        // Only CRDs this apply created or changed are waited for (and discovery read
        // again): an unchanged one is served as it was, and a re-apply need not pay for
        // a wait and a second discovery.
        let crds: Vec<String> = outcomes
            .iter()
            .filter(|o| t == 1 && matches!(o.result, Ok(Action::Created) | Ok(Action::Configured)))
            .map(|o| o.name.clone())
            .collect();
        all.extend(outcomes);
        if t == 1 && !crds.is_empty() && options.dry_run == DryRun::None {
            // A CRD that never becomes Established fails its own custom resources only;
            // every other tier still goes.
            reporter.phase(Phase::WaitingForCrds {
                count: crds.len(),
                limit: options.crd_wait,
            });
            stuck_crds = wait_established(cluster, &crds, options.crd_wait).await;
            for name in &stuck_crds {
                reporter.warning(&format!(
                    "CRD {name} is not Established after {}; its custom resources will not be applied",
                    super::client::humantime(options.crd_wait)
                ));
            }
            reporter.phase(Phase::Discovering);
            resources = Resources::discover(cluster).await?;
        }
    }
    Ok(all)
}
