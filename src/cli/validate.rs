use anyhow::{Result, bail};
use clap::Args;

use kf::validate::{Finding, Validator};

use super::Context_;
use super::show::RenderArgs;

/// Check rendered objects offline: built-in kinds against Kubernetes' types, custom
/// resources against their CRDs (the built-in registry's and any CRD the app renders).
///
/// Unknown or mistyped fields are errors (the API server would drop or reject them); a
/// kind with no known schema is a warning. Exits 1 when any object has an error.
#[derive(Args)]
#[command(after_help = "Examples:\n  kf validate prod\n  kf validate --env prod -c mnist-train")]
pub struct ValidateArgs {
    #[command(flatten)]
    render: RenderArgs,
    /// Also have the environment's cluster check every object with a server-side dry-run
    /// apply (admission, defaulting and its own schemas); nothing is changed.
    #[arg(long)]
    server: bool,
    #[command(flatten)]
    cluster: super::cluster_args::ClusterArgs,
}

pub fn run(ctx: &Context_, a: ValidateArgs) -> Result<()> {
    let namespace = a.render.jsonnet.namespace().map(str::to_string);
    let rendered = a.render.render(ctx)?;
    let k8s_version = rendered.app.environment(&rendered.env)?.k8s_version.clone();
    let mut validator = Validator::with_builtin_crds().for_k8s_version(&k8s_version);
    for o in &rendered.objects {
        validator.add_crds(&serde_json::Value::Object(o.object.clone()));
    }
    let mut errors = 0;
    let mut unchecked = 0;
    for o in &rendered.objects {
        let name = kf::validate::object_name(&o.object);
        let kind = o.object.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        match validator.validate(&o.object) {
            None => {}
            Some(Finding::Error(e)) => {
                errors += 1;
                eprintln!("error: {kind}/{name} (component {}): {e}", o.component);
            }
            Some(Finding::Unchecked(w)) => {
                unchecked += 1;
                eprintln!("warning: {kind}/{name} (component {}): {w}", o.component);
            }
        }
    }
    // kf exits after this: freeing the compiled CRD schemas one node at a time costs
    // about a third of what compiling them did, for memory the exit returns anyway.
    std::mem::forget(validator);
    let total = rendered.objects.len();
    let mut server_skipped = 0;
    if a.server {
        let (rejected, skipped) = server_check(ctx, &a.cluster, &rendered, namespace.as_deref())?;
        errors += rejected;
        server_skipped = skipped;
    }
    if errors > 0 {
        bail!(
            "{errors} of {total} objects in environment '{}' are invalid",
            rendered.env
        );
    }
    super::stdout::line(format!(
        "{} objects in environment '{}' are valid{}{}",
        total - unchecked - server_skipped.min(total - unchecked),
        rendered.env,
        if unchecked > 0 {
            format!(" ({unchecked} not checked: no schema)")
        } else {
            String::new()
        },
        if server_skipped > 0 {
            format!(
                "; {server_skipped} skipped by the server check (their CRD is in this render and not on the cluster yet)"
            )
        } else {
            String::new()
        }
    ));
    Ok(())
}

/// Server-side dry run of every object; returns how many the server rejected, and how
/// many it could not check (custom resources whose CRD is in the render, not on the
/// cluster): those are reported as skipped, never as valid.
fn server_check(
    ctx: &Context_,
    cluster_args: &super::cluster_args::ClusterArgs,
    rendered: &super::show::Rendered,
    namespace: Option<&str>,
) -> Result<(usize, usize)> {
    use kf::cluster::apply::{self, Action, ApplyOptions, DryRun};
    use kf::cluster::resources::Resources;

    let env = cluster_args.environment(rendered.app.environment(&rendered.env)?, namespace);
    let owner = cluster_args.owner(&rendered.app.spec, &env);
    let items = kf::cluster::prepare(&rendered.objects, &owner, &env);
    let options = ApplyOptions {
        dry_run: DryRun::Server,
        force_conflicts: true,
        concurrency: 8,
        crd_wait: super::apply::crd_wait(cluster_args.timeout),
        owner,
        // Checking objects, not recording a set.
        applyset: None,
        fields: Default::default(),
    };
    let outcomes = super::cluster_args::runtime()?.block_on(async {
        let cluster = cluster_args.connect(ctx, &env).await?;
        let resources = Resources::discover(&cluster).await?;
        apply::apply(
            &cluster,
            resources,
            items,
            &env.namespace,
            &options,
            &mut |_| {},
        )
        .await
        .map_err(anyhow::Error::from)
    })?;
    let mut rejected = 0;
    let mut skipped = 0;
    for o in &outcomes {
        match &o.result {
            Err(e) => {
                rejected += 1;
                eprintln!("error: {} (server dry run): {e}", o.id);
            }
            Ok(Action::Skipped(why)) => {
                skipped += 1;
                eprintln!("skipped: {} (server dry run): {why}", o.id);
            }
            Ok(_) => {}
        }
    }
    Ok((rejected, skipped))
}
