use anyhow::{Result, bail};
use clap::Args;

use kf::cluster::apply::DryRun;
use kf::cluster::client::{Failure, humantime};
use kf::cluster::prune::{self, Found};
use kf::cluster::resources::Resources;

use super::Context_;
use super::cluster_args::{ClusterArgs, dry_run_mode, runtime};
use super::show::RenderArgs;
use super::stdout;

/// Delete an environment's objects from its cluster, in reverse apply order.
///
/// Only objects kf applied for this app and environment are deleted: they must carry kf's
/// labels for both and an apply by kf's field manager (`kf-<app>-<env>`, or --field-manager)
/// in their managedFields; anything else with the same name is left alone and reported.
/// Each deletion is conditional on the UID kf read (an object recreated meanwhile is
/// left), uses foreground propagation, and goes in reverse apply order (custom resources
/// before CRDs, workloads before namespaces). An object already gone is fine.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf delete --env dev\n  kf delete prod -c mnist-train --dry-run=server\n  kf delete --env dev --wait"
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
    /// Wait (up to --timeout) until the deleted objects are gone.
    #[arg(long)]
    wait: bool,
}

pub fn run(ctx: &Context_, a: DeleteArgs) -> Result<()> {
    // With -c, the set lives on: its parent is deleted only with the whole environment.
    let whole_env = a.render.jsonnet.components().is_empty();
    let namespace = a.render.jsonnet.namespace().map(str::to_string);
    let rendered = a.render.render(ctx)?;
    let env = a.cluster.environment(
        rendered.app.environment(&rendered.env)?,
        namespace.as_deref(),
    );
    let owner = a.cluster.owner(&rendered.app.spec, &env);
    super::cluster_args::warn_without_app_id(&rendered.app.spec);
    let items = kf::cluster::prepare(&rendered.objects, &owner, &env);
    let dry_run = dry_run_mode(&a.dry_run);
    let mut failed = 0;
    let mut deleted = 0;
    let mut left_alone = 0;
    let mut already_gone = 0;
    let mut still_there = Vec::new();
    runtime()?.block_on(async {
        let cluster = a.cluster.connect(ctx, &env).await?;
        let resources = Resources::discover(&cluster).await?;
        let mut doomed: Vec<Found> = Vec::new();
        for item in &items {
            let Some(res) = resources.resolve(&item.api_version, &item.kind) else {
                stdout::line(format!(
                    "{}/{} skipped: the cluster does not serve {} {}",
                    item.kind.to_ascii_lowercase(),
                    item.name,
                    item.api_version,
                    item.kind
                ));
                continue;
            };
            let namespace = item.namespace_for(&res, &env.namespace);
            let found = Found {
                resource: res,
                namespace,
                name: item.name.clone(),
                uid: None,
            };
            // Never delete what kf did not apply for this app and environment: the same
            // check as prune's.
            let path = found
                .resource
                .path(found.namespace.as_deref(), Some(&found.name));
            match cluster.get(&path).await {
                Ok(live) => match owner.deletable(&live.body) {
                    Ok(uid) => doomed.push(Found {
                        uid: Some(uid),
                        ..found
                    }),
                    Err(why) => {
                        left_alone += 1;
                        stdout::line(format!("{} left alone: {why}", found.id()));
                    }
                },
                Err(Failure::Status(r)) if r.status == http::StatusCode::NOT_FOUND => {
                    already_gone += 1;
                    stdout::line(format!("{} already gone", found.id()));
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("error: {} failed: {e}", found.id());
                }
            }
        }
        let done = prune::delete(&cluster, doomed.clone(), dry_run, a.concurrency, &mut |d| {
            stdout::line(d.line("deleted", dry_run))
        })
        .await;
        for d in &done {
            match d.result {
                Ok(true) => deleted += 1,
                Ok(false) => {}
                Err(_) => failed += 1,
            }
        }
        // The ApplySet's parent goes last, once its members are gone (only kf's own).
        let set = kf::cluster::applyset::ApplySet::of(&owner, &env.namespace);
        if failed == 0
            && whole_env
            && let Some(res) = resources.resolve("v1", "Secret")
        {
            let path = res.path(Some(&set.namespace), Some(&set.name));
            if let Ok(live) = cluster.get(&path).await
                && live.body["metadata"]["labels"][kf::cluster::applyset::ID] == set.id().as_str()
                && owner.applied(&live.body)
            {
                let parent = Found {
                    resource: res,
                    namespace: Some(set.namespace.clone()),
                    name: set.name.clone(),
                    uid: live.body["metadata"]["uid"].as_str().map(str::to_string),
                };
                for d in prune::delete(&cluster, vec![parent], dry_run, 1, &mut |d| {
                    stdout::line(d.line("deleted", dry_run))
                })
                .await
                {
                    match d.result {
                        Ok(true) => deleted += 1,
                        Ok(false) => {}
                        Err(_) => failed += 1,
                    }
                }
            }
        }
        if a.wait && dry_run == DryRun::None {
            let gone: Vec<Found> = doomed
                .into_iter()
                .zip(&done)
                .filter(|(_, d)| d.result == Ok(true))
                .map(|(f, _)| f)
                .collect();
            still_there =
                prune::wait_gone(&cluster, &gone, cluster.remaining().unwrap_or_default()).await;
        }
        Ok::<_, anyhow::Error>(())
    })?;
    stdout::line(format!(
        "{deleted} objects {}{}",
        if dry_run == DryRun::None {
            "deleted"
        } else {
            "would be deleted"
        },
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        }
    ));
    if failed > 0 {
        bail!(
            "{failed} objects of environment '{}' could not be deleted; see the errors above",
            env.name
        );
    }
    // Every object found was another's: the delete did nothing the user asked for.
    if deleted == 0 && already_gone == 0 && left_alone > 0 {
        bail!(
            "nothing was deleted: {left_alone} objects of environment '{}' are not this app's to delete (see the lines above); delete them with the tool that made them",
            env.name
        );
    }
    if !still_there.is_empty() {
        bail!(
            "{} objects are still being deleted after --timeout {}: {}",
            still_there.len(),
            humantime(a.cluster.timeout),
            still_there.join(", ")
        );
    }
    Ok(())
}
