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
    cluster: super::apply::ClusterArgs,
}

pub fn run(ctx: &Context_, a: ValidateArgs) -> Result<()> {
    let rendered = a.render.render(ctx)?;
    let mut validator = Validator::with_builtin_crds();
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
    let total = rendered.objects.len();
    if a.server {
        errors += server_check(ctx, &a.cluster, &rendered)?;
    }
    if errors > 0 {
        bail!(
            "{errors} of {total} objects in environment '{}' are invalid",
            rendered.env
        );
    }
    println!(
        "{} objects in environment '{}' are valid{}",
        total - unchecked,
        rendered.env,
        if unchecked > 0 {
            format!(" ({unchecked} not checked: no schema)")
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Server-side dry run of every object; returns how many the server rejected.
fn server_check(
    ctx: &Context_,
    cluster: &super::apply::ClusterArgs,
    rendered: &super::show::Rendered,
) -> Result<usize> {
    use kf::cluster::apply::{self, ApplyOptions, DryRun};
    use kf::cluster::client::{Cluster, RetryPolicy};
    use kf::cluster::resources::Resources;

    let env = rendered.app.environment(&rendered.env)?;
    let items = kf::cluster::prepare(&rendered.objects, &rendered.app.spec.name, &env);
    let options = ApplyOptions {
        dry_run: DryRun::Server,
        force_conflicts: true,
        concurrency: 8,
        timeout: std::time::Duration::from_secs(60),
    };
    let connect_options = cluster.connect_options(ctx);
    let outcomes = super::apply::runtime()?.block_on(async {
        let (client, _) = kf::cluster::select::connect(&env, &connect_options).await?;
        let cluster = Cluster::new(client, RetryPolicy::default());
        let resources = Resources::discover(cluster.kube()).await?;
        apply::apply(
            &cluster,
            resources,
            items,
            &env.namespace,
            &options,
            &mut |_| {},
        )
        .await
    })?;
    let mut rejected = 0;
    for o in &outcomes {
        if let Err(e) = &o.result {
            rejected += 1;
            eprintln!("error: {} (server dry run): {e}", o.id);
        }
    }
    Ok(rejected)
}
