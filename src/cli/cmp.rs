use anyhow::{Result, bail};
use clap::Subcommand;

use kf::render::output;
use kf::workflow::argocd::{self, ENV_VAR, PARAMETERS_VAR};

use super::Context_;

/// Argo CD's config-management plugin (argocd/plugin.yaml, docs/gitops.md).
#[derive(Subcommand)]
pub enum CmpCommand {
    /// Print `app.yaml` when the current folder is a ksonnet or kf app (the plugin's
    /// discover: Argo CD uses kf for a source whose output is not empty).
    Discover,
    /// Render the app as Argo CD asks: the env from the `env` parameter or
    /// ARGOCD_ENV_KF_ENV (else the current one), each `params` entry
    /// `component.param: value` set in that env first; the manifests on stdout.
    #[command(after_help = "Example (what Argo CD's repo server runs):\n  \
ARGOCD_ENV_KF_ENV=prod ARGOCD_APP_PARAMETERS='[{\"name\":\"params\",\"map\":{\"web.replicas\":\"3\"}}]' kf cmp generate")]
    Generate,
}

pub fn run(ctx: &Context_, cmd: CmpCommand) -> Result<()> {
    match cmd {
        CmpCommand::Discover => {
            if argocd::discover(&ctx.cwd) {
                println!("{}", kf::app::APP_FILE);
            }
            Ok(())
        }
        CmpCommand::Generate => generate(ctx),
    }
}

fn generate(ctx: &Context_) -> Result<()> {
    let parameters = std::env::var(PARAMETERS_VAR).ok();
    let env_var = std::env::var(ENV_VAR).ok();
    let app = ctx.app()?;
    let request = argocd::request(&app, parameters.as_deref(), env_var.as_deref())?;
    let env = match request.env {
        Some(e) => e,
        None => match app.current_environment()? {
            Some(e) => e,
            None => {
                let envs: Vec<String> = app.environments().into_iter().map(|e| e.name).collect();
                let first = envs.first().map_or("prod", String::as_str);
                bail!(
                    "no environment: give the plugin parameter `env` (in the Application, spec.source.plugin.parameters: [{{name: env, string: {first}}}]) or the plugin env KF_ENV (spec.source.plugin.env: [{{name: KF_ENV, value: {first}}}]); the app's environments: {}",
                    envs.join(", ")
                )
            }
        },
    };
    app.environment(&env)?;
    // Argo CD hands the plugin its own copy of the source: the overrides are set there,
    // as `kf param set --env` would, and checked the same way.
    let (app, _lock) = if request.params.is_empty() {
        (app, None)
    } else {
        ctx.app_for(true)?
    };
    for (component, key, value) in &request.params {
        kf::workflow::params::set(
            &app,
            &kf::workflow::params::ParamTarget {
                component: Some(component.clone()),
                key: key.clone(),
                env: Some(env.clone()),
            },
            value,
            kf::workflow::params::SetOptions::default(),
        )
        .map_err(|e| {
            anyhow::anyhow!("plugin parameter `params`, entry '{component}.{key}': {e}")
        })?;
    }
    let objects = kf::render::render(
        &app,
        &env,
        &kf::render::RenderOptions {
            leak_engines: true,
            documents: Some(kf::render::DocumentFormat::Yaml),
            jpaths: request.jpaths.clone(),
            ..Default::default()
        },
    )?;
    super::stdout::write_with(|out| output::write_yaml_stream(&objects, out));
    Ok(())
}
