//! `kf apply`: the env's namespace, the field check, what prune would delete (shown before
//! anything changes), the apply tier by tier, the prune, the ApplySet parent, the wait.

use std::time::Duration;

use serde::Serialize;

use super::{Connection, ObjectResult, Target, Verdict};
use crate::cluster::apply::{self, ApplyOptions as Sending};
use crate::cluster::client::humantime;
use crate::cluster::events::{Event, Phase, Reporter};
use crate::cluster::field_check::{self, FieldValidation};
use crate::cluster::namespace::{self, Namespace};
use crate::cluster::outcome::{Action, DryRun, Outcome};
use crate::cluster::prune::{self, Deleted, Found};
use crate::cluster::resources::Resources;

/// What `kf apply` was asked to do.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    pub dry_run: DryRun,
    pub force_conflicts: bool,
    pub prune: bool,
    /// Wait until every object is Ready and every pruned one gone.
    pub wait: bool,
    pub wait_for_jobs: bool,
    pub concurrency: usize,
    /// What becomes of pruned objects' dependents.
    pub cascade: crate::cluster::prune::Cascade,
    pub create_namespace: bool,
    pub validate: FieldValidation,
    pub connection: Connection,
}

/// What `kf apply` did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    pub environment: String,
    pub namespace: String,
    #[serde(serialize_with = "super::serialize_dry_run")]
    pub dry_run: DryRun,
    pub namespace_created: bool,
    /// Every object's apply, in the order applied.
    #[serde(rename = "objects", serialize_with = "applied")]
    pub outcomes: Vec<Outcome>,
    /// Every deletion prune sent.
    #[serde(rename = "pruned", serialize_with = "pruned")]
    pub deletions: Vec<Deleted>,
    /// Why prune did not run at all (it could not list what it may delete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prune_error: Option<String>,
    /// With `--wait`: the readiness the wait ended with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<super::status::StatusReport>,
    /// Why the wait did not end with everything Ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_error: Option<String>,
}

fn applied<S: serde::Serializer>(outcomes: &[Outcome], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(outcomes.iter().map(ObjectResult::applied))
}

fn pruned<S: serde::Serializer>(deletions: &[Deleted], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(
        deletions
            .iter()
            .map(|d| ObjectResult::removed(d, Verdict::Pruned)),
    )
}

impl ApplyReport {
    /// `3 objects: 1 created, 1 configured, 1 unchanged, 2 pruned`: what happened, counted.
    pub fn summary(&self) -> String {
        let count = |f: &dyn Fn(&Result<Action, String>) -> bool| {
            self.outcomes.iter().filter(|o| f(&o.result)).count()
        };
        let created = count(&|r| matches!(r, Ok(Action::Created)));
        let configured = count(&|r| matches!(r, Ok(Action::Configured)));
        let unchanged = count(&|r| matches!(r, Ok(Action::Unchanged)));
        let skipped = count(&|r| matches!(r, Ok(Action::Skipped(_))));
        let failed = count(&|r| r.is_err());
        // Only deletions that happened: an object already gone or replaced is not counted.
        let pruned_ok = self
            .deletions
            .iter()
            .filter(|d| d.result == Ok(true))
            .count();
        // Every prune candidate is counted: deleted, gone before kf's delete reached it
        // (or its reply was lost and the retry found it gone), or failed.
        let gone = self
            .deletions
            .iter()
            .filter(|d| d.result == Ok(false))
            .count();
        let prune_failed = self.deletions.iter().filter(|d| d.result.is_err()).count();
        let part = |n: usize, what: &str| {
            if n > 0 {
                format!(", {n} {what}")
            } else {
                String::new()
            }
        };
        let pruned_word = if self.dry_run == DryRun::None {
            "pruned"
        } else {
            "would be pruned"
        };
        format!(
            "{}: {created} created, {configured} configured, {unchanged} unchanged{}{}{}{}{}",
            crate::message::counted(self.outcomes.len(), "object"),
            part(skipped, "skipped"),
            part(failed, "failed"),
            part(pruned_ok, pruned_word),
            part(gone, "already gone"),
            part(prune_failed, "failed to prune"),
        )
    }

    /// The objects applied (not skipped, not failed), for `-o name`.
    pub fn applied_names(&self) -> Vec<String> {
        self.outcomes
            .iter()
            .filter(|o| matches!(o.result, Ok(ref a) if !matches!(a, Action::Skipped(_))))
            .map(|o| o.id.clone())
            .collect()
    }

    /// Why the command fails, if it does: objects that failed, a prune that did not run,
    /// a wait that ran out.
    pub fn failure(&self) -> Option<String> {
        let failed = self.outcomes.iter().filter(|o| o.result.is_err()).count();
        let prune_failed = self.deletions.iter().filter(|d| d.result.is_err()).count();
        if failed > 0 || prune_failed > 0 {
            return Some(format!(
                "{} of {} objects failed to apply or prune in environment '{}'",
                failed + prune_failed,
                self.outcomes.len() + self.deletions.len(),
                self.environment
            ));
        }
        if let Some(e) = &self.prune_error {
            return Some(format!(
                "prune of environment '{}' did not run: {e}",
                self.environment
            ));
        }
        self.wait_error.clone()
    }
}

/// What prune would delete: kf's objects of this env (of `-c`'s components) that the
/// render no longer has. Also whether some kinds could not be checked.
async fn prunable(
    cluster: &crate::cluster::client::Cluster,
    resources: &Resources,
    target: &Target,
    reporter: &mut dyn Reporter,
) -> Result<(Vec<Found>, bool), crate::cluster::ClusterError> {
    let keep = target
        .items
        .iter()
        .filter_map(|i| {
            let res = resources.resolve(&i.api_version, &i.kind)?;
            let ns = i
                .namespace_for(&res, &target.env.namespace)
                .unwrap_or_default();
            Some((
                String::new(), // matched without the group, as prune::Found::identity
                res.api.kind.clone(),
                ns,
                i.name.clone(),
            ))
        })
        .collect();
    let scope = prune::Scope {
        keep,
        components: target.prune_components(),
        namespace: target.env.namespace.clone(),
    };
    reporter.phase(Phase::FindingPrunable);
    let c = prune::candidates(cluster, resources, &target.owner, &scope).await?;
    let warning = c.warning(&target.env.namespace);
    if let Some(w) = &warning {
        reporter.warning(w);
    }
    Ok((c.found, warning.is_some()))
}

/// Apply the target's objects to its cluster.
pub async fn apply_env(
    target: Target,
    options: &ApplyOptions,
    reporter: &mut dyn Reporter,
) -> anyhow::Result<ApplyReport> {
    let env = &target.env;
    let cluster = super::connect(env, &options.connection, reporter).await?;
    let resources = Resources::discover(&cluster).await?;
    let renders_namespace = target
        .items
        .iter()
        .any(|i| i.kind == "Namespace" && i.api_version == "v1" && i.name == env.namespace);
    let ns = namespace::ensure(
        &cluster,
        &env.namespace,
        renders_namespace,
        options.create_namespace,
        options.dry_run,
    )
    .await?;
    let sending = Sending {
        dry_run: options.dry_run,
        force_conflicts: options.force_conflicts,
        concurrency: options.concurrency,
        crd_wait: super::crd_wait(options.connection.timeout),
        terminating_wait: super::terminating_wait(options.connection.timeout),
        deletion_said: Default::default(),
        owner: target.owner.clone(),
        applyset: Some(crate::cluster::applyset::ApplySet::of(
            &target.owner,
            &env.namespace,
        )),
        fields: field_check::plan(
            &cluster,
            &resources,
            &target.items,
            options.validate,
            cluster.version(),
            reporter,
        )
        .await,
    };
    let mut report = ApplyReport {
        environment: env.name.clone(),
        namespace: env.namespace.clone(),
        dry_run: options.dry_run,
        namespace_created: ns == Namespace::Created,
        outcomes: Vec::new(),
        deletions: Vec::new(),
        prune_error: None,
        status: None,
        wait_error: None,
    };
    if report.namespace_created {
        reporter.event(Event::NamespaceCreated {
            name: &env.namespace,
            dry_run: options.dry_run,
        });
    }
    // What prune would delete is shown before anything changes. Kinds prune could not
    // list are said and left as they are (the ApplySet parent then keeps listing them).
    let mut prune_unchecked = false;
    let doomed = if options.prune {
        match prunable(&cluster, &resources, &target, reporter).await {
            Ok((found, unchecked)) => {
                prune_unchecked = unchecked;
                found
            }
            Err(e) => {
                reporter.error(&e.to_string());
                report.prune_error = Some(e.to_string());
                Vec::new()
            }
        }
    } else {
        Vec::new()
    };
    for f in &doomed {
        reporter.event(Event::WillPrune(f));
    }
    let members = apply::SetMembers::of(&target.items, &env.namespace);
    let outcomes = apply::apply(
        &cluster,
        resources,
        target.items.clone(),
        &env.namespace,
        &sending,
        reporter,
    )
    .await?;
    let failed = outcomes.iter().any(|o| o.result.is_err());
    let pruned = if failed && !doomed.is_empty() {
        reporter.event(Event::PruneSkipped);
        Vec::new()
    } else {
        if !doomed.is_empty() {
            reporter.phase(Phase::Deleting {
                count: doomed.len(),
            });
        }
        let dry_run = options.dry_run;
        prune::delete(
            &cluster,
            doomed.clone(),
            dry_run,
            options.cascade,
            options.concurrency,
            &mut |d| {
                reporter.event(Event::Removed {
                    deleted: d,
                    verb: "pruned",
                    dry_run,
                })
            },
        )
        .await
    };
    // Every candidate gone after a full render's apply: the ApplySet lists only what the
    // set still holds. With -c, the other components' kinds stay listed.
    let complete = options.prune
        && target.whole_env()
        && report.prune_error.is_none()
        && !prune_unchecked
        && !failed
        && pruned.iter().all(|d| d.result.is_ok());
    if complete
        && options.dry_run == DryRun::None
        && let Err(e) = apply::narrow_parent(&cluster, &members, &sending).await
    {
        reporter.warning(&format!("ApplySet parent not updated after prune: {e}"));
    }
    if options.wait && options.dry_run == DryRun::None && !failed {
        match wait(
            &cluster,
            &target,
            &doomed,
            &pruned,
            options.connection.timeout,
            options.wait_for_jobs,
            reporter,
        )
        .await?
        {
            Waited::Gone(status) => {
                report.wait_error = status.failure();
                report.status = Some(status);
            }
            Waited::StillDeleting(e) => report.wait_error = Some(e),
        }
    }
    report.outcomes = outcomes;
    report.deletions = pruned;
    Ok(report)
}

/// How `--wait` ended: pruned objects still being deleted, or readiness checked.
enum Waited {
    StillDeleting(String),
    Gone(super::status::StatusReport),
}

/// `--wait`: the pruned objects gone, then every applied object Ready.
async fn wait(
    cluster: &crate::cluster::client::Cluster,
    target: &Target,
    doomed: &[Found],
    pruned: &[Deleted],
    timeout: Duration,
    for_jobs: bool,
    reporter: &mut dyn Reporter,
) -> anyhow::Result<Waited> {
    let gone: Vec<Found> = doomed
        .iter()
        .zip(pruned)
        .filter(|(_, d)| d.result == Ok(true))
        .map(|(f, _)| f.clone())
        .collect();
    if !gone.is_empty() {
        reporter.phase(Phase::WaitingForDeletion { count: gone.len() });
    }
    let left = prune::wait_gone(cluster, &gone, cluster.remaining().unwrap_or_default()).await;
    if !left.is_empty() {
        return Ok(Waited::StillDeleting(format!(
            "{} pruned objects are still being deleted after --timeout {}: {}",
            left.len(),
            humantime(timeout),
            left.join(", ")
        )));
    }
    let resources = Resources::discover(cluster).await?;
    let objects = super::status::watched(&target.items, &resources, &target.env.namespace);
    let wait = super::status::Wait { timeout, for_jobs };
    Ok(Waited::Gone(
        super::status::check(
            cluster,
            &objects,
            &[],
            Some(&crate::cluster::labels::selector(
                &target.owner.app,
                &target.owner.env,
            )),
            Some(wait),
            reporter,
        )
        .await,
    ))
}
