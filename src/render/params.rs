//! The params a render reads, evaluated: each module's params.libsonnet, the modules an
//! env targets, the env's params.libsonnet over them; `param list` and `param diff` print
//! these views.

use std::path::PathBuf;

use jrsonnet_evaluator::Val;
use serde_json::{Map, Value};

use super::entries::{self, Entries, ModuleParams, RawParams};
use super::{RenderError, RenderOptions, new_engine, present, rel};
use crate::app::{App, Environment, Module};
use crate::engine::Engine;

/// A params.libsonnet's `global`: an object, or `{}` when it has none.
pub(super) fn module_global(global: Option<Value>, file: &str) -> Result<Value, RenderError> {
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
    let raw = engine.file_json(&path).map_err(|e| RenderError::Params {
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

pub(super) fn components_not_an_object(file: String) -> RenderError {
    RenderError::Params {
        file,
        message: "`components` must be an object".into(),
    }
}

/// A plain params file's [`RawParams`] from its fields along `components`
/// ([`crate::params::literal::fields_along`]): `global` built, the entries left as text.
pub(super) fn plain_module_params(
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
pub(super) fn module_components(modules: &[(Module, RawParams)]) -> Map<String, Value> {
    entries::full_names(modules)
        .into_iter()
        .filter_map(|name| Some((name.clone(), entries::entry(modules, &name)?)))
        .collect()
}

pub(super) fn env_params_path(app: &App, env: &Environment) -> PathBuf {
    app.env_dir(env).join("params.libsonnet")
}

pub(super) fn env_params_error(app: &App, env: &Environment, message: String) -> RenderError {
    RenderError::Params {
        file: rel(app, &env_params_path(app, env)),
        message,
    }
}

/// The env's params.libsonnet evaluated with the module params as `__ksonnet/params`
/// (`{components: …}`, each entry built and converted to Jsonnet only when read): `None`
/// when the env has no such file.
pub(super) fn evaluate_env_params(
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
pub(super) fn module_entry(modules: &ModuleParams, name: &str) -> jrsonnet_evaluator::Thunk<Val> {
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
