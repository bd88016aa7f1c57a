//! A component's params against the prototype it records (kf writes the prototype's name
//! on the first line of the components it generates): which prototype that is, and which
//! of its values the prototype's declared types refuse.

use serde_json::Value;

use super::{Catalog, Conventions, Prototype, recorded_prototype};
use crate::app::{App, AppError, ComponentFormat};
use crate::params::{NotOfType, parse_typed};

/// The prototype a Jsonnet component was generated from, when it records one that this
/// app's catalog still has.
pub fn known_prototype(app: &App, component: &str) -> Result<Option<Prototype>, AppError> {
    let component = app.component_by_path(component)?;
    if component.format != ComponentFormat::Jsonnet {
        return Ok(None);
    }
    let Ok(source) = app.read_text(&component.path) else {
        return Ok(None);
    };
    let Some(name) = recorded_prototype(&source) else {
        return Ok(None);
    };
    // A catalog that cannot be read (a broken vendored prototype) leaves the component
    // unchecked, as it was before kf checked params: `kf show` reports the breakage.
    let Ok(mut catalog) = Catalog::for_app(Some(app)) else {
        return Ok(None);
    };
    Ok(catalog.prototypes.remove(name))
}

/// A param value of a component that its prototype's type refuses (set with `--force`,
/// or by hand in a params file).
#[derive(Debug, Clone, PartialEq)]
pub struct OffType {
    pub param: String,
    pub prototype: String,
    pub kind: &'static str,
    pub error: NotOfType,
}

/// The values in `params` (a component's params, as a render reads them) that are not of
/// the types the component's prototype declares: a value of the type, or text that reads
/// as one (`"4"` for an integer, as ksonnet-era params files hold it), passes. Nothing
/// for a component whose prototype is not one of kf's own (see [`value_to_set`]).
pub fn off_type_values(app: &App, component: &str, params: &Value) -> Vec<OffType> {
    let Ok(Some(proto)) = known_prototype(app, component) else {
        return Vec::new();
    };
    if proto.conventions != Conventions::Kf {
        return Vec::new();
    }
    let Some(values) = params.as_object() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for spec in &proto.params {
        let Some(value) = values.get(&spec.name) else {
            continue;
        };
        if spec.kind.accepts(value) {
            continue;
        }
        // Read back as typed: a string as its text, anything else as its JSON.
        let text = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let Err(error) = parse_typed(&text, spec.kind) else {
            continue;
        };
        found.push(OffType {
            param: spec.name.clone(),
            prototype: proto.name.clone(),
            kind: spec.kind.as_str(),
            error,
        });
    }
    found
}
