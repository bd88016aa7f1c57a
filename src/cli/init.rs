use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use kf::app::create::{EnvOptions, init_app};

use super::Context_;

/// Create a new app folder with one environment (works offline, needs no cluster).
#[derive(Args)]
#[command(
    after_help = "Example:\n  kf init my-app --env dev --namespace ml --server https://10.0.0.1:6443"
)]
pub struct InitArgs {
    /// Folder to create; its name is the app's name.
    app: PathBuf,
    /// Name of the first environment.
    #[arg(long, default_value = "default")]
    env: String,
    /// Namespace of the first environment.
    #[arg(long)]
    namespace: Option<String>,
    /// API server URL of the first environment.
    #[arg(long)]
    server: Option<String>,
    /// Kubernetes API version: `version:v1.x.y` or `file:swagger.json`.
    #[arg(long, value_name = "SPEC")]
    api_spec: Option<String>,
    /// Accepted for ksonnet compatibility; kf's built-in registry needs no app.yaml entry.
    #[arg(long)]
    skip_default_registries: bool,
}

pub fn run(ctx: &Context_, a: InitArgs) -> Result<()> {
    let target = if a.app.is_absolute() {
        a.app.clone()
    } else {
        ctx.cwd.join(&a.app)
    };
    init_app(
        &target,
        &EnvOptions {
            name: a.env.clone(),
            server: a.server,
            namespace: a.namespace,
            api_spec: super::env::api_spec(a.api_spec.as_deref(), || {
                anyhow::bail!(
                    "kf init has no cluster to ask yet: make the app with --api-spec version:<v>, then `kf env set {} --api-spec server`",
                    a.env
                )
            })?,
            is_override: false,
        },
    )?;
    println!(
        "Created app '{}' with environment '{}' in {}",
        a.app.display(),
        a.env,
        target.display()
    );
    Ok(())
}
