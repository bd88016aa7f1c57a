use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::{Result, bail};
use clap::Args;

use kf::cluster::apply::{self, Action, ApplyOptions, DryRun};
use kf::cluster::client::humantime;
use kf::cluster::prune;
use kf::cluster::resources::Resources;

use super::Context_;
use super::cluster_args::{ClusterArgs, dry_run_mode, runtime};
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
}

/// How long apply waits for new CRDs: up to a minute, never more than half of --timeout,
/// so a CRD that never becomes Established leaves time for everything else.
pub fn crd_wait(timeout: Duration) -> Duration {
    (timeout / 2).min(Duration::from_secs(60))
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

/// `3 objects: 1 created, 1 configured, 1 unchanged, 2 pruned`: what happened, counted.
fn summary(outcomes: &[apply::Outcome], pruned: &[prune::Deleted], dry_run: DryRun) -> String {
    let count = |f: &dyn Fn(&Result<Action, String>) -> bool| {
        outcomes.iter().filter(|o| f(&o.result)).count()
    };
    let created = count(&|r| matches!(r, Ok(Action::Created)));
    let configured = count(&|r| matches!(r, Ok(Action::Configured)));
    let unchanged = count(&|r| matches!(r, Ok(Action::Unchanged)));
    let skipped = count(&|r| matches!(r, Ok(Action::Skipped(_))));
    let failed = count(&|r| r.is_err());
    // Only deletions that happened: an object already gone or replaced is not counted.
    let pruned_ok = pruned.iter().filter(|d| d.result == Ok(true)).count();
    let part = |n: usize, what: &str| {
        if n > 0 {
            format!(", {n} {what}")
        } else {
            String::new()
        }
    };
    let pruned_word = if dry_run == DryRun::None {
        "pruned"
    } else {
        "would be pruned"
    };
    format!(
        "{} objects: {created} created, {configured} configured, {unchanged} unchanged{}{}{}",
        outcomes.len(),
        part(skipped, "skipped"),
        part(failed, "failed"),
        part(pruned_ok, pruned_word),
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
    let owner = a.cluster.owner(&rendered.app.spec, &env);
    super::cluster_args::warn_without_app_id(&rendered.app.spec);
    let items = kf::cluster::prepare(&rendered.objects, &owner, &env);
    let options = ApplyOptions {
        dry_run: dry_run_mode(&a.dry_run),
        force_conflicts: a.force_conflicts,
        concurrency: a.concurrency,
        crd_wait: crd_wait(a.cluster.timeout),
        owner: owner.clone(),
        applyset: Some(kf::cluster::applyset::ApplySet::of(&owner, &env.namespace)),
        fields: Default::default(),
    };
    let scope_components = prune_components(&selected, &rendered.objects);
    let mut prune_error = None;
    let mut prune_unchecked = false;
    let (outcomes, pruned, wait_error) = runtime()?.block_on(async {
        let cluster = a.cluster.connect(ctx, &env).await?;
        let resources = Resources::discover(&cluster).await?;
        let renders_namespace = items
            .iter()
            .any(|i| i.kind == "Namespace" && i.api_version == "v1" && i.name == env.namespace);
        let ns = kf::cluster::namespace::ensure(
            &cluster,
            &env.namespace,
            renders_namespace,
            a.create_namespace,
            options.dry_run,
        )
        .await?;
        let mode = match a.validate.as_str() {
            "warn" => kf::cluster::field_check::FieldValidation::Warn,
            "ignore" => kf::cluster::field_check::FieldValidation::Ignore,
            _ => kf::cluster::field_check::FieldValidation::Strict,
        };
        let options = ApplyOptions {
            fields: kf::cluster::field_check::plan(
                &cluster,
                &resources,
                &items,
                mode,
                cluster.version(),
            )
            .await,
            ..options.clone()
        };
        if ns == kf::cluster::namespace::Namespace::Created {
            stdout::line(format!(
                "namespace/{} created{}",
                env.namespace,
                options.dry_run.suffix()
            ));
        }
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
                namespace: env.namespace.clone(),
            };
            // A prune that cannot see everything deletes nothing, but the apply still goes.
            let doomed = match prune::candidates(&cluster, &resources, &owner, &scope).await {
                Ok(c) => {
                    if let Some(w) = c.warning(&env.namespace) {
                        eprintln!("warning: {w}");
                        prune_unchecked = true;
                    }
                    c.found
                }
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
        let members = apply::SetMembers::of(&items, &env.namespace);
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
        // Every candidate gone after a full render's apply: the ApplySet lists only what
        // the set still holds. With -c, the other components' kinds stay listed.
        let complete = a.prune
            && selected.is_empty()
            && prune_error.is_none()
            && !prune_unchecked
            && !failed
            && pruned.iter().all(|d| d.result.is_ok());
        if complete
            && options.dry_run == DryRun::None
            && let Err(e) = apply::narrow_parent(&cluster, &members, &options).await
        {
            eprintln!("warning: ApplySet parent not updated after prune: {e}");
        }
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
            if let Err(e) = super::status::report(&cluster, &objects, &[], Some(wait)).await {
                return Ok((outcomes, pruned, Some(e)));
            }
        }
        Ok::<_, anyhow::Error>((outcomes, pruned, None))
    })?;
    stdout::line(summary(&outcomes, &pruned, options.dry_run));
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    let prune_failed = pruned.iter().filter(|d| d.result.is_err()).count();
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
