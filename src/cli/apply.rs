use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;

use kf::cluster::apply::{self, Action, ApplyOptions, DryRun};
use kf::cluster::client::{Cluster, RetryPolicy};
use kf::cluster::prune;
use kf::cluster::resources::Resources;
use kf::cluster::select::{ConnectOptions, connect};

use super::Context_;
use super::show::RenderArgs;

/// How to reach the cluster (shared by the cluster commands).
#[derive(Args, Clone)]
pub struct ClusterArgs {
    /// Kubeconfig file (default: KUBECONFIG, else ~/.kube/config).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<std::path::PathBuf>,
    /// Kubeconfig context to use; it must point at the environment's server.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
}

impl ClusterArgs {
    pub fn connect_options(&self, ctx: &Context_) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.as_ref().map(|p| ctx.cwd.join(p)),
            context: self.context.clone(),
        }
    }
}

/// Apply an environment to its cluster with server-side apply (field manager `kf`).
///
/// kf picks the kubeconfig context whose cluster is the environment's server (with that
/// context's own credentials) and refuses to act on any other cluster. Objects are applied
/// in tiers — namespaces, CRDs (waiting until they are Established), RBAC and config,
/// the rest, workloads, webhooks — each tier in parallel. Every object gets the labels
/// app.kubernetes.io/managed-by=kf, kf.dev/app and kf.dev/environment.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf apply --env prod\n  kf apply prod -c mnist-train --dry-run=server\n  kf apply --env prod --force-conflicts --concurrency 16"
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
    /// Take over fields another field manager owns (server-side apply conflicts).
    #[arg(long)]
    force_conflicts: bool,
    /// Delete objects of this app and environment (by kf's labels) that the render no
    /// longer has. Never objects a controller owns or marked kf.dev/prune=never.
    #[arg(long)]
    prune: bool,
    /// After applying, wait until every object is Ready (rolled out, complete, Succeeded…).
    #[arg(long)]
    wait: bool,
    /// Objects applied at once within a tier.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    /// How long to wait for CRDs to be Established, and with --wait for readiness: 30s, 5m…
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    timeout: Duration,
}

/// `90`, `30s`, `5m`, `1h`, `1m30s`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || format!("'{s}' is not a duration; use e.g. 30s, 5m or 1h");
    if s.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let mut total = 0u64;
    let mut number = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let n: u64 = number.parse().map_err(|_| bad())?;
        number.clear();
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            _ => return Err(bad()),
        };
        total = n
            .checked_mul(unit)
            .and_then(|x| total.checked_add(x))
            .ok_or_else(bad)?;
    }
    if !number.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// `--dry-run`'s value (clap has already limited it to none|client|server).
pub fn dry_run_mode(value: &str) -> DryRun {
    match value {
        "server" => DryRun::Server,
        "client" => DryRun::Client,
        _ => DryRun::None,
    }
}

pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

pub fn run(ctx: &Context_, a: ApplyArgs) -> Result<()> {
    // Render first: the Jsonnet engine is thread-local and must not meet the runtime.
    let rendered = a.render.render(ctx)?;
    let env = rendered.app.environment(&rendered.env)?;
    let items = kf::cluster::prepare(&rendered.objects, &rendered.app.spec.name, &env);
    let options = ApplyOptions {
        dry_run: dry_run_mode(&a.dry_run),
        force_conflicts: a.force_conflicts,
        concurrency: a.concurrency,
        timeout: a.timeout,
    };
    let connect_options = a.cluster.connect_options(ctx);
    let app_name = rendered.app.spec.name.clone();
    let (outcomes, pruned, wait_error) = runtime()?.block_on(async {
        let (client, _context) = connect(&env, &connect_options).await?;
        let cluster = Cluster::new(client, RetryPolicy::default());
        let resources = Resources::discover(cluster.kube()).await?;
        // What prune would delete is shown before anything changes.
        let doomed = if a.prune {
            let keep = items
                .iter()
                .filter_map(|i| {
                    let res = resources.resolve(&i.api_version, &i.kind)?;
                    let ns = i.namespace_for(&res, &env.namespace).unwrap_or_default();
                    Some((
                        String::new(), // matched without the group, as prune::Found::identity
                        res.api.kind.clone(),
                        ns,
                        i.name.clone(),
                    ))
                })
                .collect();
            let doomed =
                prune::candidates(&cluster, &resources, &app_name, &env.name, &keep).await?;
            let doomed: Vec<prune::Found> = doomed;
            for f in &doomed {
                println!("{} will be pruned: no longer in the render", f.id());
            }
            doomed
        } else {
            Vec::new()
        };
        let watch_items = items.clone();
        let outcomes = apply::apply(
            &cluster,
            resources,
            items,
            &env.namespace,
            &options,
            &mut |o| println!("{}", o.line(options.dry_run)),
        )
        .await?;
        let failed = outcomes.iter().any(|o| o.result.is_err());
        let pruned = if failed && !doomed.is_empty() {
            println!("prune skipped: some objects failed to apply");
            Vec::new()
        } else {
            let pruned =
                prune::delete(&cluster, doomed, options.dry_run, options.concurrency).await;
            for d in &pruned {
                println!("{}", d.line("pruned", options.dry_run));
            }
            pruned
        };
        if a.wait && options.dry_run == DryRun::None && !outcomes.iter().any(|o| o.result.is_err())
        {
            let resources = Resources::discover(cluster.kube()).await?;
            let objects = super::status::watched(&watch_items, &resources, &env.namespace);
            if let Err(e) = super::status::report(&cluster, &objects, Some(options.timeout)).await {
                return Ok((outcomes, pruned, Some(e)));
            }
        }
        Ok::<_, anyhow::Error>((outcomes, pruned, None))
    })?;
    let (outcomes, pruned, wait_error) = (outcomes, pruned, wait_error);
    let count = |f: &dyn Fn(&Result<Action, String>) -> bool| {
        outcomes.iter().filter(|o| f(&o.result)).count()
    };
    let created = count(&|r| matches!(r, Ok(Action::Created)));
    let configured = count(&|r| matches!(r, Ok(Action::Configured)));
    let unchanged = count(&|r| matches!(r, Ok(Action::Unchanged)));
    let skipped = count(&|r| matches!(r, Ok(Action::Skipped(_))));
    let failed = count(&|r| r.is_err());
    let prune_failed = pruned.iter().filter(|d| d.result.is_err()).count();
    let pruned_ok = pruned.len() - prune_failed;
    let part = |n: usize, what: &str| {
        if n > 0 {
            format!(", {n} {what}")
        } else {
            String::new()
        }
    };
    println!(
        "{} objects: {created} created, {configured} configured, {unchanged} unchanged{}{}{}",
        outcomes.len(),
        part(skipped, "skipped"),
        part(failed, "failed"),
        part(pruned_ok, "pruned"),
    );
    if failed > 0 || prune_failed > 0 {
        for o in outcomes.iter().filter(|o| o.result.is_err()) {
            eprintln!("error: {}", o.line(options.dry_run));
        }
        for d in pruned.iter().filter(|d| d.result.is_err()) {
            eprintln!("error: {}", d.line("pruned", options.dry_run));
        }
        bail!(
            "{} of {} objects failed to apply or prune in environment '{}'",
            failed + prune_failed,
            outcomes.len() + pruned.len(),
            env.name
        );
    }
    if let Some(e) = wait_error {
        return Err(e);
    }
    Ok(())
}
