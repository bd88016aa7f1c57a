//! `kf apply`: server-side apply of a rendered environment, tier by tier.
//!
//! Tiers: Namespaces; CRDs (then wait until Established and refresh discovery, so their
//! custom resources resolve); RBAC, ServiceAccounts, ConfigMaps, Secrets and other
//! prerequisites; everything else; workloads; webhooks last (a webhook whose service is
//! not up yet would block the rest). Objects of a tier go in parallel, bounded by
//! `concurrency`; results are reported in the tier's own (sorted) order, so output is the
//! same run after run.

mod parent;
mod send;

use std::time::{Duration, Instant};

use futures::StreamExt;

use super::ClusterError;
use super::applyset::ApplySet;
use super::client::Cluster;
use super::events::{Event, Phase, Reporter};
use super::item::Item;
use super::outcome::{Action, DryRun, Outcome};
use super::ownership::Owner;
use super::resources::Resources;
use super::tier::tier;

use parent::{ParentUpdate, apply_parent};
pub use parent::{SetMembers, narrow_parent};
pub use send::{Sending, send_apply};
use send::{apply_one, read_ahead};

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
    /// How long an object being deleted is waited for before it is created anew (the
    /// command's deadline may cut it shorter).
    pub terminating_wait: Duration,
    /// Set once the first wait for an object being deleted is said (one line a run).
    pub deletion_said: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Whose objects these are, and the field manager to apply with.
    pub owner: Owner,
    /// The KEP-3659 ApplySet whose parent to keep up to date (none: no parent).
    pub applyset: Option<ApplySet>,
    /// How fields are checked: the server's `fieldValidation`, or objects kf refused.
    pub fields: super::field_check::Plan,
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
