use anyhow::{Result, bail};
use clap::Args;

use kf::cluster::field_check::FieldValidation;
use kf::workflow::apply::{ApplyOptions, apply_env};

use super::Context_;
use super::cluster_args::{ClusterArgs, dry_run_mode, runtime};
use super::report::{OutputArgs, Printer, applied_line, removed_line};
use super::show::RenderArgs;
use super::stdout;

/// Apply an environment to its cluster with server-side apply (field manager
/// `kf-<app>-<env>`).
///
/// kf picks the kubeconfig context whose cluster is the environment's server (with that
/// context's own credentials) and refuses to act on any other cluster. Objects are applied
/// in tiers — namespaces, CRDs (waiting until they are Established), RBAC and config,
/// the rest, workloads, webhooks — each tier in parallel. Every object gets the labels
/// app.kubernetes.io/managed-by=kf, kf.dev/app and kf.dev/environment; an object another
/// kf app or environment labelled is refused unless --force-conflicts.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf apply --env prod\n  kf apply prod -c mnist-train --dry-run=server\n  kf apply --env prod --prune --timeout 10m\n  kf apply --env prod --force-conflicts --concurrency 16"
)]
pub struct ApplyArgs {
    #[command(flatten)]
    render: RenderArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// none: apply; server: the server checks everything and persists nothing; client: only
    /// read the live objects and say what would change.
    #[arg(long, value_name = "MODE", default_value = "none", num_args = 0..=1,
          default_missing_value = "client", value_parser = ["none", "client", "server"])]
    dry_run: String,
    /// Take over fields another field manager owns (server-side apply conflicts), and
    /// objects another kf app or environment labelled.
    #[arg(long)]
    force_conflicts: bool,
    /// Delete objects this app and environment applied (kf's labels and field manager)
    /// that the render no longer has; with -c, only objects of those components. Never
    /// objects a controller owns or marked kf.dev/prune=never.
    #[arg(long)]
    prune: bool,
    /// With --prune, what becomes of what pruned objects own, as `kf delete --cascade`.
    #[arg(long, value_name = "MODE", default_value = "auto",
          value_parser = ["auto", "background", "foreground", "orphan"])]
    cascade: String,
    /// After applying, wait until every object is Ready (rolled out, bound, …) and every
    /// pruned object is gone. Jobs only need to exist: see --wait-for-jobs.
    #[arg(long)]
    wait: bool,
    /// With --wait, also wait until Jobs and training jobs (TFJob, PyTorchJob, …) finish.
    #[arg(long)]
    wait_for_jobs: bool,
    /// Objects applied at once within a tier.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    /// Create the environment's namespace if it does not exist (as Helm's flag does; it is
    /// not labelled as kf's, so neither prune nor kf delete removes it).
    #[arg(long)]
    create_namespace: bool,
    /// strict: an object with an unknown or mistyped field is refused (the server checks
    /// from 1.25; before, kf checks custom resources against their CRD's schema);
    /// warn: say so and apply; ignore: check nothing.
    #[arg(long, value_name = "MODE", default_value = "strict", value_parser = ["strict", "warn", "ignore"])]
    validate: String,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(ctx: &Context_, a: ApplyArgs) -> Result<()> {
    // Render first: the Jsonnet engine is thread-local and must not meet the runtime.
    let rendered = a.render.render(ctx)?;
    let target = a.cluster.target(&rendered, &a.render.jsonnet)?;
    super::cluster_args::warn_without_app_id(&rendered.app.spec);
    let options = ApplyOptions {
        dry_run: dry_run_mode(&a.dry_run),
        force_conflicts: a.force_conflicts,
        prune: a.prune,
        wait: a.wait,
        wait_for_jobs: a.wait_for_jobs,
        concurrency: a.concurrency,
        cascade: super::cluster_args::cascade_mode(&a.cascade),
        create_namespace: a.create_namespace,
        validate: match a.validate.as_str() {
            "warn" => FieldValidation::Warn,
            "ignore" => FieldValidation::Ignore,
            _ => FieldValidation::Strict,
        },
        connection: a.cluster.connection(ctx),
    };
    let mut printer = Printer::new(a.output.output());
    let report = runtime()?.block_on(apply_env(target, &options, &mut printer))?;
    printer.done();
    if printer.text() {
        if let Some(status) = &report.status {
            super::status::print_table(status);
        }
        stdout::line(report.summary());
    }
    printer.document(&report, &report.applied_names());
    if let Some(e) = report.failure() {
        // What failed, once the summary is out.
        let failed_applies = report
            .outcomes
            .iter()
            .filter(|o| o.result.is_err())
            .map(|o| applied_line(o, report.dry_run));
        let failed_prunes = report
            .deletions
            .iter()
            .filter(|d| d.result.is_err())
            .map(|d| removed_line(d, "pruned", report.dry_run));
        for line in failed_applies.chain(failed_prunes) {
            eprintln!("error: {line}");
        }
        bail!(e);
    }
    Ok(())
}
