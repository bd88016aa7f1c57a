use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use kf::engine::TlaValue;
use kf::render::output::{self, Format};
use kf::render::{ExtVar, RenderOptions, render};

use super::{Context_, key_value, pick_env};

/// Render an environment's components to Kubernetes manifests on stdout.
///
/// `kf show` is the render step CI pipes into files: it prints Secrets with their real values.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf show prod\n  kf show --env prod -c web -o json\n  kf show dev -V imageTag=1.2.3 > dev.yaml"
)]
pub struct ShowArgs {
    /// Environment (ksonnet's positional form); or use --env.
    env_pos: Option<String>,
    #[arg(long)]
    env: Option<String>,
    /// Only these components (repeatable); the others are not evaluated.
    #[arg(short = 'c', long = "component", value_name = "NAME")]
    components: Vec<String>,
    /// Output format.
    #[arg(short = 'o', long = "format", default_value = "yaml", value_parser = ["yaml", "json"])]
    format: String,
    /// External variable as a string: -V name=value.
    #[arg(short = 'V', long = "ext-str", value_name = "NAME=VALUE")]
    ext_str: Vec<String>,
    /// External variable read from a file: --ext-str-file name=path.
    #[arg(long = "ext-str-file", value_name = "NAME=FILE")]
    ext_str_file: Vec<String>,
    /// External variable as Jsonnet code: --ext-code name=expr.
    #[arg(long = "ext-code", value_name = "NAME=CODE")]
    ext_code: Vec<String>,
    /// Top-level argument as a string, for components that are functions: -A name=value.
    #[arg(short = 'A', long = "tla-str", value_name = "NAME=VALUE")]
    tla_str: Vec<String>,
    /// Top-level argument as Jsonnet code.
    #[arg(long = "tla-code", value_name = "NAME=CODE")]
    tla_code: Vec<String>,
    /// Extra library folder for imports (repeatable).
    #[arg(short = 'J', long = "jpath", value_name = "DIR")]
    jpath: Vec<PathBuf>,
    /// Deepest Jsonnet call stack before evaluation stops with an error.
    #[arg(long, value_name = "N")]
    max_stack: Option<usize>,
}

pub fn run(ctx: &Context_, a: ShowArgs) -> Result<()> {
    let app = ctx.app()?;
    let env = pick_env(&app, a.env_pos, a.env)?;
    let mut ext_vars = Vec::new();
    for kv in &a.ext_str {
        let (k, v) = key_value(kv, "--ext-str")?;
        ext_vars.push((k, ExtVar::Str(v)));
    }
    for kv in &a.ext_str_file {
        let (k, path) = key_value(kv, "--ext-str-file")?;
        let text = std::fs::read_to_string(ctx.cwd.join(&path))
            .with_context(|| format!("--ext-str-file {k}: cannot read {path}"))?;
        ext_vars.push((k, ExtVar::Str(text)));
    }
    for kv in &a.ext_code {
        let (k, v) = key_value(kv, "--ext-code")?;
        ext_vars.push((k, ExtVar::Code(v)));
    }
    let mut tla = Vec::new();
    for kv in &a.tla_str {
        let (k, v) = key_value(kv, "--tla-str")?;
        tla.push((k, TlaValue::Str(v)));
    }
    for kv in &a.tla_code {
        let (k, v) = key_value(kv, "--tla-code")?;
        tla.push((k, TlaValue::Code(v)));
    }
    let options = RenderOptions {
        components: a.components,
        ext_vars,
        tla,
        jpaths: a.jpath.iter().map(|p| ctx.cwd.join(p)).collect(),
        max_stack: a.max_stack,
    };
    let objects = render(&app, &env, &options)?;
    let format = if a.format == "json" {
        Format::Json
    } else {
        Format::Yaml
    };
    print!("{}", output::write(&objects, format));
    Ok(())
}
