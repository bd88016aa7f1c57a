use std::io::IsTerminal;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use kf::cluster::apply::Item;
use kf::cluster::client::{Cluster, RetryPolicy};
use kf::cluster::resources::Resources;
use kf::cluster::select::connect;
use kf::cluster::status::{self, State, Watched};

use super::Context_;
use super::apply::{ClusterArgs, parse_duration, runtime};
use super::show::RenderArgs;
use super::table;

/// Show how ready an environment's objects are on its cluster.
///
/// Deployments and StatefulSets are Ready when rolled out, Jobs when complete, Kubeflow
/// training jobs (TFJob, PyTorchJob, MPIJob, …) when Succeeded, InferenceServices when
/// Ready; other objects when they exist. Exits 1 when an object is Failed or Missing (with
/// --wait: when any is not Ready in time).
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf status --env prod\n  kf status prod -c mnist-train --wait --timeout 30m"
)]
pub struct StatusArgs {
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Wait until every object is Ready (or Failed), showing progress.
    #[arg(long)]
    wait: bool,
    /// How long --wait waits, e.g. 90s, 5m, 1h.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    timeout: Duration,
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

/// Print readiness (waiting first if asked); an error when not everything is as it should be.
pub async fn report(cluster: &Cluster, objects: &[Watched], wait: Option<Duration>) -> Result<()> {
    let (states, in_time) = match wait {
        None => (status::check_all(cluster, objects).await, true),
        Some(timeout) => {
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
    let rows: Vec<Vec<String>> = objects
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
    print!(
        "{}",
        table::render(&["NAME", "NAMESPACE", "STATUS", "DETAIL"], &rows)
    );
    let bad = states
        .iter()
        .filter(|(s, _)| matches!(s, State::Failed | State::Missing))
        .count();
    let not_ready = states.iter().filter(|(s, _)| *s != State::Ready).count();
    if bad > 0 {
        bail!("{bad} of {} objects are Failed or Missing", states.len());
    }
    if let Some(t) = wait
        && (!in_time || not_ready > 0)
    {
        bail!(
            "{not_ready} of {} objects are not Ready after {t:?}",
            states.len()
        );
    }
    Ok(())
}

pub fn run(ctx: &Context_, a: StatusArgs) -> Result<()> {
    let rendered = a.render.render(ctx)?;
    let env = rendered.app.environment(&rendered.env)?;
    let items = kf::cluster::prepare(&rendered.objects, &rendered.app.spec.name, &env);
    let connect_options = a.cluster.connect_options(ctx);
    runtime()?.block_on(async {
        let (client, _) = connect(&env, &connect_options).await?;
        let cluster = Cluster::new(client, RetryPolicy::default());
        let resources = Resources::discover(cluster.kube()).await?;
        let objects = watched(&items, &resources, &env.namespace);
        report(&cluster, &objects, a.wait.then_some(a.timeout)).await
    })
}
