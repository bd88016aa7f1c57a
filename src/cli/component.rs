use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Subcommand};
use serde_json::Value;

use kf::app::ComponentFormat;

use super::{Context_, table};

/// List and remove components.
#[derive(Subcommand)]
pub enum ComponentCommand {
    /// List components.
    #[command(
        visible_alias = "ls",
        after_help = "Example:\n  kf component list -o wide"
    )]
    List {
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
    },
    /// Remove a component: its file and its params in every environment.
    #[command(after_help = "Example:\n  kf component rm web")]
    Rm {
        /// The component to remove.
        name: String,
    },
}

/// Turn YAML/JSON manifests into components.
#[derive(Args)]
#[command(after_help = "Example:\n  kf import -f manifests/")]
pub struct ImportArgs {
    /// A .yaml/.yml/.json/.jsonnet file, or a folder of them.
    #[arg(short = 'f', long = "file")]
    file: PathBuf,
}

pub fn run(ctx: &Context_, cmd: ComponentCommand) -> Result<()> {
    let writes = matches!(cmd, ComponentCommand::Rm { .. });
    let (app, _lock) = ctx.app_for(writes)?;
    match cmd {
        ComponentCommand::List { output } => {
            super::warn_missing_libraries(&app);
            let components = app.components()?;
            let kind_of = |c: &kf::app::Component| -> (String, String, String) {
                if c.format == ComponentFormat::Jsonnet {
                    return Default::default();
                }
                let text = app.read_text(&c.path).unwrap_or_default();
                let parsed =
                    kf::render::parse_component_file(&text, c.format).unwrap_or(Value::Null);
                let s = |p: &str| {
                    parsed
                        .pointer(p)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string()
                };
                // An object named by the server (`generateName` only) shows that prefix, as
                // ksonnet did (pkg/schema/properties.go falls back to it).
                let name = Some(s("/metadata/name"))
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| s("/metadata/generateName"));
                (s("/apiVersion"), s("/kind"), name)
            };
            let type_of = |f: ComponentFormat| match f {
                ComponentFormat::Jsonnet => "jsonnet",
                ComponentFormat::Yaml => "yaml",
                ComponentFormat::Json => "json",
            };
            // ksonnet 0.13 prints the five columns by default (`-o wide` is the same).
            let rows: Vec<Vec<String>> = components
                .iter()
                .map(|c| {
                    let (api, kind, name) = kind_of(c);
                    vec![c.name.clone(), type_of(c.format).into(), api, kind, name]
                })
                .collect();
            table::print(
                "components",
                &["COMPONENT", "TYPE", "APIVERSION", "KIND", "NAME"],
                &rows,
                &output,
            );
        }
        ComponentCommand::Rm { name } => {
            kf::workflow::component::remove(&app, &name)?;
            println!("Removed component '{name}'");
        }
    }
    Ok(())
}

pub fn run_import(ctx: &Context_, a: ImportArgs) -> Result<()> {
    let (app, _lock) = ctx.app_for(true)?;
    let file = if a.file.is_absolute() {
        a.file.clone()
    } else {
        ctx.cwd.join(&a.file)
    };
    for imported in kf::workflow::component::import(&app, &file)? {
        println!(
            "Imported component '{}' ({})",
            imported.component,
            kf::render::rel(&app, &imported.path)
        );
    }
    Ok(())
}
