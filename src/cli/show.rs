use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use kf::app::App;
use kf::engine::TlaValue;
use kf::render::output::{self, Format};
use kf::render::{ExtVar, RenderOptions, RenderedObject};

use super::{Context_, key_value, pick_env};

/// Render an environment's components to Kubernetes manifests on stdout.
///
/// `kf show` is the render step CI pipes into files: it prints Secrets with their real values.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf show prod\n  kf show --env prod -c web -o json\n  kf show dev -V imageTag=1.2.3 > dev.yaml"
)]
pub struct ShowArgs {
    #[command(flatten)]
    render: RenderArgs,
    /// Output format: yaml (a `---` stream), json (one v1 List) or name (kind/name lines).
    #[arg(
        short = 'o',
        long = "output",
        alias = "format",
        value_name = "FORMAT",
        default_value = "yaml",
        value_parser = ["yaml", "json", "name"]
    )]
    output: String,
}

/// What every rendering command takes: the env, the components and the Jsonnet inputs.
#[derive(Args)]
pub struct RenderArgs {
    /// Environment (ksonnet's positional form); or use --env.
    #[arg(value_name = "ENV")]
    env_pos: Option<String>,
    /// Environment to render (default: the current one, `kf env current`).
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
    #[command(flatten)]
    pub jsonnet: JsonnetArgs,
}

/// The components and Jsonnet inputs of a render.
#[derive(Args)]
pub struct JsonnetArgs {
    /// Only these components (repeatable); the others are not evaluated.
    #[arg(short = 'c', long = "component", value_name = "NAME")]
    components: Vec<String>,
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
    /// Extra library folder for imports (repeatable); JSONNET_PATH's folders come after.
    #[arg(short = 'J', long = "jpath", value_name = "DIR")]
    jpath: Vec<PathBuf>,
    /// Deepest Jsonnet call stack before evaluation stops with an error.
    #[arg(long, value_name = "N")]
    max_stack: Option<usize>,
    /// Render (and apply) for this namespace instead of the environment's: the
    /// destination's namespace components read, and where objects that name none go.
    #[arg(short = 'n', long = "namespace", value_name = "NAME")]
    namespace: Option<String>,
    /// The render makes each object's text as it goes (`kf show -o yaml`, `-o json`).
    #[arg(skip)]
    documents: Option<kf::render::DocumentFormat>,
}

/// A rendered environment.
pub struct Rendered {
    #[allow(dead_code)] // the cluster commands use it
    pub app: App,
    pub env: String,
    pub objects: Vec<RenderedObject>,
}

impl RenderArgs {
    /// Find the app, pick the env and render it.
    pub fn render(&self, ctx: &Context_) -> Result<Rendered> {
        let app = ctx.app()?;
        let env = pick_env(&app, self.env_pos.clone(), self.env.clone())?;
        let objects = self.jsonnet.render(ctx, &app, &env)?;
        Ok(Rendered { app, env, objects })
    }

    /// [`RenderArgs::render`], going on past components that fail, with their errors.
    pub fn render_partial(
        &self,
        ctx: &Context_,
    ) -> Result<(Rendered, Vec<kf::render::ComponentError>)> {
        let app = ctx.app()?;
        let env = pick_env(&app, self.env_pos.clone(), self.env.clone())?;
        let (objects, failed) = self.jsonnet.render_partial(ctx, &app, &env)?;
        Ok((Rendered { app, env, objects }, failed))
    }
}

impl JsonnetArgs {
    /// The components `-c` selected; empty for all.
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// `-n`: the namespace that replaces the environment's, if any.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref().filter(|n| !n.is_empty())
    }

    /// Render one environment of `app`.
    pub fn render(&self, ctx: &Context_, app: &App, env: &str) -> Result<Vec<RenderedObject>> {
        let (objects, failed) = self.render_partial(ctx, app, env)?;
        if !failed.is_empty() {
            return Err(kf::render::RenderError::Components(failed).into());
        }
        Ok(objects)
    }

    /// Render one environment of `app`, going on past components that fail.
    pub fn render_partial(
        &self,
        ctx: &Context_,
        app: &App,
        env: &str,
    ) -> Result<(Vec<RenderedObject>, Vec<kf::render::ComponentError>)> {
        let options = self.options(ctx)?;
        kf::engine::take_ksonnet_answers();
        let (objects, failed) = kf::render::render_partial(app, env, &options)?;
        if !failed.is_empty() {
            return Ok((objects, failed));
        }
        for warning in kf::render::ksonnet_compat::object_has_warnings(app, env, &options) {
            eprintln!("warning: {warning}");
        }
        for warning in kf::render::ksonnet_compat::paren_warnings(app, env, &options, &objects) {
            eprintln!("warning: {warning}");
        }
        // The re-renders of those checks counted their answers too.
        kf::engine::take_ksonnet_answers();
        Ok((objects, failed))
    }

    pub fn options(&self, ctx: &Context_) -> Result<RenderOptions> {
        let mut ext_vars = Vec::new();
        for kv in &self.ext_str {
            let (k, v) = key_value(kv, "--ext-str")?;
            ext_vars.push((k, ExtVar::Str(v)));
        }
        for kv in &self.ext_str_file {
            let (k, path) = key_value(kv, "--ext-str-file")?;
            let text = kf::sandbox::read_named(&ctx.cwd.join(&path), kf::sandbox::RENDER_FILE_CAP)
                .with_context(|| format!("--ext-str-file {k}"))?;
            ext_vars.push((k, ExtVar::Str(text)));
        }
        for kv in &self.ext_code {
            let (k, v) = key_value(kv, "--ext-code")?;
            ext_vars.push((k, ExtVar::Code(v)));
        }
        let mut tla = Vec::new();
        for kv in &self.tla_str {
            let (k, v) = key_value(kv, "--tla-str")?;
            tla.push((k, TlaValue::Str(v)));
        }
        for kv in &self.tla_code {
            let (k, v) = key_value(kv, "--tla-code")?;
            tla.push((k, TlaValue::Code(v)));
        }
        Ok(RenderOptions {
            components: self.components.clone(),
            ext_vars,
            tla,
            jpaths: self
                .jpath
                .iter()
                .cloned()
                .chain(jsonnet_path())
                .map(|p| ctx.cwd.join(p))
                .collect(),
            max_stack: self.max_stack,
            overlay: Vec::new(),
            namespace: self.namespace().map(str::to_string),
            // Every command exits soon after it renders.
            leak_engines: true,
            workers: 0,
            documents: self.documents,
        })
    }
}

/// The folders of `JSONNET_PATH` (colon-separated, the first wins, as the jsonnet tools
/// read it), searched after every `-J`.
fn jsonnet_path() -> Vec<PathBuf> {
    std::env::var_os("JSONNET_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default()
}

pub fn run(ctx: &Context_, mut a: ShowArgs) -> Result<()> {
    // The objects are printed as rendered: their text is made on the render's threads.
    a.render.jsonnet.documents = match a.output.as_str() {
        "yaml" => Some(kf::render::DocumentFormat::Yaml),
        "json" => Some(kf::render::DocumentFormat::Json),
        _ => None,
    };
    let rendered = a.render.render(ctx)?;
    let format = match a.output.as_str() {
        "json" => Format::Json,
        "name" => Format::Name,
        _ => Format::Yaml,
    };
    super::stdout::write_with(|out| output::write_to(&rendered.objects, format, out));
    Ok(())
}
