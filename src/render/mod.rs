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
//! Components are evaluated on several threads where the machine has the cores
//! (parallel.rs), each thread with engines of its own (worker.rs).

mod blame;
mod components;
mod cost;
mod entries;
mod env_view;
pub mod ksonnet_compat;
mod objects;
mod order;
pub mod output;
mod parallel;
mod params;
mod setup;
mod worker;

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::app::{App, AppError};
use crate::engine::TlaValue;

pub use components::parse_component_file;
pub use entries::{Entries, ModuleParams, RawParams};
pub use objects::merge_patch;
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
    /// Threads that evaluate components at once, each with engines of its own: 0 for one
    /// per core and per six components (at most 4), 1 for this thread alone. The result
    /// is the same either way.
    pub workers: usize,
    /// Make each object's YAML document, or its JSON as an item of `-o json`'s List, on
    /// the thread that rendered it (while other threads still evaluate), and keep of the
    /// object itself only what orders the objects (apiVersion, kind, metadata's name and
    /// namespace): for a caller that prints the documents. One that reads or changes an
    /// object must leave this `None`.
    pub documents: Option<DocumentFormat>,
}

/// The text [`RenderOptions::documents`] makes of each object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentFormat {
    Yaml,
    Json,
}

#[derive(Debug, Clone)]
pub struct RenderedObject {
    pub component: String,
    pub object: Map<String, Value>,
    /// `object`'s YAML document or JSON item, made on the thread that rendered it when
    /// [`RenderOptions::documents`] asked for it; `object` then keeps only what orders
    /// the objects.
    document: Option<(DocumentFormat, String)>,
}

impl RenderedObject {
    pub fn new(component: String, object: Map<String, Value>) -> RenderedObject {
        RenderedObject {
            component,
            object,
            document: None,
        }
    }

    /// The object's YAML document ([`output::yaml_document`]) if the render made it.
    pub fn yaml_document(&self) -> Option<&str> {
        match &self.document {
            Some((DocumentFormat::Yaml, text)) => Some(text),
            _ => None,
        }
    }

    /// The object's JSON as an item of `-o json`'s List ([`output::json_item`]) if the
    /// render made it.
    pub fn json_item(&self) -> Option<&str> {
        match &self.document {
            Some((DocumentFormat::Json, text)) => Some(text),
            _ => None,
        }
    }

    /// Whether the render made the object's text and kept only what orders it.
    pub fn has_document(&self) -> bool {
        self.document.is_some()
    }

    /// Make the document and keep of the object only what orders it
    /// ([`order::ordering_fields`]): the rest is freed on the thread that rendered it,
    /// whose next components reuse the memory instead of touching new pages. Once: a
    /// second call changes nothing.
    fn keep_document_only(&mut self, format: DocumentFormat) {
        if self.document.is_some() {
            return;
        }
        let text = match format {
            DocumentFormat::Yaml => output::yaml_document(&self.object),
            DocumentFormat::Json => output::json_item(&self.object),
        };
        self.document = Some((format, text));
        self.object = order::ordering_fields(&self.object);
    }
}

/// Two renders are equal when their objects are: a document only repeats its object. An
/// object whose document the render made keeps only what orders it, so where both have a
/// document the documents are compared too.
impl PartialEq for RenderedObject {
    fn eq(&self, other: &RenderedObject) -> bool {
        self.component == other.component
            && self.object == other.object
            && match (&self.document, &other.document) {
                (Some(mine), Some(theirs)) => mine == theirs,
                _ => true,
            }
    }
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
/// still stops it. Components are evaluated on as many threads as
/// [`RenderOptions::workers`] says; the result is the same on one.
pub fn render_partial(
    app: &App,
    env_name: &str,
    options: &RenderOptions,
) -> Result<(Vec<RenderedObject>, Vec<ComponentError>), RenderError> {
    parallel::render_partial(app, env_name, options)
}
