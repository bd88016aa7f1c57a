use anyhow::{Result, bail};
use clap::Args;

use kf::cluster::apply::tier;
use kf::cluster::client::{Cluster, Failure, RetryPolicy};
use kf::cluster::labels;
use kf::cluster::prune::{self, Found};
use kf::cluster::resources::Resources;
use kf::cluster::select::connect;

use super::Context_;
use super::apply::{ClusterArgs, dry_run_mode, runtime};
use super::show::RenderArgs;

/// Delete an environment's objects from its cluster, in reverse apply order.
///
/// Only objects kf applied for this app and environment (by their kf labels) are deleted;
/// anything else with the same name is left alone and reported. Deletion uses foreground
/// propagation; an object already gone is fine.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf delete --env dev\n  kf delete prod -c mnist-train --dry-run=server"
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
}

pub fn run(ctx: &Context_, a: DeleteArgs) -> Result<()> {
    let rendered = a.render.render(ctx)?;
    let env = rendered.app.environment(&rendered.env)?;
    let app_name = rendered.app.spec.name.clone();
    let items = kf::cluster::prepare(&rendered.objects, &app_name, &env);
    let dry_run = dry_run_mode(&a.dry_run);
    let connect_options = a.cluster.connect_options(ctx);
    let mut failed = 0;
    let mut deleted = 0;
    runtime()?.block_on(async {
        let (client, _context) = connect(&env, &connect_options).await?;
        let cluster = Cluster::new(client, RetryPolicy::default());
        let resources = Resources::discover(cluster.kube()).await?;
        let mut tiers: Vec<Vec<Found>> = vec![Vec::new(); 6];
        for item in items.iter().rev() {
            let Some(res) = resources.resolve(&item.api_version, &item.kind) else {
                println!(
                    "{}/{} skipped: the cluster does not serve {} {}",
                    item.kind.to_ascii_lowercase(),
                    item.name,
                    item.api_version,
                    item.kind
                );
                continue;
            };
            let namespace = item.namespace_for(&res, &env.namespace);
            let found = Found {
                resource: res,
                namespace,
                name: item.name.clone(),
                uid: None,
            };
            // Never delete what kf did not apply for this app and environment.
            let path = found.resource.path(found.namespace.as_deref(), Some(&found.name));
            match cluster.get(&path).await {
                Ok(live) => {
                    let l = &live.body["metadata"]["labels"];
                    let ours = l[labels::MANAGED_BY] == "kf"
                        && l[labels::APP] == labels::label_value(&app_name).as_str()
                        && l[labels::ENVIRONMENT] == labels::label_value(&env.name).as_str();
                    if !ours {
                        println!(
                            "{} left alone: not applied by kf for app '{app_name}', environment '{}'",
                            found.id(),
                            env.name
                        );
                        continue;
                    }
                    let uid = live.body["metadata"]["uid"].as_str().map(str::to_string);
                    tiers[tier(&item.api_version, &item.kind) as usize].push(Found { uid, ..found });
                }
                Err(Failure::Status(r)) if r.status == http::StatusCode::NOT_FOUND => {
                    println!("{} already gone", found.id());
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("error: {} failed: {e}", found.id());
                }
            }
        }
        for objects in tiers.into_iter().rev() {
            for d in prune::delete(&cluster, objects, dry_run, a.concurrency).await {
                println!("{}", d.line("deleted", dry_run));
                match d.result {
                    Ok(true) => deleted += 1,
                    Ok(false) => {}
                    Err(_) => failed += 1,
                }
            }
        }
        Ok::<_, kf::cluster::ClusterError>(())
    })?;
    println!(
        "{deleted} objects deleted{}",
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        }
    );
    if failed > 0 {
        bail!(
            "{failed} objects of environment '{}' could not be deleted",
            env.name
        );
    }
    Ok(())
}
