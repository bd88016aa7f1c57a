use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use kf::workflow::export::{self, DEFAULT_TEMPLATE, ExportOptions, FileFormat};

use super::Context_;
use super::show::JsonnetArgs;

/// Render environments into a folder, one file per object, with a manifest.json (for
/// Argo CD, Flux and code review).
#[derive(Args)]
#[command(after_help = "Examples:\n  \
kf export manifests                    # every environment, YAML\n  \
kf export manifests prod -o json\n  \
kf export out --template '{env}/{component}/{kind}-{name}'")]
pub struct ExportArgs {
    /// The folder to write into (made if missing).
    // Not `dir`: that id is the global --dir's.
    #[arg(value_name = "DIR")]
    folder: PathBuf,
    /// The environments to export (default: all of the app's).
    #[arg(value_name = "ENV")]
    envs: Vec<String>,
    /// File format: yaml or json.
    #[arg(short = 'o', long, default_value = "yaml", value_parser = ["yaml", "json"])]
    output: String,
    /// File name of each object, without extension: {env}, {apiVersion}, {kind},
    /// {namespace}, {name} and {component} are replaced (made safe for file names).
    #[arg(long, value_name = "TEMPLATE", default_value = DEFAULT_TEMPLATE)]
    template: String,
    /// Environments rendered at once at most.
    #[arg(long, value_name = "N", default_value_t = 4)]
    parallel: usize,
    /// Write into a non-empty folder that has no manifest.json of kf's.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    jsonnet: JsonnetArgs,
}

pub fn run(ctx: &Context_, a: ExportArgs) -> Result<()> {
    let app = ctx.app()?;
    let mut render = a.jsonnet.options(ctx)?;
    // Each environment renders on a thread that ends before kf does: its engine is freed
    // there, not left for the process exit.
    render.leak_engines = false;
    // `join` keeps an absolute DIR as it is.
    let dir = ctx.cwd.join(&a.folder);
    kf::engine::take_ksonnet_answers();
    let report = export::export(
        &app,
        &dir,
        &ExportOptions {
            envs: a.envs,
            template: a.template,
            format: if a.output == "json" {
                FileFormat::Json
            } else {
                FileFormat::Yaml
            },
            parallel: a.parallel,
            force: a.force,
            render,
        },
    )?;
    if kf::engine::take_ksonnet_answers() > 0 {
        eprintln!(
            "warning: some std.objectHas calls answered as ksonnet 0.13 did (docs/rendering.md); `kf show ENV` names where"
        );
    }
    eprintln!(
        "exported {} of {} ({}) to {}{}{}",
        kf::message::counted(report.objects, "object"),
        if report.envs.len() == 1 {
            "1 environment".to_string()
        } else {
            format!("{} environments", report.envs.len())
        },
        report.envs.join(", "),
        a.folder.display(),
        match report.objects - report.written {
            0 => String::new(),
            n => format!("; {n} file(s) already up to date"),
        },
        match report.removed {
            0 => String::new(),
            n => format!("; removed {n} file(s) of objects no longer rendered"),
        }
    );
    Ok(())
}
