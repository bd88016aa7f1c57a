//! The env params as one render's components read them, module by module, each entry
//! evaluated only when read; and the env's main.jsonnet over the components.

use jrsonnet_evaluator::Val;
use serde_json::Value;

use super::entries::{self, ModuleParams};
use super::params::{env_params_error, evaluate_env_params, module_entry};
use super::{RenderError, present, rel};
use crate::app::{App, Environment, Module};
use crate::engine::{Engine, EvalError};

/// The env params' components, as a render's components read them.
pub(super) enum EnvView {
    /// No env params file: the module params (`global` applied).
    Module(ModuleParams),
    /// The env's params.libsonnet evaluated over the module params: its `components`
    /// object, whose entries are evaluated only when read, in `engine`.
    Evaluated(Box<(Engine, jrsonnet_evaluator::ObjValue)>),
}

/// The env's params as the components will read them, and the engine the components of
/// the first module may reuse (none when the env params keep it). The module params reach
/// the env's params.libsonnet as `__ksonnet/params`, each entry converted when read.
pub(super) fn env_view(
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
    /// The engine that evaluated the env's params, if this view keeps it.
    pub(super) fn engine(&self) -> Option<&Engine> {
        match self {
            EnvView::Evaluated(e) => Some(&e.0),
            EnvView::Module(_) => None,
        }
    }

    /// `{components: …}` as one module's main.jsonnet and components read it: the env
    /// params of the module's components, keyed by their names within the module, each
    /// entry evaluated or converted only when something reads it (`-c one` of thousands
    /// reads one).
    ///
    /// An env params key `"<module>.<x>"` reaches the module as `<x>` even when the module
    /// has no component or params entry `x` (and a key without a dot reaches the root
    /// module), as ksonnet 0.13 selected them (pkg/params/scripts/params_for_module.libsonnet).
    pub(super) fn of_module<'a>(
        &self,
        module: &Module,
        locals: impl IntoIterator<Item = &'a str>,
    ) -> Val {
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
    pub(super) fn entry_json(&self, name: &str) -> Result<Option<Value>, EvalError> {
        match self {
            EnvView::Module(modules) => Ok(entries::entry(modules, name)),
            EnvView::Evaluated(e) => e.0.field_json(&e.1, name),
        }
    }

    /// Keep the env engine's object graph instead of freeing it (the CLI is about to exit).
    pub(super) fn leak(self) {
        std::mem::forget(self);
    }
}

/// The env's main.jsonnet over the components document (the document itself without one).
pub(super) fn env_main(
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
