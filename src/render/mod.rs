//! Components → Kubernetes objects, as ksonnet's `show` pipeline did it:
//!
//! 1. module params (`components/params.libsonnet`), `global` merge-patched into each
//!    component (global wins);
//! 2. the environment's `params.libsonnet`, evaluated with those as `__ksonnet/params`
//!    (env overrides, then env `globals.libsonnet`, win);
//! 3. every component as a lazy field of `__ksonnet/components` (YAML/JSON components
//!    merge-patched with their module params), read by the env's `main.jsonnet`;
//! 4. each selected component of main's result: arrays become a v1 List, Lists are
//!    flattened, YAML components are merge-patched with their env params, every object
//!    is labelled `ksonnet.io/component`;
//! 5. objects sorted deterministically.
//!
//! Laziness is what makes `-c` cheap: a component nobody selects is never evaluated.

mod blame;
mod components;
mod entries;
mod env_view;
pub mod ksonnet_compat;
mod objects;
mod order;
pub mod output;
mod params;
mod setup;

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::app::{App, AppError, Component, ComponentFormat};
use crate::engine::{EvalError, TlaValue};

use blame::{api_hint, blame_params, with_file};
pub use components::parse_component_file;
pub use entries::{Entries, ModuleParams, RawParams};
use env_view::{env_main, env_view};
pub use objects::merge_patch;
use objects::to_objects;
pub use order::sort_objects;
pub use params::{
    check_env_folder, effective_params, env_params, read_module_params, read_module_params_of,
    target_modules,
};
pub use setup::new_engine;

pub const COMPONENT_LABEL: &str = "ksonnet.io/component";

#[derive(Debug, Clone)]
pub enum ExtVar {
    Str(String),
    Code(String),
}

#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// Components to render; empty means all.
    pub components: Vec<String>,
    pub ext_vars: Vec<(String, ExtVar)>,
    pub tla: Vec<(String, TlaValue)>,
    pub jpaths: Vec<PathBuf>,
    pub max_stack: Option<usize>,
    /// Files evaluated from memory instead of disk (canonical path → contents), to check
    /// an edit before writing it.
    pub overlay: Vec<(PathBuf, String)>,
    /// `-n`: render for this namespace instead of the environment's (kubectl's flag).
    pub namespace: Option<String>,
    /// Keep the evaluator's object graph instead of freeing it object by object once the
    /// objects are out: for a command that exits right after (freeing cost 12–20% of a
    /// render).
    pub leak_engines: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RenderedObject {
    pub component: String,
    pub object: Map<String, Value>,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    App(#[from] AppError),
    #[error("{file}: {message}")]
    Params { file: String, message: String },
    #[error("{}", format_component_errors(.0))]
    Components(Vec<ComponentError>),
    #[error("{file}: {message}")]
    Environment { file: String, message: String },
    #[error(
        "component '{component}' is in module '{module}', which environment '{env}' does not target; `kf env targets {env}` shows its targets"
    )]
    NotTargeted {
        component: String,
        module: String,
        env: String,
    },
    /// Libraries app.yaml declares that vendor/ lacks ([`crate::registry::missing_libraries`]).
    #[error("{}", .0.iter().map(|m| format!("app.yaml: {m}")).collect::<Vec<_>>().join("\n"))]
    MissingLibraries(Vec<String>),
}

#[derive(Debug, Clone)]
pub struct ComponentError {
    pub component: String,
    pub message: String,
}

fn format_component_errors(errors: &[ComponentError]) -> String {
    let parts: Vec<String> = errors
        .iter()
        .map(|e| format!("component '{}': {}", e.component, e.message))
        .collect();
    let mut out = parts.join("\n");
    if errors.len() > 1 {
        out.push_str(&format!("\n{} components failed to render", errors.len()));
    }
    out
}

/// Whether an optional file of the app is there, as anything: what is there is read (and
/// refused if it is not a regular file inside the app); only a missing file is absent.
fn present(path: &std::path::Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

pub fn rel(app: &App, path: &std::path::Path) -> String {
    path.strip_prefix(&app.root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Render `env` to objects.
pub fn render(
    app: &App,
    env_name: &str,
    options: &RenderOptions,
) -> Result<Vec<RenderedObject>, RenderError> {
    let (objects, errors) = render_partial(app, env_name, options)?;
    if !errors.is_empty() {
        return Err(RenderError::Components(errors));
    }
    Ok(objects)
}

/// [`render`], going on past components that fail: the objects of those that render
/// (sorted), and the errors of those that do not. An error of the env or its params
/// still stops it.
pub fn render_partial(
    app: &App,
    env_name: &str,
    options: &RenderOptions,
) -> Result<(Vec<RenderedObject>, Vec<ComponentError>), RenderError> {
    let mut env = app.environment(env_name)?;
    check_env_folder(app, &env)?;
    let missing = crate::registry::missing_libraries(app, Some(&env));
    if !missing.is_empty() {
        return Err(RenderError::MissingLibraries(missing));
    }
    if let Some(ns) = &options.namespace {
        env.namespace = ns.clone();
    }
    let engine = new_engine(app, &env, options);
    let modules: ModuleParams = std::rc::Rc::new(target_modules(app, &env, &engine)?);
    let all = app.components()?;
    let in_targets = |c: &Component| modules.iter().any(|(m, _)| m.name == c.module);
    let selected: Vec<Component> = if options.components.is_empty() {
        all.iter().filter(|c| in_targets(c)).cloned().collect()
    } else {
        let mut picked = Vec::new();
        for name in &options.components {
            let c = crate::app::find_component(&all, name)?.clone();
            if !in_targets(&c) {
                return Err(RenderError::NotTargeted {
                    module: app.module_of(&c).display_name().to_string(),
                    component: c.name,
                    env: env.name.clone(),
                });
            }
            if !picked.iter().any(|p: &Component| p.name == c.name) {
                picked.push(c);
            }
        }
        picked
    };

    // The env's params stay values of the engine that evaluated them (their ext vars are
    // the module params); the components then get engines of their own.
    let (view, mut engine) = env_view(app, &env, engine, &modules)?;

    let mut objects = Vec::new();
    let mut errors = Vec::new();
    for (module, raw) in modules.iter() {
        let module_selected: Vec<&Component> = selected
            .iter()
            .filter(|c| c.module == module.name)
            .collect();
        if module_selected.is_empty() {
            continue;
        }
        let members: Vec<&Component> = all.iter().filter(|c| c.module == module.name).collect();
        // main.jsonnet and the components read `__ksonnet/params` for their own module
        // only, and Jsonnet caches imports: each further module gets a fresh engine.
        let engine = engine
            .take()
            .unwrap_or_else(|| new_engine(app, &env, options));
        // Every entry of the module's params, not only those with a component file:
        // apps keep shared blocks (`"t2t-job"`) that other components read.
        let locals: std::collections::BTreeSet<&str> = raw
            .components
            .names()
            .chain(members.iter().map(|c| c.local.as_str()))
            .collect();
        engine.set_ext_val("__ksonnet/params", view.of_module(module, locals));
        let components = components::lazy_object(app, &members, &raw.components, &options.tla);
        let result = env_main(app, &env, &engine, components)?;
        for component in module_selected {
            // The component's value, and for a YAML/JSON component its env params to patch.
            let read = || -> Result<Option<(Value, Option<Value>)>, EvalError> {
                let Some(value) = engine.field_json(&result, &component.name)? else {
                    return Ok(None);
                };
                let patch = match component.format {
                    ComponentFormat::Jsonnet => None,
                    _ => view.entry_json(&component.name)?,
                };
                Ok(Some((value, patch)))
            };
            let (value, patch) = match read() {
                Ok(Some(read)) => read,
                Ok(None) => continue,
                Err(EvalError { message }) => {
                    let hint = api_hint(&env, &message);
                    let message = with_file(app, component, message) + &hint;
                    errors.push(ComponentError {
                        component: component.name.clone(),
                        message: blame_params(app, &env, module, component, &view, message),
                    });
                    continue;
                }
            };
            match to_objects(&component.name, value, patch.as_ref()) {
                Ok(mut objs) => objects.append(&mut objs),
                Err(message) => {
                    let message = format!("{}: {message}", rel(app, &component.path));
                    errors.push(ComponentError {
                        component: component.name.clone(),
                        message: blame_params(app, &env, module, component, &view, message),
                    });
                }
            }
        }
        if options.leak_engines {
            std::mem::forget(result);
            std::mem::forget(engine);
        }
    }
    if options.leak_engines {
        view.leak();
    }
    sort_objects(&mut objects);
    Ok((objects, errors))
}
