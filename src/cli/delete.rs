use anyhow::{Result, bail};
use clap::Args;

use kf::workflow::delete::{DeleteOptions, delete_env};

use super::Context_;
use super::cluster_args::{ClusterArgs, dry_run_mode, runtime};
use super::report::{OutputArgs, Printer};
use super::show::RenderArgs;
use super::stdout;

/// Delete an environment's objects from its cluster, in reverse apply order.
///
/// Only objects kf applied for this app and environment are deleted: they must carry kf's
/// labels for both and an apply by kf's field manager (`kf-<app>-<env>`, or --field-manager)
/// in their managedFields; anything else with the same name is left alone and reported.
/// Each deletion is conditional on the UID kf read (an object recreated meanwhile is
/// left), propagates as --cascade says, and goes in reverse apply order (custom resources
/// before CRDs, workloads before namespaces). An object already gone is fine.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf delete --env dev\n  kf delete prod -c mnist-train --dry-run=server\n  kf delete --env dev --wait\n  kf delete --env dev --cascade=orphan"
)]
pub struct DeleteArgs {
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// none: delete; server: the server checks and deletes nothing; client: only say what
    /// would be deleted.
    #[arg(long, value_name = "MODE", default_value = "none", num_args = 0..=1,
          default_missing_value = "client", value_parser = ["none", "client", "server"])]
    dry_run: String,
    /// Objects deleted at once within a tier.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    /// What becomes of what the objects own (their pods, …), as kubectl names it: auto
    /// deletes workloads in the foreground (their pods go first) and the rest in the
    /// background (at once; the garbage collector removes dependents after);
    /// background, foreground or orphan (dependents are left) for every object.
    #[arg(long, value_name = "MODE", default_value = "auto",
          value_parser = ["auto", "background", "foreground", "orphan"])]
    cascade: String,
    /// Wait (up to --timeout) until the deleted objects are gone.
    #[arg(long)]
    wait: bool,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(ctx: &Context_, a: DeleteArgs) -> Result<()> {
    let rendered = a.render.render(ctx)?;
    let target = a.cluster.target(&rendered, &a.render.jsonnet)?;
    super::cluster_args::warn_without_app_id(&rendered.app.spec);
    let options = DeleteOptions {
        dry_run: dry_run_mode(&a.dry_run),
        concurrency: a.concurrency,
        cascade: super::cluster_args::cascade_mode(&a.cascade),
        wait: a.wait,
        connection: a.cluster.connection(ctx),
    };
    let mut printer = Printer::new(a.output.output());
    let report = runtime()?.block_on(delete_env(&target, &options, &mut printer))?;
    printer.done();
    if printer.text() {
        stdout::line(report.summary());
    }
    let names: Vec<String> = report
        .deleted
        .iter()
        .filter(|d| d.result == kf::workflow::Verdict::Deleted)
        .map(|d| d.object.name.clone())
        .collect();
    printer.document(&report, &names);
    match report.failure() {
        Some(e) => bail!(e),
        None => Ok(()),
    }
}
