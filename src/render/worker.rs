//! One thread's share of a render: the env set up for it (its own engines, since
//! jrsonnet's values live on the thread that made them), and the components it is handed,
//! one at a time, by their place in the render's list.

use std::collections::BTreeSet;

use jrsonnet_evaluator::ObjValue;
use serde_json::Value;

use super::blame::{api_hint, blame_params, with_file};
use super::cost::{Weigher, heaviest_first};
use super::entries::ModuleParams;
use super::env_view::{EnvView, env_main, env_view};
use super::objects::{list_item, nested_objects, to_objects};
use super::params::{check_env_folder, target_modules};
use super::{ComponentError, RenderError, RenderOptions, RenderedObject, components, rel};
use crate::app::{App, AppError, Component, ComponentFormat, Environment};
use crate::engine::{Engine, EvalError, FieldJson, ItemsError, Piece};

/// What rendering one component gave: its objects or its error. An error of its module's
/// main.jsonnet ends the whole render.
pub(super) type Outcome = Result<Result<Vec<RenderedObject>, ComponentError>, RenderError>;

pub(super) struct Worker<'a> {
    app: &'a App,
    options: &'a RenderOptions,
    env: Environment,
    modules: ModuleParams,
    all: Vec<Component>,
    /// The components to render, module by module in the order of `modules` (the order
    /// their errors are reported in), each with its module's index.
    work: Vec<(usize, Component)>,
    view: EnvView,
    /// The engine that evaluated the module params, for the first module to open.
    spare: Option<Engine>,
    current: Option<Open>,
}

/// A module's components, read through its env's main.jsonnet in an engine of its own:
/// main.jsonnet and the components read `__ksonnet/params` for their own module only, and
/// Jsonnet caches imports.
struct Open {
    module: usize,
    result: ObjValue,
    engine: Engine,
}

impl<'a> Worker<'a> {
    /// Set up `env_name` for rendering: its params evaluated (each entry when read) and
    /// the components `options` selects of `all` (the app's, as [`App::components`] read
    /// them), in order. Every worker of a render sets up the same list.
    pub(super) fn new(
        app: &'a App,
        env_name: &str,
        options: &'a RenderOptions,
        all: Result<Vec<Component>, AppError>,
    ) -> Result<Worker<'a>, RenderError> {
        let mut env = app.environment(env_name)?;
        check_env_folder(app, &env)?;
        let missing = crate::registry::missing_libraries(app, Some(&env));
        if !missing.is_empty() {
            return Err(RenderError::MissingLibraries(missing));
        }
        if let Some(ns) = &options.namespace {
            env.namespace = ns.clone();
        }
        let engine = super::new_engine(app, &env, options);
        let modules: ModuleParams = std::rc::Rc::new(target_modules(app, &env, &engine)?);
        let all = all?;
        let selected = select(app, &env, &modules, &all, options)?;
        let work = modules
            .iter()
            .enumerate()
            .flat_map(|(index, (module, _))| {
                selected
                    .iter()
                    .filter(move |c| c.module == module.name)
                    .map(move |c| (index, c.clone()))
            })
            .collect();
        // The env's params stay values of the engine that evaluated them (their ext vars
        // are the module params); the components then get engines of their own.
        let (view, spare) = env_view(app, &env, engine, &modules)?;
        Ok(Worker {
            app,
            options,
            env,
            modules,
            all,
            work,
            view,
            spare,
            current: None,
        })
    }

    /// How many components the render has.
    pub(super) fn len(&self) -> usize {
        self.work.len()
    }

    /// The order to hand the list out in when several threads render it: each module's
    /// components heaviest first (see cost.rs), as positions in the list.
    pub(super) fn heaviest_first(&self) -> Vec<usize> {
        // Any engine of this env resolves imports alike; weighing evaluates nothing.
        let Some(engine) = self
            .spare
            .as_ref()
            .or(self.current.as_ref().map(|open| &open.engine))
            .or(self.view.engine())
        else {
            return (0..self.work.len()).collect();
        };
        let library = super::setup::library(self.app, &self.env);
        let mut weigher = Weigher::new(engine, library.as_ref().map(|l| l.path()));
        let weights: Vec<u64> = self
            .work
            .iter()
            .map(|(_, c)| weigher.weight(&c.path))
            .collect();
        let modules: Vec<usize> = self.work.iter().map(|(m, _)| *m).collect();
        heaviest_first(&modules, &weights)
    }

    /// Render component number `index` of the list.
    pub(super) fn render(&mut self, index: usize) -> Outcome {
        let Some((module, component)) = self.work.get(index).cloned() else {
            return Ok(Ok(Vec::new()));
        };
        let open = match self.current.take() {
            Some(open) if open.module == module => open,
            other => {
                if let Some(old) = other {
                    self.close(old);
                }
                self.open(module)?
            }
        };
        let mut outcome = self.component(&open, &component);
        // The objects the env's main.jsonnet adds under keys that name no component
        // (ksonnet's pipeline.go rendered every key of main's result), once per render:
        // with the first component of the list, when -c selects none.
        if index == 0 && self.options.components.is_empty() {
            outcome = match (outcome, self.env_objects(&open)) {
                (Ok(mut objects), Ok(extra)) => {
                    objects.extend(extra);
                    Ok(objects)
                }
                (Err(e), _) | (Ok(_), Err(e)) => Err(e),
            };
        }
        if let Some(format) = self.options.documents
            && let Ok(objects) = &mut outcome
        {
            objects
                .iter_mut()
                .for_each(|o| o.keep_document_only(format));
        }
        self.current = Some(open);
        Ok(outcome)
    }

    fn open(&mut self, index: usize) -> Result<Open, RenderError> {
        let (app, options) = (self.app, self.options);
        let (module, raw) = &self.modules[index];
        let members: Vec<&Component> = self
            .all
            .iter()
            .filter(|c| c.module == module.name)
            .collect();
        let engine = self
            .spare
            .take()
            .unwrap_or_else(|| super::new_engine(app, &self.env, options));
        // Every entry of the module's params, not only those with a component file:
        // apps keep shared blocks (`"t2t-job"`) that other components read.
        let locals: BTreeSet<&str> = raw
            .components
            .names()
            .chain(members.iter().map(|c| c.local.as_str()))
            .collect();
        engine.set_ext_val("__ksonnet/params", self.view.of_module(module, locals));
        let components = components::lazy_object(app, &members, &raw.components, &options.tla);
        let result = env_main(app, &self.env, &engine, components)?;
        Ok(Open {
            module: index,
            result,
            engine,
        })
    }

    fn component(
        &self,
        open: &Open,
        component: &Component,
    ) -> Result<Vec<RenderedObject>, ComponentError> {
        let (app, env) = (self.app, &self.env);
        let module = &self.modules[open.module].0;
        let blame = |message: String| ComponentError {
            component: component.name.clone(),
            message: blame_params(app, env, module, component, &self.view, message),
        };
        let not_objects =
            |message: String| blame(format!("{}: {message}", rel(app, &component.path)));
        let failed = |EvalError { message }| {
            let hint = api_hint(env, &message);
            blame(with_file(app, component, message) + &hint)
        };
        if matches!(component.format, ComponentFormat::Jsonnet) {
            return self.jsonnet_objects(open, component).map_err(|e| match e {
                ItemsError::Item(message) => not_objects(message),
                ItemsError::Eval(e) => failed(e),
            });
        }
        // A YAML/JSON component's value, and its env params to patch it with.
        let read = || -> Result<Option<(Value, Option<Value>)>, EvalError> {
            let Some(value) = open.engine.field_json(&open.result, &component.name)? else {
                return Ok(None);
            };
            Ok(Some((value, self.view.entry_json(&component.name)?)))
        };
        match read().map_err(failed)? {
            Some((value, patch)) => {
                to_objects(&component.name, value, patch.as_ref()).map_err(not_objects)
            }
            None => Ok(Vec::new()),
        }
    }

    /// A Jsonnet component's objects. A list, or objects nested in objects (Tanka's
    /// shape), is made JSON a piece at a time, each object checked, labelled and (for
    /// YAML output) printed before the next: the component is never JSON whole, and only
    /// its documents are kept.
    fn jsonnet_objects(
        &self,
        open: &Open,
        component: &Component,
    ) -> Result<Vec<RenderedObject>, ItemsError> {
        let mut objects = Vec::new();
        let mut each = |piece: Piece, value: Value| {
            let found = match piece {
                Piece::Item(i) => vec![(i, value)],
                Piece::Nested(path) => {
                    let mut found = Vec::new();
                    nested_objects(value, path, &mut found)?;
                    // Numbered as the component's objects, in the order they are found.
                    (objects.len()..).zip(found).collect()
                }
            };
            for (i, item) in found {
                let mut object = list_item(&component.name, i, item)?;
                if let Some(format) = self.options.documents {
                    object.keep_document_only(format);
                }
                objects.push(object);
            }
            Ok(())
        };
        match open
            .engine
            .field_json_items(&open.result, &component.name, &mut each)?
        {
            FieldJson::Pieces => Ok(objects),
            FieldJson::Whole(value) => {
                to_objects(&component.name, value, None).map_err(ItemsError::Item)
            }
            FieldJson::Missing => Ok(Vec::new()),
        }
    }

    /// The objects of the keys of the env's main.jsonnet that name no component (of any
    /// module: a patch of another module's component is not an object of its own), each
    /// labelled with its key as a component's are.
    fn env_objects(&self, open: &Open) -> Result<Vec<RenderedObject>, ComponentError> {
        let main = rel(self.app, &self.app.env_dir(&self.env).join("main.jsonnet"));
        let mut objects = Vec::new();
        for key in open.engine.visible_fields(&open.result) {
            if self.all.iter().any(|c| c.name == key) {
                continue;
            }
            let failed = |message: String| ComponentError {
                component: key.clone(),
                message: format!("{main} (a key that names no component): {message}"),
            };
            let Some(value) = open
                .engine
                .field_json(&open.result, &key)
                .map_err(|e| failed(e.message))?
            else {
                continue;
            };
            objects.extend(to_objects(&key, value, None).map_err(failed)?);
        }
        Ok(objects)
    }

    /// Done with a module: its object graph is freed, or kept when the process is about
    /// to exit ([`RenderOptions::leak_engines`]).
    fn close(&self, open: Open) {
        if self.options.leak_engines {
            std::mem::forget(open);
        }
    }

    /// Done with the render.
    pub(super) fn finish(mut self) {
        if let Some(open) = self.current.take() {
            self.close(open);
        }
        if self.options.leak_engines {
            self.view.leak();
        }
    }
}

/// The components `options` selects in `env`: all those of its target modules, or those
/// `-c` names (each once, in the order named).
fn select(
    app: &App,
    env: &Environment,
    modules: &ModuleParams,
    all: &[Component],
    options: &RenderOptions,
) -> Result<Vec<Component>, RenderError> {
    let in_targets = |c: &Component| modules.iter().any(|(m, _)| m.name == c.module);
    if options.components.is_empty() {
        return Ok(all.iter().filter(|c| in_targets(c)).cloned().collect());
    }
    let mut picked: Vec<Component> = Vec::new();
    for name in &options.components {
        let c = crate::app::find_component(all, name)?.clone();
        if !in_targets(&c) {
            return Err(RenderError::NotTargeted {
                module: app.module_of(&c).display_name().to_string(),
                component: c.name,
                env: env.name.clone(),
            });
        }
        if !picked.iter().any(|p| p.name == c.name) {
            picked.push(c);
        }
    }
    Ok(picked)
}
