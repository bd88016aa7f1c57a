use std::time::Duration;

use anyhow::Result;
use clap::{Args, Subcommand};

use kf::registry::manage::{self, InstallOptions};
use kf::registry::remote::FetchDeadline;

use super::cluster_args::parse_duration;
use super::{Context_, table};

/// The time limit of the verbs that fetch registries.
#[derive(Args)]
pub struct FetchArgs {
    /// The whole command's time limit for fetching git registries (every clone and
    /// checkout): 30s, 5m, 1h…
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    timeout: Duration,
}

impl FetchArgs {
    fn deadline(&self) -> FetchDeadline {
        FetchDeadline::after(self.timeout)
    }
}

/// Registries: where packages of prototypes and libraries come from.
#[derive(Subcommand)]
pub enum RegistryCommand {
    /// Add a registry: a folder (/path, ./path, file:///path) or a git repository
    /// (https://…, git@…, file:///bare.git, github.com/org/repo/tree/<ref>/<path>).
    #[command(
        after_help = "Examples:\n  kf registry add team ./registry\n  kf registry add incubator github.com/ksonnet/parts/tree/master/incubator"
    )]
    Add {
        /// Name the app calls the registry by.
        name: String,
        /// Where the registry is: a folder or a git repository.
        uri: String,
        /// Record it in app.override.yaml (local, not committed).
        #[arg(short = 'o', long = "override")]
        r#override: bool,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// List the registries (the built-in `kubeflow` is always there).
    #[command(
        visible_alias = "ls",
        after_help = "Example:\n  kf registry list -o json"
    )]
    List {
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
    },
    /// Show a registry and its packages.
    #[command(after_help = "Example:\n  kf registry describe kubeflow")]
    Describe {
        /// The registry to show.
        name: String,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Point a registry at another URI.
    #[command(
        after_help = "Example:\n  kf registry set team --uri https://git.example.com/ml/registry.git"
    )]
    Set {
        /// The registry to change.
        name: String,
        /// Its new location: a folder or a git repository.
        #[arg(long)]
        uri: String,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Remove a registry (installed packages stay vendored).
    #[command(
        visible_alias = "remove",
        after_help = "Example:\n  kf registry rm team"
    )]
    Rm {
        /// The registry to remove.
        name: String,
    },
}

/// Packages: install, list, describe and remove.
#[derive(Subcommand)]
pub enum PkgCommand {
    /// Vendor a package into vendor/<registry>/<package>/ and record it in app.yaml.
    #[command(
        after_help = "Examples:\n  kf pkg install kubeflow/tf-training\n  kf pkg install team/serving@v1.2 --name serving-v1 --env prod"
    )]
    Install(InstallArgs),
    /// List packages of every registry (`*` marks installed ones), or only installed ones.
    #[command(
        visible_alias = "ls",
        after_help = "Example:\n  kf pkg list --installed"
    )]
    List {
        /// Only the installed packages.
        #[arg(long)]
        installed: bool,
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Show a package: description and prototypes.
    #[command(after_help = "Example:\n  kf pkg describe kubeflow/tf-serving")]
    Describe {
        /// The package, as <registry>/<package>.
        package: String,
        #[command(flatten)]
        fetch: FetchArgs,
    },
    /// Remove an installed package and its app.yaml entries.
    #[command(
        visible_alias = "rm",
        after_help = "Example:\n  kf pkg remove kubeflow/tf-training"
    )]
    Remove {
        /// The installed package, as <registry>/<package>.
        package: String,
    },
}

#[derive(Args)]
pub struct InstallArgs {
    /// <registry>/<package>[@ref]
    package: String,
    /// Vendor it under this name.
    #[arg(long)]
    name: Option<String>,
    /// Record it for this environment only.
    #[arg(long)]
    env: Option<String>,
    /// Replace an installed copy.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    fetch: FetchArgs,
}

pub fn run_registry(ctx: &Context_, cmd: RegistryCommand) -> Result<()> {
    let writes = !matches!(
        cmd,
        RegistryCommand::List { .. } | RegistryCommand::Describe { .. }
    );
    let (app, _lock) = ctx.app_for(writes)?;
    match cmd {
        RegistryCommand::Add {
            name,
            uri,
            r#override,
            fetch,
        } => {
            let r = manage::add(&app, &name, &uri, &ctx.cwd, r#override, &fetch.deadline())?;
            println!("Added registry '{}' ({} {})", r.name, r.protocol, r.uri);
        }
        RegistryCommand::List { output } => {
            let regs = manage::registries(&app);
            let rows: Vec<Vec<String>> = regs
                .iter()
                .map(|r| {
                    vec![
                        r.name.clone(),
                        if r.is_override {
                            "*".into()
                        } else {
                            String::new()
                        },
                        r.protocol.clone(),
                        r.uri.clone(),
                    ]
                })
                .collect();
            table::print(
                "registries",
                &["NAME", "OVERRIDE", "PROTOCOL", "URI"],
                &rows,
                &output,
            );
        }
        RegistryCommand::Describe { name, fetch } => {
            let opened = manage::open(&app, &name, None, &fetch.deadline())?;
            println!(
                "REGISTRY NAME:\n{}\n\nURI:\n{}\n\nPROTOCOL:\n{}\n\nPACKAGES:",
                name, opened.registry.uri, opened.registry.protocol
            );
            for p in opened.names() {
                println!("  {p}");
            }
        }
        RegistryCommand::Set { name, uri, fetch } => {
            manage::set_uri(&app, &name, &uri, &ctx.cwd, &fetch.deadline())?;
            println!("Registry '{name}' now points at {uri}");
        }
        RegistryCommand::Rm { name } => {
            manage::remove(&app, &name)?;
            println!("Removed registry '{name}'");
        }
    }
    Ok(())
}

pub fn run_pkg(ctx: &Context_, cmd: PkgCommand) -> Result<()> {
    let writes = matches!(cmd, PkgCommand::Install(_) | PkgCommand::Remove { .. });
    let (app, _lock) = ctx.app_for(writes)?;
    match cmd {
        PkgCommand::Install(a) => {
            let id = manage::install(
                &app,
                &a.package,
                &InstallOptions {
                    alias: a.name,
                    env: a.env,
                    force: a.force,
                },
                &a.fetch.deadline(),
            )?;
            println!("Installed {id} into vendor/{id}");
        }
        PkgCommand::List {
            installed,
            output,
            fetch,
        } => {
            super::warn_missing_libraries(&app);
            let rows = package_rows(&app, installed, &fetch.deadline())?;
            table::print(
                "packages",
                &["REGISTRY", "NAME", "VERSION", "INSTALLED", "ENVIRONMENTS"],
                &rows,
                &output,
            );
        }
        PkgCommand::Describe { package, fetch } => {
            let (reg, name, reference) = manage::parse_package_ref(&package)?;
            let opened = manage::open(&app, &reg, reference.as_deref(), &fetch.deadline())?;
            let pkg = opened.package(&name)?;
            println!(
                "LIBRARY NAME:\n{name}\n\nDESCRIPTION:\n{}\n\nPROTOTYPES:",
                pkg.description
            );
            for p in kf::prototype::of_package(&pkg)? {
                println!("  {}  {}", p.name, p.short_description);
            }
        }
        PkgCommand::Remove { package } => {
            manage::uninstall(&app, &package)?;
            println!("Removed {package}");
        }
    }
    Ok(())
}

/// `pkg list` as ksonnet printed it: a row per (registry, package, version), from the
/// registries' indexes (at the version they list) and from app.yaml's libraries (at the
/// version installed, `*`, with the environments of an env-scoped install). An installed
/// package at another version than its registry lists shows as two rows.
fn package_rows(
    app: &kf::app::App,
    installed_only: bool,
    deadline: &FetchDeadline,
) -> Result<Vec<Vec<String>>> {
    use std::collections::BTreeMap;
    // (registry, name, version) → environments, when installed.
    let mut rows: BTreeMap<(String, String, String), Option<Vec<String>>> = BTreeMap::new();
    for (id, version) in manage::installed(app)? {
        let env_only = !app.spec.libraries.contains_key(&id.to_string())
            && app.spec.environments.values().any(|e| {
                e.extra
                    .get("libraries")
                    .and_then(serde_json::Value::as_object)
                    .is_some_and(|l| l.contains_key(&id.to_string()))
            });
        if !env_only {
            rows.insert(
                (id.registry.clone(), id.name.clone(), version),
                Some(Vec::new()),
            );
        }
    }
    for (env, e) in &app.spec.environments {
        let libs = e
            .extra
            .get("libraries")
            .and_then(serde_json::Value::as_object);
        for (key, lib) in libs.into_iter().flatten() {
            let (reg, name) = key.split_once('/').unwrap_or(("", key));
            let version = lib["version"].as_str().unwrap_or("").to_string();
            let envs = rows
                .entry((reg.to_string(), name.to_string(), version))
                .or_insert_with(|| Some(Vec::new()));
            if let Some(envs) = envs {
                envs.push(env.clone());
            }
        }
    }
    if !installed_only {
        for r in manage::registries(app) {
            let opened = manage::open(app, &r.name, None, deadline)?;
            for n in opened.names() {
                let version = opened.listed_version(n).unwrap_or_default();
                rows.entry((r.name.clone(), n.clone(), version))
                    .or_insert(None);
            }
        }
    }
    Ok(rows
        .into_iter()
        .map(|((reg, name, version), envs)| {
            let installed = if envs.is_some() { "*" } else { "" };
            let envs = envs.unwrap_or_default().join(",");
            vec![reg, name, version, installed.into(), envs]
        })
        .collect())
}
