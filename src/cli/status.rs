use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use kf::cluster::apply::Item;
use kf::cluster::client::{Cluster, humantime};
use kf::cluster::resources::Resources;
use kf::cluster::status::{self, State, Watched};

use super::Context_;
use super::cluster_args::{ClusterArgs, runtime};
use super::show::RenderArgs;
use super::{stdout, table};

/// Show how ready an environment's objects are on its cluster.
///
/// Deployments and StatefulSets are Ready when rolled out (no old replicas left), Jobs when
/// complete, Kubeflow training jobs (TFJob, PyTorchJob, MPIJob, TrainJob…) when Succeeded,
/// InferenceServices when Ready; other objects when they exist. Exits 1 when an object is
/// Failed or Missing (with --wait: when any is not Ready within --timeout; a job that is
/// still running only counts with --wait-for-jobs).
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf status --env prod\n  kf status prod -c mnist-train --wait --timeout 30m"
)]
pub struct StatusArgs {
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Wait (up to --timeout) until every object is Ready (or Failed), showing progress.
    #[arg(long)]
    wait: bool,
    /// With --wait, also wait until Jobs and training jobs finish.
    #[arg(long)]
    wait_for_jobs: bool,
}

/// How `--wait` waits.
#[derive(Debug, Clone, Copy)]
pub struct Wait {
    pub timeout: Duration,
    /// Wait for Jobs and training jobs to finish; without it, a running job is enough.
    pub for_jobs: bool,
}

/// Whether `--wait` is done with an object in `state` (and what it waits for).
fn waited_for(w: &Watched, state: State, for_jobs: bool) -> bool {
    state.settled()
        || (!for_jobs && status::is_job(&w.resource.api.kind) && state == State::InProgress)
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

/// The rendered objects whose kind the cluster does not serve (a CRD not installed):
/// `(kind/name, namespace, why)`, each of them Missing.
pub fn unserved(items: &[Item], resources: &Resources, env_namespace: &str) -> Vec<[String; 3]> {
    items
        .iter()
        .filter(|i| resources.resolve(&i.api_version, &i.kind).is_none())
        .map(|i| {
            [
                format!("{}/{}", i.kind.to_ascii_lowercase(), i.name),
                i.object
                    .get("metadata")
                    .and_then(|m| m["namespace"].as_str())
                    .unwrap_or(env_namespace)
                    .to_string(),
                format!(
                    "the cluster does not serve {} {} (is its CRD installed?)",
                    i.api_version, i.kind
                ),
            ]
        })
        .collect()
}

/// Print readiness (waiting first if asked); an error when not everything is as it should be.
/// `unserved` objects (see [`unserved`]) are listed as Missing.
pub async fn report(
    cluster: &Cluster,
    objects: &[Watched],
    unserved: &[[String; 3]],
    wait: Option<Wait>,
) -> Result<()> {
    let for_jobs = wait.is_some_and(|w| w.for_jobs);
    let done = |w: &Watched, s: State| waited_for(w, s, for_jobs);
    let (states, in_time) = match wait {
        None => (status::check_all(cluster, objects).await, true),
        Some(Wait { timeout, .. }) => {
            // --timeout bounds the whole command: what is left of it.
            let timeout = cluster
                .remaining()
                .map_or(timeout, |left| left.min(timeout));
            let terminal = std::io::stderr().is_terminal();
            let bar = terminal.then(|| {
                let b = indicatif::ProgressBar::new_spinner();
                b.enable_steady_tick(Duration::from_millis(120));
                b
            });
            let mut last: Vec<State> = Vec::new();
            let result = status::wait(
                cluster,
                objects,
                timeout,
                Duration::from_secs(2),
                &done,
                &mut |states| {
                    let ready = states.iter().filter(|(s, _)| *s == State::Ready).count();
                    match &bar {
                        Some(b) => {
                            let pending = objects
                                .iter()
                                .zip(states)
                                .find(|(_, (s, _))| !s.settled())
                                .map(|(w, (_, d))| format!("; waiting for {} ({d})", w.id()))
                                .unwrap_or_default();
                            b.set_message(format!("{ready}/{} ready{pending}", objects.len()));
                        }
                        None => {
                            for (i, (w, (s, d))) in objects.iter().zip(states).enumerate() {
                                if last.get(i) != Some(s) {
                                    eprintln!("{}: {} ({d})", w.id(), s.as_str());
                                }
                            }
                        }
                    }
                    last = states.iter().map(|(s, _)| *s).collect();
                },
            )
            .await;
            if let Some(b) = bar {
                b.finish_and_clear();
            }
            result
        }
    };
    let mut rows: Vec<Vec<String>> = objects
        .iter()
        .zip(&states)
        .map(|(w, (s, d))| {
            vec![
                w.id(),
                w.namespace.clone().unwrap_or_default(),
                s.as_str().to_string(),
                d.clone(),
            ]
        })
        .collect();
    rows.extend(unserved.iter().map(|[id, ns, why]| {
        vec![
            id.clone(),
            ns.clone(),
            State::Missing.as_str().to_string(),
            why.clone(),
        ]
    }));
    stdout::print(&table::render(
        &["NAME", "NAMESPACE", "STATUS", "DETAIL"],
        &rows,
    ));
    let bad = states
        .iter()
        .filter(|(s, _)| matches!(s, State::Failed | State::Missing))
        .count()
        + unserved.len();
    let total = states.len() + unserved.len();
    let not_ready = objects
        .iter()
        .zip(&states)
        .filter(|(w, (s, _))| *s != State::Ready && !(wait.is_some() && done(w, *s)))
        .count();
    if bad > 0 {
        bail!("{bad} of {total} objects are Failed or Missing");
    }
    if let Some(w) = wait
        && (!in_time || not_ready > 0)
    {
        bail!(
            "{not_ready} of {} objects are not Ready after {}; see the table above, or wait longer with --timeout",
            states.len(),
            humantime(w.timeout)
        );
    }
    Ok(())
}

pub fn run(ctx: &Context_, a: StatusArgs) -> Result<()> {
    let namespace = a.render.jsonnet.namespace().map(str::to_string);
    let rendered = a.render.render(ctx)?;
    let env = a.cluster.environment(
        rendered.app.environment(&rendered.env)?,
        namespace.as_deref(),
    );
    let owner = a.cluster.owner(&rendered.app.spec, &env);
    let items = kf::cluster::prepare(&rendered.objects, &owner, &env);
    runtime()?.block_on(async {
        let cluster = a.cluster.connect(ctx, &env).await?;
        let resources = Resources::discover(&cluster).await?;
        let objects = watched(&items, &resources, &env.namespace);
        let missing = unserved(&items, &resources, &env.namespace);
        let wait = a.wait.then_some(Wait {
            timeout: a.cluster.timeout,
            for_jobs: a.wait_for_jobs,
        });
        report(&cluster, &objects, &missing, wait).await
    })
}
