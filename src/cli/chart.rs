//! `kf chart`: Helm charts vendored under `charts/` in Tanka's chartfile.yaml format.

use anyhow::Result;
use clap::Subcommand;

use kf::workflow::charts::{self, State};

use super::{Context_, table};

/// Helm charts kept under charts/ (Tanka's chartfile.yaml), for helmTemplate and the
/// helm-chart prototype.
#[derive(Subcommand)]
pub enum ChartCommand {
    /// Add a chart repository to chartfile.yaml: an HTTP(S) Helm repository or an oci://
    /// registry path.
    #[command(
        after_help = "Examples:\n  kf chart add-repo kueue oci://registry.k8s.io/kueue/charts\n  kf chart add-repo jupyterhub https://hub.jupyter.org/helm-chart/"
    )]
    AddRepo {
        /// The name charts are required by (repo/name@version).
        name: String,
        /// Where the repository is.
        url: String,
    },
    /// Pull charts into charts/<name>, and record them in chartfile.yaml and their
    /// digests in chartfile.lock (all, or nothing if one pull fails).
    #[command(
        after_help = "Examples:\n  kf chart add kueue/kueue@0.19.2\n  kf chart add jupyterhub/jupyterhub@4.2.0:hub    # into charts/hub"
    )]
    Add {
        /// REPO/NAME@VERSION, optionally :FOLDER.
        #[arg(required = true, value_name = "REPO/NAME@VERSION")]
        charts: Vec<String>,
    },
    /// List the charts chartfile.yaml requires and whether each folder is what was pulled.
    #[command(visible_alias = "ls", after_help = "Example:\n  kf chart list -o json")]
    List {
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
    },
    /// Pull again every required chart (or those named) whose folder is missing, changed
    /// since it was pulled, or of another version than chartfile.yaml says.
    #[command(after_help = "Examples:\n  kf chart update\n  kf chart update kueue")]
    Update {
        /// Folders under charts/ or charts (repo/name) to update; all when none.
        charts: Vec<String>,
    },
}

pub fn run(ctx: &Context_, cmd: ChartCommand) -> Result<()> {
    let writes = !matches!(cmd, ChartCommand::List { .. });
    let (app, _lock) = ctx.app_for(writes)?;
    match cmd {
        ChartCommand::AddRepo { name, url } => {
            charts::add_repo(&app, &name, &url)?;
            println!("Added repository '{name}' ({url}) to chartfile.yaml");
        }
        ChartCommand::Add { charts: specs } => {
            for p in charts::add(&app, &specs)? {
                println!(
                    "Pulled {}@{} into {} ({})",
                    p.requirement.chart,
                    p.requirement.version,
                    p.requirement.path(),
                    p.digest
                );
            }
        }
        ChartCommand::List { output } => {
            let rows: Vec<Vec<String>> = charts::list(&app)?
                .into_iter()
                .map(|r| {
                    vec![
                        r.requirement.chart.clone(),
                        r.requirement.version.clone(),
                        r.requirement.path(),
                        r.state.describe(),
                    ]
                })
                .collect();
            table::print(
                "charts",
                &["CHART", "VERSION", "PATH", "STATE"],
                &rows,
                &output,
            );
        }
        ChartCommand::Update { charts: only } => {
            for u in charts::update(&app, &only)? {
                let r = &u.requirement;
                if u.before == State::Pulled {
                    println!("{}: {}@{} is up to date", r.path(), r.chart, r.version);
                } else {
                    println!(
                        "{}: pulled {}@{} (was {}; now {})",
                        r.path(),
                        r.chart,
                        r.version,
                        u.before.describe(),
                        u.digest.as_deref().unwrap_or("")
                    );
                }
            }
        }
    }
    Ok(())
}
