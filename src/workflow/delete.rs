//! `kf delete`: the env's objects that are kf's for this app and env, in reverse apply
//! order, then (for the whole env) the ApplySet parent; other objects are left alone.

use serde::Serialize;

use super::{Connection, ObjectName, ObjectResult, Target, Verdict};
use crate::cluster::applyset::{self, ApplySet};
use crate::cluster::client::{Failure, humantime};
use crate::cluster::events::{Event, Phase, Reporter};
use crate::cluster::outcome::DryRun;
use crate::cluster::prune::{self, Deleted, Found};
use crate::cluster::resources::Resources;

/// What `kf delete` was asked to do.
#[derive(Debug, Clone)]
pub struct DeleteOptions {
    pub dry_run: DryRun,
    pub concurrency: usize,
    /// What becomes of the objects' dependents.
    pub cascade: crate::cluster::prune::Cascade,
    /// Wait until the deleted objects are gone.
    pub wait: bool,
    pub connection: Connection,
}

/// What `kf delete` did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeleteReport {
    pub environment: String,
    #[serde(serialize_with = "super::serialize_dry_run")]
    pub dry_run: DryRun,
    /// Every deletion sent, the ApplySet parent's included: deleted, gone or failed.
    pub deleted: Vec<ObjectResult>,
    /// The objects kf did not send a deletion for: left-alone (not this app's), gone
    /// (already), unserved (kind not served) or failed (could not be read).
    pub not_deleted: Vec<ObjectResult>,
    /// Deleted objects still there when the wait ran out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub still_there: Vec<String>,
    #[serde(skip)]
    timeout: std::time::Duration,
}

impl DeleteReport {
    fn count(&self, result: Verdict) -> usize {
        self.deleted.iter().filter(|d| d.result == result).count()
            + self
                .not_deleted
                .iter()
                .filter(|d| d.result == result)
                .count()
    }

    /// `3 objects deleted, 1 failed`.
    pub fn summary(&self) -> String {
        let failed = self.count(Verdict::Failed);
        format!(
            "{} {}{}",
            crate::message::counted(self.count(Verdict::Deleted), "object"),
            if self.dry_run == DryRun::None {
                "deleted"
            } else {
                "would be deleted"
            },
            if failed > 0 {
                format!(", {failed} failed")
            } else {
                String::new()
            }
        )
    }

    /// Why the command fails: a deletion that failed, nothing deleted because nothing was
    /// this app's, objects still there after the wait.
    pub fn failure(&self) -> Option<String> {
        let failed = self.count(Verdict::Failed);
        if failed > 0 {
            return Some(format!(
                "{failed} objects of environment '{}' could not be deleted; see the errors above",
                self.environment
            ));
        }
        let left_alone = self.count(Verdict::LeftAlone);
        // Every object found was another's: the delete did nothing the user asked for.
        let already_gone = self
            .not_deleted
            .iter()
            .filter(|d| matches!(d.result, Verdict::Gone | Verdict::BeingDeleted))
            .count();
        if self.count(Verdict::Deleted) == 0 && already_gone == 0 && left_alone > 0 {
            return Some(format!(
                "nothing was deleted: {left_alone} objects of environment '{}' are not this app's to delete (see the lines above); delete them with the tool that made them",
                self.environment
            ));
        }
        if !self.still_there.is_empty() {
            return Some(format!(
                "{} still being deleted after --timeout {}: {}",
                match self.still_there.len() {
                    1 => "1 object is".to_string(),
                    n => format!("{n} objects are"),
                },
                humantime(self.timeout),
                self.still_there.join(", ")
            ));
        }
        None
    }
}

/// Delete the target's objects from its cluster.
pub async fn delete_env(
    target: &Target,
    options: &DeleteOptions,
    reporter: &mut dyn Reporter,
) -> anyhow::Result<DeleteReport> {
    let env = &target.env;
    let owner = &target.owner;
    let dry_run = options.dry_run;
    let cluster = super::connect(env, &options.connection, reporter).await?;
    let resources = Resources::discover(&cluster).await?;
    let mut report = DeleteReport {
        environment: env.name.clone(),
        dry_run,
        deleted: Vec::new(),
        not_deleted: Vec::new(),
        still_there: Vec::new(),
        timeout: options.connection.timeout,
    };
    let mut doomed: Vec<Found> = Vec::new();
    // Objects the server is deleting already: waited for with --wait, not deleted again.
    let mut pending: Vec<Found> = Vec::new();
    for item in &target.items {
        let Some(res) = resources.resolve(&item.api_version, &item.kind) else {
            let id = format!("{}/{}", item.kind.to_ascii_lowercase(), item.name);
            let why = format!(
                "the cluster does not serve {} {}",
                item.api_version, item.kind
            );
            reporter.event(Event::Unserved {
                id: id.clone(),
                why: why.clone(),
            });
            report.not_deleted.push(ObjectResult {
                object: ObjectName {
                    name: id,
                    namespace: None,
                },
                result: Verdict::Unserved,
                message: Some(why),
            });
            continue;
        };
        let namespace = item.namespace_for(&res, &env.namespace);
        let found = Found {
            resource: res,
            namespace,
            name: item.name.clone(),
            uid: None,
        };
        let object = ObjectName {
            name: format!("{}/{}", found.resource.kind_name(), found.name),
            namespace: found.namespace.clone(),
        };
        // Never delete what kf did not apply for this app and environment: the same
        // check as prune's.
        let path = found
            .resource
            .path(found.namespace.as_deref(), Some(&found.name));
        let (result, message) = match cluster.get(&path).await {
            Ok(live) => match owner.deletable(&live.body) {
                // A second delete while the first is finishing (kf deletes in the
                // foreground, a finalizer may hold the object): nothing to send again.
                Ok(uid) if prune::being_deleted(&live.body) => {
                    reporter.event(Event::BeingDeleted { id: found.id() });
                    pending.push(Found {
                        uid: Some(uid),
                        ..found
                    });
                    (Verdict::BeingDeleted, None)
                }
                Ok(uid) => {
                    doomed.push(Found {
                        uid: Some(uid),
                        ..found
                    });
                    continue;
                }
                Err(why) => {
                    let why = why.to_string();
                    reporter.event(Event::LeftAlone {
                        id: found.id(),
                        why: why.clone(),
                    });
                    (Verdict::LeftAlone, Some(why))
                }
            },
            Err(Failure::Status(r)) if r.status == http::StatusCode::NOT_FOUND => {
                reporter.event(Event::AlreadyGone { id: found.id() });
                (Verdict::Gone, None)
            }
            Err(e) => {
                reporter.error(&format!("{} failed: {e}", found.id()));
                (Verdict::Failed, Some(e.to_string()))
            }
        };
        report.not_deleted.push(ObjectResult {
            object,
            result,
            message,
        });
    }
    if !doomed.is_empty() {
        reporter.phase(Phase::Deleting {
            count: doomed.len(),
        });
    }
    let done = remove(&cluster, doomed.clone(), options, reporter).await;
    let failed = done.iter().any(|d| d.result.is_err())
        || report
            .not_deleted
            .iter()
            .any(|d| d.result == Verdict::Failed);
    report.deleted.extend(
        done.iter()
            .map(|d| ObjectResult::removed(d, Verdict::Deleted)),
    );
    // The ApplySet's parent goes last, once its members are gone (only kf's own). With
    // -c, the set lives on.
    if !failed
        && target.whole_env()
        && let Some(parent) = parent(&cluster, &resources, target).await
    {
        let gone = remove(&cluster, vec![parent], options, reporter).await;
        report.deleted.extend(
            gone.iter()
                .map(|d| ObjectResult::removed(d, Verdict::Deleted)),
        );
    }
    if options.wait && dry_run == DryRun::None {
        let gone: Vec<Found> = doomed
            .into_iter()
            .zip(&done)
            .filter(|(_, d)| d.result == Ok(true))
            .map(|(f, _)| f)
            .chain(pending)
            .collect();
        if !gone.is_empty() {
            reporter.phase(Phase::WaitingForDeletion { count: gone.len() });
        }
        report.still_there =
            prune::wait_gone(&cluster, &gone, cluster.remaining().unwrap_or_default()).await;
    }
    Ok(report)
}

async fn remove(
    cluster: &crate::cluster::client::Cluster,
    objects: Vec<Found>,
    options: &DeleteOptions,
    reporter: &mut dyn Reporter,
) -> Vec<Deleted> {
    let dry_run = options.dry_run;
    prune::delete(
        cluster,
        objects,
        dry_run,
        options.cascade,
        options.concurrency,
        &mut |d| {
            reporter.event(Event::Removed {
                deleted: d,
                verb: "deleted",
                dry_run,
            })
        },
    )
    .await
}

/// The env's ApplySet parent, if it is there and kf's.
async fn parent(
    cluster: &crate::cluster::client::Cluster,
    resources: &Resources,
    target: &Target,
) -> Option<Found> {
    let set = ApplySet::of(&target.owner, &target.env.namespace);
    let res = resources.resolve("v1", "Secret")?;
    let path = res.path(Some(&set.namespace), Some(&set.name));
    let live = cluster.get(&path).await.ok()?;
    (live.body["metadata"]["labels"][applyset::ID] == set.id().as_str()
        && target.owner.applied(&live.body))
    .then(|| Found {
        resource: res,
        namespace: Some(set.namespace.clone()),
        name: set.name.clone(),
        uid: live.body["metadata"]["uid"].as_str().map(str::to_string),
    })
}
