//! `__ksonnet/components`: one lazy field per component, evaluated only when read.

use jrsonnet_evaluator::error::ErrorKind::RuntimeError;
use jrsonnet_evaluator::{IStr, ObjValue, Thunk, Val, val::ThunkValue, with_state};
use jrsonnet_gcmodule::Trace;
use serde_json::Value;

use crate::app::{App, Component, ComponentFormat};
use crate::engine::{TlaValue, json_to_val};

#[derive(Trace)]
struct ComponentThunk {
    #[trace(skip)]
    path: std::path::PathBuf,
    /// The app's root, to show the path relative to it in an error.
    #[trace(skip)]
    root: std::rc::Rc<std::path::Path>,
    #[trace(skip)]
    format: ComponentFormat,
    /// Module params of a YAML/JSON component, which is merge-patched with them.
    #[trace(skip)]
    params: Option<Value>,
    #[trace(skip)]
    tla: Vec<(String, TlaValue)>,
}

impl ThunkValue for ComponentThunk {
    type Output = Val;

    // jrsonnet's own TLA API takes a map keyed by its interned strings.
    #[allow(clippy::mutable_key_type)]
    fn get(&self) -> jrsonnet_evaluator::Result<Val> {
        match self.format {
            ComponentFormat::Jsonnet => {
                let val = with_state(|s| {
                    let resolved = s.resolve_from_default(&self.path.as_path())?;
                    s.import_resolved(resolved)
                })?;
                if matches!(val, Val::Func(_)) && !self.tla.is_empty() {
                    let mut args = jrsonnet_evaluator::rustc_hash::FxHashMap::default();
                    for (name, value) in &self.tla {
                        let arg = match value {
                            TlaValue::Str(s) => {
                                jrsonnet_evaluator::tla::TlaArg::String(s.as_str().into())
                            }
                            TlaValue::Code(c) => {
                                jrsonnet_evaluator::tla::TlaArg::InlineCode(c.clone())
                            }
                        };
                        args.insert(IStr::from(name.as_str()), arg);
                    }
                    return jrsonnet_evaluator::apply_tla(&args, val);
                }
                Ok(val)
            }
            ComponentFormat::Yaml | ComponentFormat::Json => {
                // Through the import resolver, so the sandbox covers YAML/JSON components
                // too: a components/x.yaml symlinked to ~/.kube/config is refused.
                let resolved = with_state(|s| s.resolve_from_default(&self.path.as_path()))?;
                let display = || {
                    let shown = self.path.strip_prefix(&self.root).unwrap_or(&self.path);
                    shown.display().to_string()
                };
                // Read by the resolver too: a regular file inside the sandbox, capped.
                let text = with_state(|s| s.import_resolved_str(resolved))?;
                let mut value = parse_component_file(&text, self.format)
                    .map_err(|e| RuntimeError(format!("{}: {e}", display()).into()))?;
                if let Some(p) = &self.params {
                    super::merge_patch(&mut value, p);
                }
                Ok(json_to_val(&value))
            }
        }
    }
}

/// Why a YAML or JSON component is no value.
#[derive(Debug, thiserror::Error)]
pub enum ComponentFileError {
    #[error("invalid JSON: {0}")]
    Json(#[source] serde_json::Error),
    /// The first line of the parser's message (the lines below quote the file).
    #[error("invalid YAML: {0}")]
    Yaml(String),
}

/// A YAML file with several documents becomes a v1 List; one document stays itself.
pub fn parse_component_file(
    text: &str,
    format: ComponentFormat,
) -> Result<Value, ComponentFileError> {
    if format == ComponentFormat::Json {
        return serde_json::from_str(text).map_err(ComponentFileError::Json);
    }
    let docs: Vec<Value> = serde_saphyr::from_multiple(text)
        .map_err(|e| ComponentFileError::Yaml(first_line(&e.to_string())))?;
    let mut docs: Vec<Value> = docs.into_iter().filter(|d| !d.is_null()).collect();
    Ok(match docs.len() {
        1 => docs.remove(0),
        _ => serde_json::json!({ "apiVersion": "v1", "kind": "List", "items": docs }),
    })
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

pub fn lazy_object(
    app: &App,
    components: &[&Component],
    raw_params: &super::Entries,
    tla: &[(String, TlaValue)],
) -> Val {
    let root: std::rc::Rc<std::path::Path> = std::rc::Rc::from(app.root.as_path());
    let mut builder = ObjValue::builder_with_capacity(components.len());
    for c in components {
        let thunk = ComponentThunk {
            path: c.path.clone(),
            root: root.clone(),
            format: c.format,
            // A Jsonnet component reads its params itself, through `__ksonnet/params`.
            params: match c.format {
                ComponentFormat::Jsonnet => None,
                ComponentFormat::Yaml | ComponentFormat::Json => raw_params.get(&c.local),
            },
            tla: tla.to_vec(),
        };
        builder.field(c.name.as_str()).thunk(Thunk::new(thunk));
    }
    Val::Obj(builder.build())
}
