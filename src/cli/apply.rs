use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;

use kf::app::Environment;
use kf::cluster::apply::{self, Action, ApplyOptions, DryRun};
use kf::cluster::client::{Cluster, RetryPolicy, humantime};
use kf::cluster::ownership::Owner;
use kf::cluster::prune;
use kf::cluster::resources::Resources;
use kf::cluster::select::{ConnectOptions, connect};

use super::Context_;
use super::show::RenderArgs;
use super::stdout;

/// How to reach the cluster, and kubectl's flags for it (shared by the cluster commands).
#[derive(Args, Clone)]
pub struct ClusterArgs {
    /// Kubeconfig file (default: KUBECONFIG, else ~/.kube/config; in a pod without either,
    /// the pod's service account).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<std::path::PathBuf>,
    /// Kubeconfig context to use; it must point at the environment's server.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Server-side apply field manager (default: kf-<app>-<env>). Prune and delete only
    /// remove objects this manager applied.
    #[arg(long, value_name = "NAME")]
    field_manager: Option<String>,
    /// The whole command's time limit, retries and waits included: 30s, 5m, 1h…
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: Duration,
    /// The longest one request waits for its reply before it is retried.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    request_timeout: Duration,
}

impl ClusterArgs {
    pub fn connect_options(&self, ctx: &Context_) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.as_ref().map(|p| ctx.cwd.join(p)),
            context: self.context.clone(),
            request_timeout: Some(self.request_timeout),
        }
    }

    /// The environment as the flags have it (`-n`, a render flag, replaces its namespace).
    pub fn environment(&self, mut env: Environment, namespace: Option<&str>) -> Environment {
        if let Some(ns) = namespace {
            env.namespace = ns.to_string();
        }
        env
    }

    pub fn owner(&self, app: &str, env: &Environment) -> Owner {
        Owner::new(app, &env.name, self.field_manager.as_deref())
    }

    /// Connect to the env's cluster; every request from here on counts against --timeout.
    pub async fn connect(&self, ctx: &Context_, env: &Environment) -> Result<Cluster> {
        let started = std::time::Instant::now();
        let policy = RetryPolicy {
            request_timeout: self.request_timeout,
            ..RetryPolicy::default()
        };
        let (client, _context) = connect(env, &self.connect_options(ctx)).await?;
        Ok(Cluster::new(client, policy).with_timeout(self.timeout, started))
    }
}

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
}

/// How long apply waits for new CRDs: up to a minute, never more than half of --timeout,
/// so a CRD that never becomes Established leaves time for everything else.
pub fn crd_wait(timeout: Duration) -> Duration {
    (timeout / 2).min(Duration::from_secs(60))
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

/// With `-c`, the components whose objects prune may consider: those named, and the
/// components the render produced (a nested component's label spells it as rendered).
fn prune_components(
    selected: &[String],
    rendered: &[kf::render::RenderedObject],
) -> Option<BTreeSet<String>> {
    if selected.is_empty() {
        return None;
    }
    Some(
        selected
            .iter()
            .cloned()
            .chain(rendered.iter().map(|o| o.component.clone()))
            .collect(),
    )
}

pub fn run(ctx: &Context_, a: ApplyArgs) -> Result<()> {
    let selected = a.render.jsonnet.components().to_vec();
    let namespace = a.render.jsonnet.namespace().map(str::to_string);
    // Render first: the Jsonnet engine is thread-local and must not meet the runtime.
    let rendered = a.render.render(ctx)?;
    let env = a.cluster.environment(
        rendered.app.environment(&rendered.env)?,
        namespace.as_deref(),
    );
    let app_name = rendered.app.spec.name.clone();
    let owner = a.cluster.owner(&app_name, &env);
    let items = kf::cluster::prepare(&rendered.objects, &app_name, &env);
    let options = ApplyOptions {
        dry_run: dry_run_mode(&a.dry_run),
        force_conflicts: a.force_conflicts,
        concurrency: a.concurrency,
        crd_wait: crd_wait(a.cluster.timeout),
        owner: owner.clone(),
        applyset: Some(kf::cluster::applyset::ApplySet::for_env(
            &app_name,
            &env.name,
            &env.namespace,
        )),
    };
    let scope_components = prune_components(&selected, &rendered.objects);
    let mut prune_error = None;
    let (outcomes, pruned, wait_error) = runtime()?.block_on(async {
        let cluster = a.cluster.connect(ctx, &env).await?;
        let resources = Resources::discover(&cluster).await?;
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
            let scope = prune::Scope {
                keep,
                components: scope_components.clone(),
            };
            // A prune that cannot see everything deletes nothing, but the apply still goes.
            let doomed = match prune::candidates(&cluster, &resources, &owner, &scope).await {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("error: {e}");
                    prune_error = Some(e);
                    Vec::new()
                }
            };
            for f in &doomed {
                stdout::line(format!(
                    "{} will be pruned: no longer in the render",
                    f.id()
                ));
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
            &mut |o| stdout::line(o.line(options.dry_run)),
        )
        .await?;
        let failed = outcomes.iter().any(|o| o.result.is_err());
        let pruned = if failed && !doomed.is_empty() {
            stdout::line("prune skipped: some objects failed to apply");
            Vec::new()
        } else {
            prune::delete(
                &cluster,
                doomed.clone(),
                options.dry_run,
                options.concurrency,
                &mut |d| stdout::line(d.line("pruned", options.dry_run)),
            )
            .await
        };
        if a.wait && options.dry_run == DryRun::None && !failed {
            let gone: Vec<prune::Found> = doomed
                .into_iter()
                .zip(&pruned)
                .filter(|(_, d)| d.result == Ok(true))
                .map(|(f, _)| f)
                .collect();
            let left =
                prune::wait_gone(&cluster, &gone, cluster.remaining().unwrap_or_default()).await;
            if !left.is_empty() {
                let e = anyhow::anyhow!(
                    "{} pruned objects are still being deleted after --timeout {}: {}",
                    left.len(),
                    humantime(a.cluster.timeout),
                    left.join(", ")
                );
                return Ok((outcomes, pruned, Some(e)));
            }
            let resources = Resources::discover(&cluster).await?;
            let objects = super::status::watched(&watch_items, &resources, &env.namespace);
            let wait = super::status::Wait {
                timeout: a.cluster.timeout,
                for_jobs: a.wait_for_jobs,
            };
            if let Err(e) = super::status::report(&cluster, &objects, Some(wait)).await {
                return Ok((outcomes, pruned, Some(e)));
            }
        }
        Ok::<_, anyhow::Error>((outcomes, pruned, None))
    })?;
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
    stdout::line(format!(
        "{} objects: {created} created, {configured} configured, {unchanged} unchanged{}{}{}",
        outcomes.len(),
        part(skipped, "skipped"),
        part(failed, "failed"),
        part(
            pruned_ok,
            if options.dry_run == DryRun::None {
                "pruned"
            } else {
                "would be pruned"
            }
        ),
    ));
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
    if let Some(e) = prune_error {
        bail!("prune of environment '{}' did not run: {e}", env.name);
    }
    if let Some(e) = wait_error {
        return Err(e);
    }
    Ok(())
}
