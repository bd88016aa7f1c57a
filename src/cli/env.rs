use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use kf::app::Environment;
use kf::app::create::{self, ApiSpec, EnvChanges, EnvOptions};

use super::{Context_, table};

/// `--api-spec`: `version:` and `file:` are read offline; `server` is the spec the API
/// server of `env()` serves (found through the kubeconfig as the cluster commands find
/// it: KUBECONFIG or ~/.kube/config, the context whose cluster is that server).
pub fn api_spec(
    arg: Option<&str>,
    env: impl FnOnce() -> Result<Environment>,
) -> Result<Option<ApiSpec>> {
    match arg {
        None => Ok(None),
        Some("server") => {
            let env = env()?;
            let connection = kf::workflow::Connection {
                connect: Default::default(),
                timeout: std::time::Duration::from_secs(120),
            };
            let bytes =
                super::cluster_args::runtime()?.block_on(kf::workflow::api_spec::server_spec(
                    &env,
                    &connection,
                    &mut kf::cluster::events::Silent,
                ))?;
            let origin = format!("{}/openapi/v2", env.server.trim_end_matches('/'));
            Ok(Some(create::api_spec_of(bytes, &origin)?))
        }
        Some(a) => Ok(Some(create::read_api_spec(a)?)),
    }
}

/// Manage environments (where and how an app is deployed).
#[derive(Subcommand)]
pub enum EnvCommand {
    /// Add an environment.
    #[command(
        after_help = "Example:\n  kf env add prod --namespace ml-prod --server https://prod.example.com:6443"
    )]
    Add(AddArgs),
    /// Remove an environment and its folder.
    #[command(after_help = "Example:\n  kf env rm staging")]
    Rm {
        /// The environment to remove.
        name: String,
        /// Remove it from app.override.yaml.
        #[arg(short = 'o', long)]
        r#override: bool,
    },
    /// List environments.
    #[command(after_help = "Example:\n  kf env list -o json")]
    List {
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
    },
    /// Change an environment's name, server, namespace or API version.
    #[command(after_help = "Example:\n  kf env set prod --namespace ml --name production")]
    Set(SetArgs),
    /// Show, set or unset the current environment (.ks_environment).
    #[command(after_help = "Example:\n  kf env current --set prod")]
    Current {
        /// Make this environment the current one.
        #[arg(long, value_name = "ENV", conflicts_with = "unset")]
        set: Option<String>,
        /// Forget the current environment.
        #[arg(long)]
        unset: bool,
    },
    /// Show or set the modules an environment renders (none set: the root module only).
    #[command(
        after_help = "Examples:\n  kf env targets prod --module / --module team/serving\n  kf env targets prod"
    )]
    Targets {
        /// The environment.
        name: String,
        /// A module to render (`/` is the root; repeat for more). Replaces the list; without
        /// any, the current targets are printed.
        #[arg(long = "module", value_name = "MODULE")]
        modules: Vec<String>,
    },
    /// Print an environment's settings as YAML.
    #[command(after_help = "Example:\n  kf env describe prod")]
    Describe {
        /// The environment to print.
        name: String,
    },
}

/// Where an environment deploys and which API it targets: `env add`'s and `env set`'s.
#[derive(Args)]
pub struct DestinationArgs {
    /// Kubernetes API server URL, e.g. https://prod.example.com:6443.
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// Namespace for objects that name none.
    #[arg(long)]
    namespace: Option<String>,
    /// The API the env targets: version:v1.33.0, file:swagger.json, or server (the
    /// spec its API server serves).
    #[arg(long, value_name = "SPEC")]
    api_spec: Option<String>,
}

impl DestinationArgs {
    /// The `--api-spec` read; with `server`, from the server of `env()` as these flags
    /// change it.
    fn read_api_spec(&self, env: impl FnOnce() -> Result<Environment>) -> Result<Option<ApiSpec>> {
        api_spec(self.api_spec.as_deref(), || {
            let mut env = env()?;
            if let Some(s) = &self.server {
                env.server = s.clone();
            }
            Ok(env)
        })
    }
}

#[derive(Args)]
pub struct AddArgs {
    /// Name of the new environment (also its folder under environments/).
    name: String,
    #[command(flatten)]
    destination: DestinationArgs,
    /// Write the environment to app.override.yaml (local, git-ignored).
    #[arg(short = 'o', long)]
    r#override: bool,
}

#[derive(Args)]
pub struct SetArgs {
    /// The environment to change.
    name: String,
    /// New name (moves environments/<name>).
    #[arg(long = "name", id = "rename")]
    rename: Option<String>,
    #[command(flatten)]
    destination: DestinationArgs,
}

/// A library made from a spec is bounded by --eval-timeout from the spec's reading to the
/// last file written (a kf stopped while writing leaves the app as before or, past the
/// journal, as after).
fn bounded(d: &DestinationArgs, env: &str) -> Option<kf::engine::watchdog::Evaluating> {
    let spec = d.api_spec.as_deref()?;
    let (spec, env) = (spec.to_string(), env.to_string());
    Some(kf::engine::watchdog::Evaluating::generating(move || {
        format!("--api-spec {spec} for environment '{env}'")
    }))
}

pub fn run(ctx: &Context_, cmd: EnvCommand) -> Result<()> {
    let writes = match &cmd {
        EnvCommand::List { .. } | EnvCommand::Describe { .. } => false,
        EnvCommand::Current { set, unset } => set.is_some() || *unset,
        EnvCommand::Targets { modules, .. } => !modules.is_empty(),
        _ => true,
    };
    let (app, _lock) = ctx.app_for(writes)?;
    match cmd {
        EnvCommand::Add(a) => {
            let _bounded = bounded(&a.destination, &a.name);
            // `server` asks the new env's server: an env of the app with its name and server.
            let spec = a.destination.read_api_spec(|| {
                let Some(mut env) = app.environments().first().cloned() else {
                    bail!(
                        "--api-spec server needs an environment to start from; add this one with --api-spec version:<v>, then `kf env set {} --api-spec server`",
                        a.name
                    );
                };
                env.name = a.name.clone();
                Ok(env)
            })?;
            create::add_env(
                &app,
                &EnvOptions {
                    name: a.name.clone(),
                    server: a.destination.server,
                    namespace: a.destination.namespace,
                    api_spec: spec,
                    is_override: a.r#override,
                },
            )?;
            println!("Added environment '{}'", a.name);
        }
        EnvCommand::Rm { name, r#override } => {
            create::remove_env(&app, &name, r#override)?;
            println!("Removed environment '{name}'");
        }
        EnvCommand::List { output } => {
            super::warn_missing_libraries(&app);
            let envs = app.environments();
            let rows: Vec<Vec<String>> = envs
                .iter()
                .map(|e| {
                    vec![
                        e.name.clone(),
                        if e.is_override {
                            "*".into()
                        } else {
                            String::new()
                        },
                        e.k8s_version.clone(),
                        e.namespace.clone(),
                        e.server.clone(),
                    ]
                })
                .collect();
            table::print(
                "environments",
                &[
                    "NAME",
                    "OVERRIDE",
                    "KUBERNETES-VERSION",
                    "NAMESPACE",
                    "SERVER",
                ],
                &rows,
                &output,
            );
        }
        EnvCommand::Set(a) => {
            let d = &a.destination;
            if a.rename.is_none()
                && d.server.is_none()
                && d.namespace.is_none()
                && d.api_spec.is_none()
            {
                bail!("nothing to change: give --name, --server, --namespace or --api-spec");
            }
            let _bounded = bounded(d, &a.name);
            // `server` asks the env's server (the new one, with --server).
            let spec = d.read_api_spec(|| Ok(app.environment(&a.name)?))?;
            create::update_env(
                &app,
                &a.name,
                &EnvChanges {
                    rename: a.rename,
                    server: a.destination.server,
                    namespace: a.destination.namespace,
                    api_spec: spec,
                    targets: None,
                },
            )?;
            println!("Updated environment '{}'", a.name);
        }
        EnvCommand::Targets { name, modules } => {
            if modules.is_empty() {
                let env = app.environment(&name)?;
                if env.targets.is_empty() {
                    eprintln!("environment '{name}' sets no targets: it renders the root module");
                    println!("/");
                }
                for t in &env.targets {
                    println!("{t}");
                }
            } else {
                create::update_env(
                    &app,
                    &name,
                    &EnvChanges {
                        rename: None,
                        server: None,
                        namespace: None,
                        api_spec: None,
                        targets: Some(modules.clone()),
                    },
                )?;
                eprintln!(
                    "environment '{name}' now renders module(s) {}",
                    modules.join(", ")
                );
            }
        }
        EnvCommand::Current { set, unset } => {
            if let Some(name) = set {
                create::set_current_env(&app, Some(&name))?;
                eprintln!("current environment set to '{name}' in .ks_environment");
            } else if unset {
                create::set_current_env(&app, None)?;
                eprintln!("current environment unset");
            } else {
                match app.current_environment()? {
                    Some(e) => println!("{e}"),
                    None => {
                        bail!("no current environment; set one with `kf env current --set <env>`")
                    }
                }
            }
        }
        EnvCommand::Describe { name } => {
            let env = app.environment(&name)?;
            let described = serde_json::json!({
                "name": env.name,
                "destination": { "namespace": env.namespace, "server": env.server },
                "k8sVersion": env.k8s_version,
                "path": env.path,
                "targets": env.targets,
                "override": env.is_override,
            });
            print!("{}", kf::app::to_yaml(&described));
        }
    }
    Ok(())
}
