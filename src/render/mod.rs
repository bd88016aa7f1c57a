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

mod components;
mod entries;
pub mod ksonnet_compat;
mod order;
pub mod output;

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::app::{App, AppError, Component, ComponentFormat, Environment, Module};
use crate::engine::{Engine, EngineOptions, EvalError, TlaValue};
use jrsonnet_evaluator::Val;

pub use components::parse_component_file;
pub use entries::{Entries, ModuleParams, RawParams};
pub use order::sort_objects;

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

/// The env's ksonnet-lib (see [`crate::ksonnetlib::lib_dir`]); `None`, with a warning
/// printed once, when kf's cache cannot be used and the app has none.
fn library(app: &App, env: &Environment) -> Option<crate::ksonnetlib::LibraryDir> {
    let app_lib = app
        .root
        .join("lib")
        .join("ksonnet-lib")
        .join(&env.k8s_version);
    // One render makes an engine per module (and `show` more for its checks): the
    // library is found, and its signed manifest verified, once per process.
    static FOUND: std::sync::Mutex<Vec<(PathBuf, crate::ksonnetlib::LibraryDir)>> =
        std::sync::Mutex::new(Vec::new());
    if let Some(lib) = FOUND.lock().ok().and_then(|found| {
        found
            .iter()
            .find(|(at, _)| *at == app_lib)
            .map(|(_, lib)| lib.clone())
    }) {
        return Some(lib);
    }
    match crate::ksonnetlib::lib_dir(&app_lib, &env.k8s_version, app.sandbox()) {
        Ok(lib) => {
            if let Ok(mut found) = FOUND.lock() {
                found.push((app_lib, lib.clone()));
            }
            Some(lib)
        }
        Err(e) => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                eprintln!(
                    "warning: environment '{}' has no ksonnet-lib: {e}; imports of k.libsonnet fail until then",
                    env.name
                )
            });
            None
        }
    }
}

/// The folders imports are searched in, in ksonnet's order.
fn search_paths(
    app: &App,
    env: &Environment,
    library: Option<&crate::ksonnetlib::LibraryDir>,
    extra: &[PathBuf],
) -> Vec<PathBuf> {
    let mut paths = vec![
        app.environments_dir(),
        app.env_dir(env),
        app.root.join("vendor"),
        app.root.join("lib"),
    ];
    paths.extend(library.map(|l| l.path().to_path_buf()));
    paths.push(app.components_dir());
    paths.extend(extra.iter().cloned());
    paths
}

pub fn new_engine(app: &App, env: &Environment, options: &RenderOptions) -> Engine {
    let library = library(app, env);
    // The app, the -J folders, and a library kf generated (checked file by file).
    let mut sandbox =
        crate::sandbox::Sandbox::new(std::iter::once(&app.root).chain(options.jpaths.iter()));
    if let Some(crate::ksonnetlib::LibraryDir::Cache { dir, digests }) = &library {
        sandbox = sandbox.with_verified(dir, digests.clone());
    }
    let engine = Engine::new(EngineOptions {
        display_root: app.root.clone(),
        search_paths: search_paths(app, env, library.as_ref(), &options.jpaths),
        aliases: crate::registry::version_aliases(app),
        sandbox,
        max_stack: options
            .max_stack
            .unwrap_or(crate::engine::DEFAULT_MAX_STACK),
        rewrite: Some(crate::engine::SourceRewrite {
            components: app
                .components_dir()
                .canonicalize()
                .unwrap_or_else(|_| app.components_dir()),
            rewrite: ksonnet_compat::as_ksonnet_evaluated,
        }),
        overlay: options.overlay.clone(),
    });
    for (name, value) in &options.ext_vars {
        match value {
            ExtVar::Str(s) => engine.set_ext_str(name, s),
            ExtVar::Code(c) => engine.set_ext_code(name, c),
        }
    }
    engine.set_ext_json(
        "__ksonnet/environments",
        &serde_json::json!({ "server": env.server, "namespace": env.namespace }),
    );
    engine
}

/// A params.libsonnet's `global`: an object, or `{}` when it has none.
fn module_global(global: Option<Value>, file: &str) -> Result<Value, RenderError> {
    match global {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(g @ Value::Object(_)) => Ok(g),
        Some(_) => Err(RenderError::Params {
            file: file.to_string(),
            message: "`global` must be an object".into(),
        }),
    }
}

/// Read a module's params.libsonnet (an absent file is an empty one).
pub fn read_module_params(
    app: &App,
    engine: &Engine,
    module: &Module,
) -> Result<RawParams, RenderError> {
    let path = module.params_path();
    if !present(&path) {
        return Ok(RawParams::default());
    }
    let file = rel(app, &path);
    // ksonnet's params files are plain literals: read as data, they skip the parse and the
    // evaluation of every component's entry, and each entry is built only when read (most
    // of `show -c` in an app of thousands).
    if let Some(text) = engine.read_as_written(&path)
        && let Some(levels) = crate::params::literal::fields_along(&text, &["components"])
    {
        return plain_module_params(text, levels, &file);
    }
    let raw = engine
        .import_file(&path)
        .and_then(|v| engine.to_json(&v))
        .map_err(|e| RenderError::Params {
            file: file.clone(),
            message: e.message,
        })?;
    let Value::Object(mut raw) = raw else {
        return Err(RenderError::Params {
            file,
            message: "must be an object with `global` and `components`".into(),
        });
    };
    let global = module_global(raw.remove("global"), &file)?;
    let components = match raw.remove("components") {
        Some(Value::Object(c)) => c,
        None | Some(Value::Null) => Map::new(),
        Some(_) => return Err(components_not_an_object(file)),
    };
    Ok(RawParams {
        global,
        components: components.into(),
    })
}

fn components_not_an_object(file: String) -> RenderError {
    RenderError::Params {
        file,
        message: "`components` must be an object".into(),
    }
}

/// A plain params file's [`RawParams`] from its fields along `components`
/// ([`crate::params::literal::fields_along`]): `global` built, the entries left as text.
fn plain_module_params(
    text: String,
    mut levels: Vec<crate::params::literal::Fields>,
    file: &str,
) -> Result<RawParams, RenderError> {
    let read = |name: &str| {
        levels[0]
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| crate::params::literal::value(&text[r.clone()]).unwrap_or_default())
    };
    let global = module_global(read("global"), file)?;
    let components = if levels.len() > 1 {
        // `components` is an object: its entries stay text.
        let fields = levels.pop().unwrap_or_default();
        Entries::in_text(std::rc::Rc::from(text), fields)
    } else {
        match read("components") {
            None | Some(Value::Null) => Entries::default(),
            Some(_) => return Err(components_not_an_object(file.to_string())),
        }
    };
    Ok(RawParams { global, components })
}

/// A module's params.libsonnet as [`read_module_params`] reads it, with only `global`
/// and the entry of component `local` (none for `None`) evaluated: what `param set`
/// checks after an edit, without manifesting the params of every other component.
pub fn read_module_params_of(
    app: &App,
    engine: &Engine,
    module: &Module,
    local: Option<&str>,
) -> Result<RawParams, RenderError> {
    let path = module.params_path();
    let file = rel(app, &path);
    let error = |message: String| RenderError::Params {
        file: file.clone(),
        message,
    };
    let Val::Obj(raw) = engine.import_file(&path).map_err(|e| error(e.message))? else {
        return Err(error(
            "must be an object with `global` and `components`".into(),
        ));
    };
    let global = module_global(
        engine
            .field_json(&raw, "global")
            .map_err(|e| error(e.message))?,
        &file,
    )?;
    let mut components = Map::new();
    if let Some(local) = local {
        match engine
            .field(&raw, "components")
            .map_err(|e| error(e.message))?
        {
            Some(Val::Obj(all)) => {
                if let Some(v) = engine
                    .field_json(&all, local)
                    .map_err(|e| error(e.message))?
                {
                    components.insert(local.to_string(), v);
                }
            }
            None | Some(Val::Null) => {}
            Some(_) => return Err(error("`components` must be an object".into())),
        }
    }
    Ok(RawParams {
        global,
        components: components.into(),
    })
}

/// The modules an environment renders, each with its raw params: its `targets`, and with
/// none the root module alone, as ksonnet 0.13 located them (pkg/component/locator.go:
/// an env without targets renders `components/` itself, not the folders below it).
pub fn target_modules(
    app: &App,
    env: &Environment,
    engine: &Engine,
) -> Result<Vec<(Module, RawParams)>, RenderError> {
    let mut out = Vec::new();
    let modules = app.modules()?;
    if let Some(t) = env
        .targets
        .iter()
        .find(|t| !modules.iter().any(|m| m.is_targeted_by(t)))
    {
        return Err(RenderError::Environment {
            file: if env.is_override {
                crate::app::OVERRIDE_FILE
            } else {
                crate::app::APP_FILE
            }
            .to_string(),
            message: format!(
                "environment '{}' targets '{t}', which is no module of components/; fix it with `kf env targets {} --module …`",
                env.name, env.name
            ),
        });
    }
    for module in modules {
        let targeted = if env.targets.is_empty() {
            module.name.is_empty()
        } else {
            env.targets.iter().any(|t| module.is_targeted_by(t))
        };
        if !targeted {
            continue;
        }
        let raw = read_module_params(app, engine, &module)?;
        out.push((module, raw));
    }
    Ok(out)
}

/// Module params of every module, `global` applied, keyed by full component name: the
/// `components` an env's params.libsonnet sees.
fn module_components(modules: &[(Module, RawParams)]) -> Map<String, Value> {
    entries::full_names(modules)
        .into_iter()
        .filter_map(|name| Some((name.clone(), entries::entry(modules, &name)?)))
        .collect()
}

fn env_params_path(app: &App, env: &Environment) -> PathBuf {
    app.env_dir(env).join("params.libsonnet")
}

fn env_params_error(app: &App, env: &Environment, message: String) -> RenderError {
    RenderError::Params {
        file: rel(app, &env_params_path(app, env)),
        message,
    }
}

/// The env's params.libsonnet evaluated with the module params as `__ksonnet/params`
/// (`{components: …}`, each entry built and converted to Jsonnet only when read): `None`
/// when the env has no such file.
fn evaluate_env_params(
    app: &App,
    env: &Environment,
    engine: &Engine,
    modules: &ModuleParams,
) -> Result<Option<Val>, RenderError> {
    let path = env_params_path(app, env);
    if !present(&path) {
        return Ok(None);
    }
    let names = entries::full_names(modules);
    let mut components = jrsonnet_evaluator::ObjValue::builder_with_capacity(names.len());
    for name in &names {
        components
            .field(name.as_str())
            .thunk(module_entry(modules, name));
    }
    let mut params = jrsonnet_evaluator::ObjValue::builder_with_capacity(1);
    params
        .field("components")
        .value(Val::Obj(components.build()));
    engine.set_ext_val("__ksonnet/params", Val::Obj(params.build()));
    engine
        .import_file(&path)
        .map(Some)
        .map_err(|e| env_params_error(app, env, e.message))
}

/// The module params of full name `name` as a Jsonnet value, built when first read.
fn module_entry(modules: &ModuleParams, name: &str) -> jrsonnet_evaluator::Thunk<Val> {
    let modules = modules.clone();
    let name = name.to_string();
    crate::engine::lazy_json(move || entries::entry(&modules, &name))
}

/// Env params: the env's params.libsonnet evaluated over the module params, keyed by
/// full component name.
pub fn env_params(
    app: &App,
    env: &Environment,
    engine: &Engine,
    modules: Vec<(Module, RawParams)>,
) -> Result<Value, RenderError> {
    let modules: ModuleParams = std::rc::Rc::new(modules);
    match evaluate_env_params(app, env, engine, &modules)? {
        Some(params) => engine
            .to_json(&params)
            .map_err(|e| env_params_error(app, env, e.message)),
        None => {
            let mut out = Map::new();
            out.insert(
                "components".into(),
                Value::Object(module_components(&modules)),
            );
            Ok(Value::Object(out))
        }
    }
}

/// An environment whose folder is gone would render silently without its overrides
/// (prod with default's replicas): that is an error, naming the env and the folder.
pub fn check_env_folder(app: &App, env: &Environment) -> Result<(), RenderError> {
    let dir = app.env_dir(env);
    if dir.is_dir() {
        return Ok(());
    }
    Err(RenderError::Environment {
        file: rel(app, &dir),
        message: format!(
            "environment '{}' has no folder here (app.yaml names it{}); restore it (e.g. `git checkout -- {}`) or remove the environment with `kf env rm {}`",
            env.name,
            if env.spec.path.is_empty() {
                String::new()
            } else {
                format!(" with path '{}'", env.path)
            },
            rel(app, &dir),
            env.name
        ),
    })
}

/// An environment's effective params, keyed by full component name.
pub fn effective_params(
    app: &App,
    env: &Environment,
    options: &RenderOptions,
) -> Result<Value, RenderError> {
    check_env_folder(app, env)?;
    let engine = new_engine(app, env, options);
    let modules = target_modules(app, env, &engine)?;
    env_params(app, env, &engine, modules)
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

/// The env params' components, as a render's components read them.
enum EnvView {
    /// No env params file: the module params (`global` applied).
    Module(ModuleParams),
    /// The env's params.libsonnet evaluated over the module params: its `components`
    /// object, whose entries are evaluated only when read, in `engine`.
    Evaluated(Box<(Engine, jrsonnet_evaluator::ObjValue)>),
}

/// The env's params as the components will read them, and the engine the components of
/// the first module may reuse (none when the env params keep it). The module params reach
/// the env's params.libsonnet as `__ksonnet/params`, each entry converted when read.
fn env_view(
    app: &App,
    env: &Environment,
    engine: Engine,
    modules: &ModuleParams,
) -> Result<(EnvView, Option<Engine>), RenderError> {
    let Some(evaluated) = evaluate_env_params(app, env, &engine, modules)? else {
        return Ok((EnvView::Module(modules.clone()), Some(engine)));
    };
    let error = |message: &str| env_params_error(app, env, message.into());
    let Val::Obj(evaluated) = evaluated else {
        return Err(error("must evaluate to an object with `components`"));
    };
    let components = match engine
        .field(&evaluated, "components")
        .map_err(|e| error(&e.message))?
    {
        Some(Val::Obj(c)) => c,
        None | Some(Val::Null) => jrsonnet_evaluator::ObjValue::builder().build(),
        Some(_) => return Err(error("`components` must be an object")),
    };
    Ok((EnvView::Evaluated(Box::new((engine, components))), None))
}

impl EnvView {
    /// `{components: …}` as one module's main.jsonnet and components read it: the env
    /// params of the module's components, keyed by their names within the module, each
    /// entry evaluated or converted only when something reads it (`-c one` of thousands
    /// reads one).
    ///
    /// An env params key `"<module>.<x>"` reaches the module as `<x>` even when the module
    /// has no component or params entry `x` (and a key without a dot reaches the root
    /// module), as ksonnet 0.13 selected them (pkg/params/scripts/params_for_module.libsonnet).
    fn of_module<'a>(&self, module: &Module, locals: impl IntoIterator<Item = &'a str>) -> Val {
        let mut locals: std::collections::BTreeSet<String> =
            locals.into_iter().map(str::to_string).collect();
        if let EnvView::Evaluated(e) = self {
            let prefix = module.full_name("");
            for name in e.1.fields() {
                if let Some(local) = name.strip_prefix(prefix.as_str())
                    && !local.is_empty()
                    && !local.contains('.')
                {
                    locals.insert(local.to_string());
                }
            }
        }
        let mut components = jrsonnet_evaluator::ObjValue::builder();
        for local in &locals {
            let local = local.as_str();
            let name = module.full_name(local);
            let entry = match self {
                EnvView::Module(modules) => entries::owner(modules, &name)
                    .is_some()
                    .then(|| module_entry(modules, &name)),
                EnvView::Evaluated(e) => {
                    e.1.has_field(name.as_str().into())
                        .then(|| crate::engine::lazy_field(&e.1, &name))
                }
            };
            if let Some(entry) = entry {
                components.field(local).thunk(entry);
            }
        }
        let mut view = jrsonnet_evaluator::ObjValue::builder_with_capacity(1);
        view.field("components").value(Val::Obj(components.build()));
        Val::Obj(view.build())
    }

    /// The env params of component `name` (its full name), as JSON.
    fn entry_json(&self, name: &str) -> Result<Option<Value>, EvalError> {
        match self {
            EnvView::Module(modules) => Ok(entries::entry(modules, name)),
            EnvView::Evaluated(e) => e.0.field_json(&e.1, name),
        }
    }

    /// Keep the env engine's object graph instead of freeing it (the CLI is about to exit).
    fn leak(self) {
        std::mem::forget(self);
    }
}

/// The env's main.jsonnet over the components document (the document itself without one).
fn env_main(
    app: &App,
    env: &Environment,
    engine: &Engine,
    components: jrsonnet_evaluator::Val,
) -> Result<jrsonnet_evaluator::ObjValue, RenderError> {
    engine.set_ext_val("__ksonnet/components", components.clone());
    let main = app.env_dir(env).join("main.jsonnet");
    if !present(&main) {
        return match components {
            jrsonnet_evaluator::Val::Obj(o) => Ok(o),
            _ => unreachable!("lazy_object builds an object"),
        };
    }
    let val = engine
        .import_file(&main)
        .map_err(|e| RenderError::Environment {
            file: rel(app, &main),
            message: e.message,
        })?;
    match val {
        jrsonnet_evaluator::Val::Obj(o) => Ok(o),
        _ => Err(RenderError::Environment {
            file: rel(app, &main),
            message: "must evaluate to an object keyed by component name".into(),
        }),
    }
}

/// A component that failed to render, with first the param values of it that its
/// prototype's types refuse, each with the params file and line that set it: such a
/// value (set with --force, or by hand) is the usual cause, and the Jsonnet trace ends
/// in the package's libraries, never in the params file (or, when jrsonnet loses the
/// error inside an array comprehension, says only "infinite recursion detected").
fn blame_params(
    app: &App,
    env: &Environment,
    module: &Module,
    component: &Component,
    view: &EnvView,
    message: String,
) -> String {
    let Ok(Some(params)) = view.entry_json(&component.name) else {
        return message;
    };
    let off = crate::params::checked::off_type_values(app, &component.name, &params);
    if off.is_empty() {
        return message;
    }
    // Where a value is set: the env's params override the module's (each file read once).
    let places: Vec<(String, String, &str, bool)> = [
        (env_params_path(app, env), component.name.as_str(), true),
        (module.params_path(), component.local.as_str(), false),
    ]
    .into_iter()
    .filter_map(|(path, key, in_env)| {
        Some((rel(app, &path), app.read_text(&path).ok()?, key, in_env))
    })
    .collect();
    let set_at = |param: &str| -> Option<(String, bool)> {
        places.iter().find_map(|(file, text, key, in_env)| {
            let path_in = ["components", *key, param];
            let line = crate::params::structure::line_of_field_path(text, path_in.into_iter())?;
            Some((format!("{file}:{line}"), *in_env))
        })
    };
    let mut out = String::new();
    for o in &off {
        let (place, in_env) = set_at(&o.param).unwrap_or_else(|| ("its params".to_string(), false));
        let flag = if in_env {
            format!(" --env {}", env.name)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{place}: param {}: {}; prototype {} declares it of type {} (`kf param set {} {} VALUE{flag}` sets it)\n",
            o.param, o.error, o.prototype, o.kind, component.name, o.param
        ));
    }
    format!("{out}rendering it failed: {message}")
}

/// A hint for a "no such field" error naming an API group or version ksonnet-era code
/// calls (`k.extensions.v1beta1.deployment`) and today's library lacks: the env's
/// k8sVersion gave it today's API, and `kf env set --api-spec` gives it ksonnet's back.
fn api_hint(env: &Environment, message: &str) -> String {
    let Some(field) = message
        .split("no such field: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
    else {
        return String::new();
    };
    let versioned = field.strip_prefix('v').is_some_and(|v| {
        let digits = v.trim_start_matches(|c: char| c.is_ascii_digit());
        digits.len() < v.len() && (digits.starts_with("alpha") || digits.starts_with("beta"))
    });
    if !crate::ksonnetlib::is_todays(&env.k8s_version) || !(versioned || field == "extensions") {
        return String::new();
    }
    format!(
        "\nhint: environment '{}' is for Kubernetes {} (its k8sVersion), whose API and ksonnet-lib no longer have '{field}'; move the code to today's API (see `kf validate {}`), or give the environment ksonnet's with `kf env set {} --api-spec version:v1.10.3`",
        env.name, env.k8s_version, env.name, env.name
    )
}

/// jrsonnet errors about missing fields or imports carry no location; name the file.
fn with_file(app: &App, component: &Component, message: String) -> String {
    let file = rel(app, &component.path);
    if message.contains(&format!("{file}:")) {
        return message;
    }
    let Ok(text) = app.read_text(&component.path) else {
        return format!("{file}: {message}");
    };
    // jrsonnet gives many runtime errors no span, only the chain of fields being
    // manifested; find that field in the component's source to name its line.
    let fields: Vec<&str> = message
        .lines()
        .filter_map(|l| l.trim().strip_prefix("field <")?.strip_suffix('>'))
        .collect();
    let line = crate::params::structure::line_of_field_path(&text, fields.iter().rev().copied());
    match (missing_field_access(&text, &message, line), line) {
        (Some((line, column)), _) => format!("{file}:{line}:{column}: {message}"),
        (None, Some(line)) => format!("{file}:{line}: {message}"),
        (None, None) => format!("{file}: {message}"),
    }
}

/// Where `source` reads the field a "no such field: NAME" error names (`params.imagee`):
/// the 1-based line and column of NAME in its one `.NAME` access, or in the one on
/// `near_line` when there are several. jrsonnet reports this error without a span.
fn missing_field_access(
    source: &str,
    message: &str,
    near_line: Option<usize>,
) -> Option<(usize, usize)> {
    let name = message
        .lines()
        .next()?
        .strip_prefix("no such field: ")?
        .trim();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || !name.chars().all(is_ident) {
        return None;
    }
    let mut found = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or(line);
        for (at, _) in code.match_indices(&format!(".{name}")) {
            let end = at + 1 + name.len();
            let before = code[..at].chars().next_back();
            let after = code[end..].chars().next();
            // `a.NAME` or `a).NAME`, not `1.5` or `.NAMEs`.
            let accessor = before.is_some_and(|c| is_ident(c) || c == ')' || c == ']');
            if accessor && !after.is_some_and(is_ident) {
                found.push((index + 1, code[..at + 1].chars().count() + 1));
            }
        }
    }
    match found.as_slice() {
        [one] => Some(*one),
        _ => found.into_iter().find(|(l, _)| Some(*l) == near_line),
    }
}

/// One component's value → labelled objects.
fn to_objects(
    component: &str,
    value: Value,
    patch: Option<&Value>,
) -> Result<Vec<RenderedObject>, String> {
    let value = match value {
        Value::Array(items) => {
            serde_json::json!({ "apiVersion": "v1", "kind": "List", "items": items })
        }
        other => other,
    };
    let Value::Object(mut obj) = value else {
        return Err(format!(
            "rendered {}, not a Kubernetes object or a list of them",
            crate::params::value::json_type(&value)
        ));
    };
    if let Some(p) = patch {
        let mut v = Value::Object(obj);
        merge_patch(&mut v, p);
        let Value::Object(o) = v else {
            unreachable!("patching an object with an object")
        };
        obj = o;
    }
    let items = if obj.get("kind").and_then(Value::as_str) == Some("List") {
        match obj.remove("items") {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(_) => return Err("a List's items must be an array".into()),
        }
    } else {
        vec![Value::Object(obj)]
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(mut o) = item else {
            return Err(format!(
                "item {i} is {}, not a Kubernetes object",
                crate::params::value::json_type(&item)
            ));
        };
        for field in ["apiVersion", "kind"] {
            if !o.get(field).is_some_and(Value::is_string) {
                let name = o
                    .get("metadata")
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("<unnamed>");
                return Err(format!(
                    "object '{name}' (item {i}) has no string `{field}`"
                ));
            }
        }
        label(&mut o, component);
        out.push(RenderedObject {
            component: component.to_string(),
            object: o,
        });
    }
    Ok(out)
}

fn label(obj: &mut Map<String, Value>, component: &str) {
    let metadata = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let Value::Object(metadata) = metadata else {
        unreachable!("just made an object")
    };
    let labels = metadata
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if !labels.is_object() {
        *labels = Value::Object(Map::new());
    }
    if let Value::Object(labels) = labels {
        labels.insert(
            COMPONENT_LABEL.to_string(),
            Value::String(component.to_string()),
        );
    }
}

/// RFC 7386 JSON merge patch (what Jsonnet's std.mergePatch does).
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else {
        unreachable!("just made an object")
    };
    for (k, v) in patch {
        if v.is_null() {
            t.remove(k);
        } else {
            merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}
