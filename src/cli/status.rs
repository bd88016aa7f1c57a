use anyhow::{Result, bail};
use clap::Args;

use kf::workflow::status::{StatusReport, Wait, status_env};

use super::Context_;
use super::cluster_args::{ClusterArgs, runtime};
use super::report::{OutputArgs, Printer};
use super::show::RenderArgs;
use super::{stdout, table};

/// Show how ready an environment's objects are on its cluster.
///
/// Deployments and StatefulSets are Ready when rolled out (no old replicas left), Jobs when
/// complete, Kubeflow training jobs (TFJob, PyTorchJob, MPIJob, TrainJob…) when Succeeded,
/// InferenceServices when Ready; other objects when they exist; an object being deleted is
/// Terminating. Exits 1 when an object is Failed, Missing or Terminating (with --wait: when any is not Ready within --timeout; a job that is
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
    #[command(flatten)]
    output: OutputArgs,
}

/// The readiness table.
pub fn print_table(report: &StatusReport) {
    let rows: Vec<Vec<String>> = report
        .objects
        .iter()
        .map(|o| {
            vec![
                o.name.clone(),
                o.namespace.clone(),
                o.status.to_string(),
                o.detail.clone(),
            ]
        })
        .collect();
    stdout::print(&table::render(
        &["NAME", "NAMESPACE", "STATUS", "DETAIL"],
        &rows,
    ));
}

pub fn run(ctx: &Context_, a: StatusArgs) -> Result<()> {
    let rendered = a.render.render(ctx)?;
    let target = a.cluster.target(&rendered, &a.render.jsonnet)?;
    let wait = a.wait.then_some(Wait {
        timeout: a.cluster.timeout,
        for_jobs: a.wait_for_jobs,
    });
    let mut printer = Printer::new(a.output.output());
    let connection = a.cluster.connection(ctx);
    let report = runtime()?.block_on(status_env(&target, &connection, wait, &mut printer))?;
    printer.done();
    if printer.text() {
        print_table(&report);
    }
    let names: Vec<String> = report.objects.iter().map(|o| o.name.clone()).collect();
    printer.document(&report, &names);
    match report.failure() {
        Some(e) => bail!(e),
        None => Ok(()),
    }
}
