//! `kf status` (and `kf apply --wait`): how ready the env's objects are, waiting first if
//! asked.

use std::time::Duration;

use serde::Serialize;

use super::{Connection, Target};
use crate::cluster::client::{Cluster, humantime};
use crate::cluster::events::{Event, Phase, Reporter};
use crate::cluster::item::Item;
use crate::cluster::resources::Resources;
use crate::cluster::status::{self as readiness, State, Watched};

/// How `--wait` waits.
#[derive(Debug, Clone, Copy)]
pub struct Wait {
    pub timeout: Duration,
    /// Wait for Jobs and training jobs to finish; without it, a running job is enough.
    pub for_jobs: bool,
}

/// One object's readiness, as the table and `-o` show it.
#[derive(Debug, Clone, Serialize)]
pub struct ObjectStatus {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    pub status: &'static str,
    pub detail: String,
}

/// What `kf status` found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub objects: Vec<ObjectStatus>,
    #[serde(skip)]
    failed_or_missing: usize,
    #[serde(skip)]
    not_ready: usize,
    #[serde(skip)]
    watched: usize,
    #[serde(skip)]
    wait: Option<(Wait, bool)>,
}

impl StatusReport {
    /// Why the command fails: an object Failed, Missing or Terminating, or (waiting) not Ready in time.
    pub fn failure(&self) -> Option<String> {
        if self.failed_or_missing > 0 {
            return Some(format!(
                "{} of {} objects are Failed, Missing or Terminating",
                self.failed_or_missing,
                self.objects.len()
            ));
        }
        match self.wait {
            Some((w, in_time)) if !in_time || self.not_ready > 0 => Some(format!(
                "{} of {} objects are not Ready after {}; see the table above, or wait longer with --timeout",
                self.not_ready,
                self.watched,
                humantime(w.timeout)
            )),
            _ => None,
        }
    }
}

/// Whether `--wait` is done with an object in `state` (and what it waits for).
fn waited_for(w: &Watched, state: State, for_jobs: bool) -> bool {
    state.settled()
        || (!for_jobs && readiness::is_job(&w.resource.api.kind) && state == State::InProgress)
}

/// The objects to watch: those the cluster serves, placed in their namespace.
pub fn watched(items: &[Item], resources: &Resources, env_namespace: &str) -> Vec<Watched> {
    items
        .iter()
        .filter_map(|i| {
            let res = resources.resolve(&i.api_version, &i.kind)?;
            let namespace = i.namespace_for(&res, env_namespace);
            Some(Watched {
                resource: res,
                namespace,
                name: i.name.clone(),
            })
        })
        .collect()
}

/// The rendered objects whose kind the cluster does not serve (a CRD not installed),
/// each of them Missing.
pub fn unserved(items: &[Item], resources: &Resources, env_namespace: &str) -> Vec<ObjectStatus> {
    items
        .iter()
        .filter(|i| resources.resolve(&i.api_version, &i.kind).is_none())
        .map(|i| ObjectStatus {
            name: format!("{}/{}", i.kind.to_ascii_lowercase(), i.name),
            namespace: i
                .object
                .get("metadata")
                .and_then(|m| m["namespace"].as_str())
                .unwrap_or(env_namespace)
                .to_string(),
            status: State::Missing.as_str(),
            detail: format!(
                "the cluster does not serve {} {} (is its CRD installed?)",
                i.api_version, i.kind
            ),
        })
        .collect()
}

/// Readiness of `objects` (waiting first if asked), with `unserved` listed as Missing.
pub async fn check(
    cluster: &Cluster,
    objects: &[Watched],
    unserved: &[ObjectStatus],
    selector: Option<&str>,
    wait: Option<Wait>,
    reporter: &mut dyn Reporter,
) -> StatusReport {
    let for_jobs = wait.is_some_and(|w| w.for_jobs);
    let done = |w: &Watched, s: State| waited_for(w, s, for_jobs);
    let (states, in_time) = match wait {
        None => (readiness::check_all(cluster, objects, selector).await, true),
        Some(Wait { timeout, .. }) => {
            // The timeout bounds the whole command: what is left of it.
            let timeout = cluster
                .remaining()
                .map_or(timeout, |left| left.min(timeout));
            let mut last: Vec<State> = Vec::new();
            readiness::wait(
                cluster,
                objects,
                selector,
                timeout,
                Duration::from_secs(2),
                &done,
                &mut |states| {
                    let ready = states.iter().filter(|(s, _)| *s == State::Ready).count();
                    let pending = objects
                        .iter()
                        .zip(states)
                        .find(|(_, (s, _))| !s.settled())
                        .map(|(w, (_, d))| format!("{} ({d})", w.id()));
                    reporter.phase(Phase::WaitingForReady {
                        ready,
                        total: objects.len(),
                        pending,
                    });
                    for (i, (w, (s, d))) in objects.iter().zip(states).enumerate() {
                        if last.get(i) != Some(s) {
                            reporter.event(Event::StateChanged {
                                id: w.id(),
                                state: *s,
                                detail: d,
                            });
                        }
                    }
                    last = states.iter().map(|(s, _)| *s).collect();
                },
            )
            .await
        }
    };
    let not_ready = objects
        .iter()
        .zip(&states)
        .filter(|(w, (s, _))| *s != State::Ready && !(wait.is_some() && done(w, *s)))
        .count();
    let failed_or_missing = states
        .iter()
        .filter(|(s, _)| matches!(s, State::Failed | State::Missing | State::Terminating))
        .count()
        + unserved.len();
    let mut rows: Vec<ObjectStatus> = objects
        .iter()
        .zip(&states)
        .map(|(w, (s, d))| ObjectStatus {
            name: w.id(),
            namespace: w.namespace.clone().unwrap_or_default(),
            status: s.as_str(),
            detail: d.clone(),
        })
        .collect();
    rows.extend(unserved.iter().cloned());
    StatusReport {
        objects: rows,
        failed_or_missing,
        not_ready,
        watched: states.len(),
        wait: wait.map(|w| (w, in_time)),
    }
}

/// `kf status`: connect, discover, check (or wait).
pub async fn status_env(
    target: &Target,
    connection: &Connection,
    wait: Option<Wait>,
    reporter: &mut dyn Reporter,
) -> anyhow::Result<StatusReport> {
    let cluster = super::connect(&target.env, connection, reporter).await?;
    let resources = Resources::discover(&cluster).await?;
    let objects = watched(&target.items, &resources, &target.env.namespace);
    let missing = unserved(&target.items, &resources, &target.env.namespace);
    let selector = crate::cluster::labels::selector(&target.owner.app, &target.owner.env);
    Ok(check(
        &cluster,
        &objects,
        &missing,
        Some(&selector),
        wait,
        reporter,
    )
    .await)
}
