//! The cluster verbs as workflows, as cargo's `ops/` are to its commands: each takes one
//! environment's rendered objects ([`Target`]), an options struct and a
//! [`Reporter`](crate::cluster::events::Reporter), and returns a report. The command line
//! keeps the flags, a reporter that prints, and the choice of `-o`; every decision about
//! the cluster (what to prune, when a set is complete, what counts as a failure) is made
//! here.

pub mod api_spec;
pub mod apply;
pub mod argocd;
pub mod charts;
pub mod component;
pub mod delete;
pub mod diff;
pub mod export;
pub mod params;
pub mod status;
pub mod validate;

use std::time::{Duration, Instant};

use crate::app::{AppSpec, Environment};
use crate::cluster::ClusterError;
use crate::cluster::client::{Cluster, RetryPolicy};
use crate::cluster::events::{Phase, Reporter};
use crate::cluster::item::Item;
use crate::cluster::outcome::{Action, DryRun, Outcome};
use crate::cluster::ownership::Owner;
use crate::cluster::prune::Deleted;
use crate::cluster::select::{ConnectOptions, connect as select};
use crate::render::RenderedObject;

/// One environment's rendered objects, labelled as kf's, and whose they are.
#[derive(Debug, Clone)]
pub struct Target {
    pub env: Environment,
    pub owner: Owner,
    pub items: Vec<Item>,
    /// The components named with `-c` (none: the whole environment).
    pub selected: Vec<String>,
    /// Each rendered object's component.
    pub components: Vec<String>,
}

impl Target {
    /// `field_manager`: `--field-manager`, else kf's `kf-<app>-<env>`.
    pub fn new(
        app: &AppSpec,
        env: Environment,
        objects: &[RenderedObject],
        selected: &[String],
        field_manager: Option<&str>,
    ) -> Target {
        let owner = Owner::new(&app.name, app.id.as_deref(), &env.name, field_manager);
        let items = crate::cluster::prepare(objects, &owner, &env);
        Target {
            env,
            owner,
            items,
            selected: selected.to_vec(),
            components: objects.iter().map(|o| o.component.clone()).collect(),
        }
    }

    /// The whole environment, not a `-c` selection.
    pub fn whole_env(&self) -> bool {
        self.selected.is_empty()
    }

    /// With `-c`, the components whose objects prune may consider: those named, and the
    /// components the render produced (a nested component's label spells it as rendered).
    pub fn prune_components(&self) -> Option<std::collections::BTreeSet<String>> {
        (!self.selected.is_empty()).then(|| {
            self.selected
                .iter()
                .chain(&self.components)
                .cloned()
                .collect()
        })
    }
}

/// How to reach an environment's cluster.
#[derive(Debug, Clone)]
pub struct Connection {
    /// Its `request_timeout` is also the retry policy's.
    pub connect: ConnectOptions,
    /// The whole command's time limit, retries and waits included.
    pub timeout: Duration,
}

/// Connect to the env's cluster (every request from here on counts against the timeout)
/// and read its version, warning when the env is for a Kubernetes too far from it.
pub async fn connect(
    env: &Environment,
    connection: &Connection,
    reporter: &mut dyn Reporter,
) -> Result<Cluster, ClusterError> {
    let started = Instant::now();
    reporter.phase(Phase::Discovering);
    let defaults = RetryPolicy::default();
    let policy = RetryPolicy {
        request_timeout: connection
            .connect
            .request_timeout
            .unwrap_or(defaults.request_timeout),
        ..defaults
    };
    let (client, endpoint) = select(env, &connection.connect).await?;
    let cluster = Cluster::new(client, policy)
        .with_endpoint(endpoint)
        .with_timeout(connection.timeout, started);
    let version = cluster
        .server_version()
        .await
        .map_err(|source| ClusterError::Unreachable {
            env: env.name.clone(),
            context: cluster.endpoint().context.clone(),
            source,
        })?;
    if let Some((server, git)) = &version
        && let Some(w) = crate::cluster::version::skew(&env.name, &env.k8s_version, *server, git)
    {
        reporter.warning(&w);
    }
    Ok(cluster.with_version(version.map(|(v, _)| v)))
}

/// How long apply waits for new CRDs: up to a minute, never more than half of the
/// timeout, so a CRD that never becomes Established leaves time for everything else.
pub fn crd_wait(timeout: Duration) -> Duration {
    (timeout / 2).min(Duration::from_secs(60))
}

/// How long apply waits for an object being deleted to go before creating it anew: the
/// garbage collector takes seconds, a finalizer's controller may take minutes; at most
/// five, and half the timeout, so the tiers after it keep time to be applied.
pub fn terminating_wait(timeout: Duration) -> Duration {
    (timeout / 2).min(Duration::from_secs(300))
}

/// `deployment.apps/web` and its namespace, as every report names an object.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ObjectName {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// What became of one object, as `-o json|yaml` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Created,
    Configured,
    Unchanged,
    /// Not sent (its CRD is not on the cluster in a dry run).
    Skipped,
    Failed,
    Pruned,
    Deleted,
    /// Already gone, or replaced by another object of the name.
    Gone,
    /// Already being deleted (a deletionTimestamp: a finalizer or the garbage collector
    /// has yet to finish); not deleted again.
    BeingDeleted,
    /// Not this app's and env's to delete.
    LeftAlone,
    /// Its kind is not served by the cluster.
    Unserved,
}

/// One object, what became of it, and why when that needs saying.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ObjectResult {
    #[serde(flatten)]
    pub object: ObjectName,
    pub result: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ObjectResult {
    /// An apply's outcome.
    pub fn applied(o: &Outcome) -> ObjectResult {
        let (result, message) = match &o.result {
            Ok(Action::Created) => (Verdict::Created, None),
            Ok(Action::Configured) => (Verdict::Configured, None),
            Ok(Action::Unchanged) => (Verdict::Unchanged, None),
            Ok(Action::Skipped(why)) => (Verdict::Skipped, Some(why.clone())),
            Err(e) => (Verdict::Failed, Some(e.clone())),
        };
        ObjectResult {
            object: ObjectName {
                name: o.id.clone(),
                namespace: o.namespace.clone(),
            },
            result,
            message,
        }
    }

    /// A deletion's outcome; `done` is what one that happened is called (pruned, deleted).
    pub fn removed(d: &Deleted, done: Verdict) -> ObjectResult {
        let (result, message) = match &d.result {
            Ok(true) => (done, None),
            Ok(false) => (Verdict::Gone, None),
            Err(e) => (Verdict::Failed, Some(e.clone())),
        };
        ObjectResult {
            object: ObjectName {
                name: d.name.clone(),
                namespace: d.namespace.clone(),
            },
            result,
            message,
        }
    }
}

/// `--dry-run` in a report: `none`, `client` or `server`.
fn serialize_dry_run<S: serde::Serializer>(d: &DryRun, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(d.as_str())
}
