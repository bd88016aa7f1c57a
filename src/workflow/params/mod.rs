//! `kf param set|unset|list|diff` on an app.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

mod checked;
mod readback;

use crate::app::{App, AppError, Environment};
use crate::atomic::{self, FileSet};
use crate::params::{EditError, Inherit, ParamsFile, Root, ValueError, split_path, to_jsonnet};
use crate::prototype::generate::{ComponentWriteError, check_syntax};
use crate::render::{self, RenderError, RenderOptions};
pub use checked::SetOptions;
pub use readback::check_component_edit;
use readback::{refused, same_value};

#[derive(Debug, thiserror::Error)]
pub enum ParamError {
    #[error(transparent)]
    App(#[from] AppError),
    #[error(transparent)]
    Value(#[from] ValueError),
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error(transparent)]
    Write(#[from] ComponentWriteError),
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error("invalid param key '{0}': use names separated by single dots, e.g. resources.limits")]
    BadKey(String),
    #[error(transparent)]
    Check(#[from] Box<checked::CheckError>),
    #[error("{0}")]
    Usage(String),
}

/// What `param set`/`unset` acts on.
#[derive(Debug, Clone)]
pub struct ParamTarget {
    /// `None` for globals (module `global`, or the env's globals.libsonnet).
    pub component: Option<String>,
    pub key: String,
    pub env: Option<String>,
}

struct Located {
    path: PathBuf,
    display: String,
    root: Root,
    keys: Vec<String>,
    inherit: Inherit,
    prune: bool,
}

fn locate(app: &App, target: &ParamTarget) -> Result<Located, ParamError> {
    let key_path = split_path(&target.key).ok_or_else(|| ParamError::BadKey(target.key.clone()))?;
    let component = target
        .component
        .as_deref()
        .map(|c| app.component_by_path(c))
        .transpose()?;
    let env = target
        .env
        .as_deref()
        .map(|e| app.environment(e))
        .transpose()?;
    let located = match (&target.component, env) {
        (Some(_), None) => {
            let c = component.expect("looked up above");
            let path = app.module_of(&c).params_path();
            Located {
                display: render::rel(app, &path),
                path,
                root: Root::Components,
                keys: [vec![c.local.clone()], key_path].concat(),
                inherit: Inherit::Replace,
                prune: false,
            }
        }
        (Some(c), Some(env)) => env_file(
            app,
            &env,
            "params.libsonnet",
            Root::Components,
            [vec![c.clone()], key_path].concat(),
            Inherit::Extend,
        ),
        (None, None) => Located {
            path: app.component_params_path(),
            display: "components/params.libsonnet".into(),
            root: Root::Global,
            keys: key_path,
            inherit: Inherit::Replace,
            prune: false,
        },
        (None, Some(env)) => env_file(
            app,
            &env,
            "globals.libsonnet",
            Root::TopLevel,
            key_path,
            Inherit::Replace,
        ),
    };
    Ok(located)
}

fn env_file(
    app: &App,
    env: &Environment,
    file: &str,
    root: Root,
    keys: Vec<String>,
    inherit: Inherit,
) -> Located {
    let path = app.env_dir(env).join(file);
    Located {
        display: render::rel(app, &path),
        path,
        root,
        keys,
        inherit,
        prune: root == Root::Components,
    }
}

fn read(app: &App, path: &std::path::Path) -> Result<String, ParamError> {
    Ok(app.read_text(path)?)
}

/// What `kf param set` or `unset` changed: the value set (`None` for unset) and the
/// params file it is in, relative to the app.
#[derive(Debug, Clone, PartialEq)]
pub struct Changed {
    pub value: Option<Value>,
    pub file: String,
}

/// `kf param set`: change one key's text, leave the rest of the file byte-identical.
pub fn set(
    app: &App,
    target: &ParamTarget,
    raw_value: &str,
    options: SetOptions,
) -> Result<Changed, ParamError> {
    let value = checked::value_to_set(
        app,
        target.component.as_deref(),
        &target.key,
        raw_value,
        options,
    )?;
    let at = locate(app, target)?;
    let text = read(app, &at.path)?;
    let edited = crate::params::edit_keeping_bom(&text, |body| {
        ParamsFile::parse(&at.display, body)?.set(
            at.root,
            &at.keys,
            &to_jsonnet(&value),
            at.inherit,
        )
    })?;
    // Evaluating the edit parses it; a syntax error is told as such only when that fails
    // (the params file is parsed once, not twice).
    let after = readback::read_back(app, target, &at, &text, &edited, "set");
    if !matches!(after, Ok(Some(_))) {
        check_syntax(&at.display, &edited)?;
    }
    match after? {
        // Not evaluable here (external variables): the syntax check above is all.
        None => {}
        Some(after) => match after {
            Some(v) if same_value(&v, &value) => {}
            Some(v) => {
                return Err(refused(
                    target,
                    &at,
                    "set",
                    format!("after the edit it would still be {v}"),
                ));
            }
            None => {
                return Err(refused(
                    target,
                    &at,
                    "set",
                    "after the edit it would still be unset".into(),
                ));
            }
        },
    }
    atomic::write_atomic(&app.root, &at.path, edited.as_bytes()).map_err(AppError::from)?;
    Ok(Changed {
        value: Some(value),
        file: at.display,
    })
}

/// `kf param unset`.
pub fn unset(app: &App, target: &ParamTarget) -> Result<Changed, ParamError> {
    let at = locate(app, target)?;
    let text = read(app, &at.path)?;
    let (bom, body) = crate::params::split_bom(&text);
    let file = ParamsFile::parse(&at.display, body)?;
    let edited = file
        .unset(at.root, &at.keys, at.prune)
        .map(|e| format!("{bom}{e}"))
        .map_err(|e| match e {
            EditError::NotSet { file: f, path, .. } => {
                let parent = &at.keys[..at.keys.len() - 1];
                let known = file.keys_at(at.root, parent).unwrap_or_default();
                EditError::NotSet {
                    file: f,
                    path,
                    hint: crate::suggest::hint(
                        at.keys.last().map_or("", String::as_str),
                        known.iter().map(String::as_str),
                    ),
                }
            }
            other => other,
        })?;
    // In a module's params the key must be gone (in an env, the module's value shows
    // through again, as it should). As in `set`, a syntax error is told as such only when
    // the edit does not read back.
    let after = readback::read_back(app, target, &at, &text, &edited, "unset");
    if !matches!(after, Ok(Some(_))) {
        check_syntax(&at.display, &edited)?;
    }
    if let Some(Some(v)) = after?
        && target.env.is_none()
    {
        return Err(refused(
            target,
            &at,
            "unset",
            format!("after the edit it would still be {v}"),
        ));
    }
    let mut files = FileSet::new(&app.root);
    files.write(&at.path, edited);
    files.commit().map_err(AppError::from)?;
    Ok(Changed {
        value: None,
        file: at.display,
    })
}

/// One row of `param list`: component, param, value.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamRow {
    pub component: String,
    pub param: String,
    pub value: Value,
}

fn rows_of(components: &serde_json::Map<String, Value>, only: Option<&str>) -> Vec<ParamRow> {
    let mut rows = Vec::new();
    for (comp, params) in components {
        if only.is_some_and(|o| o != comp) {
            continue;
        }
        if let Value::Object(p) = params {
            for (k, v) in p {
                rows.push(ParamRow {
                    component: comp.clone(),
                    param: k.clone(),
                    value: v.clone(),
                });
            }
        }
    }
    rows
}

/// `kf param list [component] [--env e] [--module m]`: a module's params, or an env's
/// effective ones.
///
/// Without an env and a component, the rows are one module's (the root module unless
/// `module` names another), each under the name the component has in that module, as
/// ksonnet 0.13.1 listed them (pkg/actions/param_list.go reads one module's
/// params.libsonnet; pkg/params/lister.go names rows by its keys). A component named
/// (`mod.comp`) is listed under its full name, from whichever module holds it.
pub fn list(
    app: &App,
    component: Option<&str>,
    env: Option<&str>,
    module: Option<&str>,
) -> Result<Vec<ParamRow>, ParamError> {
    if let Some(c) = component {
        app.component(c)?;
    }
    if env.is_none() && component.is_none() {
        return module_rows(app, module.unwrap_or(""));
    }
    if module.is_some() {
        return Err(ParamError::Usage(
            "--module lists one module's params by their local names: give it without a component or --env".into(),
        ));
    }
    let params = evaluated(app, env)?;
    let components = params
        .get("components")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    Ok(rows_of(&components, component))
}

/// The rows of one module's params.libsonnet, under the components' local names.
fn module_rows(app: &App, name: &str) -> Result<Vec<ParamRow>, ParamError> {
    let name = name.trim_matches('/').replace('/', ".");
    let modules = app.modules()?;
    let Some(module) = modules.iter().find(|m| m.name == name) else {
        let known: Vec<String> = modules
            .iter()
            .map(|m| match m.name.as_str() {
                "" => "/".to_string(),
                n => n.to_string(),
            })
            .collect();
        return Err(ParamError::Usage(format!(
            "no module '{name}'; the app's modules: {}",
            known.join(", ")
        )));
    };
    let raw = render::read_module_params(app, &module_params_engine(app)?, module)?;
    Ok(rows_of(&raw.components.to_map(), None))
}

/// An engine to read module params with: they need no environment, and any env's search
/// paths will do.
fn module_params_engine(app: &App) -> Result<crate::engine::Engine, ParamError> {
    let Some(env) = app.environments().into_iter().next() else {
        return Err(ParamError::Usage(
            "the app has no environment; `kf env add` one".into(),
        ));
    };
    Ok(render::new_engine(app, &env, &RenderOptions::default()))
}

fn evaluated(app: &App, env: Option<&str>) -> Result<Value, ParamError> {
    if let Some(e) = env {
        let env = app.environment(e)?;
        return Ok(render::effective_params(
            app,
            &env,
            &RenderOptions::default(),
        )?);
    }
    let engine = module_params_engine(app)?;
    let mut all = serde_json::Map::new();
    for module in app.modules()? {
        let raw = render::read_module_params(app, &engine, &module)?;
        for (local, params) in raw.components.to_map() {
            all.insert(module.full_name(&local), params);
        }
    }
    Ok(serde_json::json!({ "components": all }))
}

/// One row of `param diff`.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffRow {
    pub component: String,
    pub param: String,
    pub left: Option<Value>,
    pub right: Option<Value>,
}

/// `kf param diff e1 e2`: differing values first, then params only in e1, then only in e2.
pub fn diff(
    app: &App,
    left: &str,
    right: &str,
    component: Option<&str>,
) -> Result<Vec<DiffRow>, ParamError> {
    if let Some(c) = component {
        app.component(c)?;
    }
    let l = flatten(&list_env(app, left)?, component);
    let r = flatten(&list_env(app, right)?, component);
    let mut changed = Vec::new();
    let mut only_left = Vec::new();
    for ((c, p), lv) in &l {
        match r.get(&(c.clone(), p.clone())) {
            Some(rv) if rv != lv => changed.push(DiffRow {
                component: c.clone(),
                param: p.clone(),
                left: Some(lv.clone()),
                right: Some(rv.clone()),
            }),
            Some(_) => {}
            None => only_left.push(DiffRow {
                component: c.clone(),
                param: p.clone(),
                left: Some(lv.clone()),
                right: None,
            }),
        }
    }
    let only_right = r
        .iter()
        .filter(|(k, _)| !l.contains_key(*k))
        .map(|((c, p), rv)| DiffRow {
            component: c.clone(),
            param: p.clone(),
            left: None,
            right: Some(rv.clone()),
        });
    changed.extend(only_left);
    changed.extend(only_right);
    Ok(changed)
}

fn list_env(app: &App, env: &str) -> Result<Vec<ParamRow>, ParamError> {
    list(app, None, Some(env), None)
}

fn flatten(rows: &[ParamRow], only: Option<&str>) -> BTreeMap<(String, String), Value> {
    rows.iter()
        .filter(|r| only.is_none_or(|o| o == r.component))
        .map(|r| ((r.component.clone(), r.param.clone()), r.value.clone()))
        .collect()
}
