//! `kf param set` against the component's prototype: the key must be one of its params
//! and the value of that param's type, read by the parser `kf generate` uses.
//!
//! Only components whose prototype is known are checked: kf records it on the first line
//! of the components it generates, and the prototype must be one of kf's own. Components
//! imported, written by hand, made by ksonnet (which recorded nothing) or from another
//! registry's prototypes are set as before, as is every value with `--force`.

use serde_json::Value;

use super::ParamError;
use crate::app::App;
use crate::params::{NotOfType, ParamType, parse_typed, parse_value, split_path};
use crate::prototype::conformance::known_prototype;
use crate::prototype::{Conventions, Prototype};

/// How `kf param set` reads the value it is given.
#[derive(Debug, Clone, Copy, Default)]
pub struct SetOptions {
    /// Store the value as a string, whatever it looks like.
    pub as_string: bool,
    /// Skip the checks against the component's prototype.
    pub force: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(
        "component '{component}' (prototype {prototype}) has no param '{key}'{hint}; `kf prototype describe {prototype}` lists its params, --force sets it anyway"
    )]
    UnknownParam {
        component: String,
        prototype: String,
        key: String,
        hint: String,
    },
    #[error(
        "component '{component}': cannot set {key}: '{param}' of prototype {prototype} is of type {kind}, not an object; set '{param}' itself, or --force"
    )]
    NotAnObject {
        component: String,
        prototype: String,
        key: String,
        param: String,
        kind: &'static str,
    },
    #[error(
        "component '{component}': {param}: an empty value, but prototype {prototype} requires it; give a value (--force stores it anyway)"
    )]
    EmptyRequired {
        component: String,
        prototype: String,
        param: String,
    },
    #[error("component '{component}': {problem} (--force stores it anyway)")]
    NameRule { component: String, problem: String },
    #[error(
        "component '{component}': {param}: {error}; prototype {prototype} declares it of type {kind} (--force stores it anyway)"
    )]
    WrongType {
        component: String,
        prototype: String,
        param: String,
        kind: &'static str,
        error: NotOfType,
    },
}

impl CheckError {
    fn boxed(self) -> ParamError {
        Box::new(self).into()
    }
}

/// The value `kf param set <component> <key> <raw>` stores: typed by the component's
/// prototype when kf knows it, else as ksonnet typed command-line values.
pub fn value_to_set(
    app: &App,
    component: Option<&str>,
    key: &str,
    raw: &str,
    options: SetOptions,
) -> Result<Value, ParamError> {
    let untyped = || parse_value(raw, options.as_string).map_err(Into::into);
    let Some(component) = component.filter(|_| !options.force) else {
        return untyped();
    };
    // Prototypes of other registries are not checked: ksonnet checked nothing, and
    // theirs read params they never declare (Kubeflow v0.5's tf-serving reads
    // `modelPath` and `numGpus`) and declare types loosely (`deployHttpProxy string
    // false`, set to `true`).
    let Some(proto) = known_prototype(app, component)
        .map_err(ParamError::App)?
        .filter(|p| p.conventions == Conventions::Kf)
    else {
        return untyped();
    };
    let Some(path) = split_path(key) else {
        return Err(ParamError::BadKey(key.to_string()));
    };
    let Some(spec) = proto.params.iter().find(|p| p.name == path[0]) else {
        return Err(CheckError::UnknownParam {
            component: component.to_string(),
            prototype: proto.name.clone(),
            key: path[0].clone(),
            hint: did_you_mean(&path[0], &proto),
        }
        .boxed());
    };
    if path.len() > 1 {
        if spec.kind != ParamType::Object {
            return Err(CheckError::NotAnObject {
                component: component.to_string(),
                prototype: proto.name.clone(),
                key: key.to_string(),
                param: spec.name.clone(),
                kind: spec.kind.as_str(),
            }
            .boxed());
        }
        return untyped();
    }
    if spec.default.is_none() && raw.trim().is_empty() {
        return Err(CheckError::EmptyRequired {
            component: component.to_string(),
            prototype: proto.name.clone(),
            param: spec.name.clone(),
        }
        .boxed());
    }
    let wrong = |error: NotOfType| CheckError::WrongType {
        component: component.to_string(),
        prototype: proto.name.clone(),
        param: spec.name.clone(),
        kind: spec.kind.as_str(),
        error,
    };
    let value = if options.as_string {
        let value = Value::String(raw.to_string());
        if !spec.kind.accepts(&value) {
            return Err(wrong(NotOfType {
                input: raw.to_string(),
                kind: spec.kind.as_str(),
                why: "--as-string makes it a string; ".into(),
                forms: "it without --as-string",
            })
            .boxed());
        }
        value
    } else {
        parse_typed(raw, spec.kind).map_err(|e| wrong(e).boxed())?
    };
    if spec.name == "name"
        && let Some(problem) = value.as_str().and_then(|n| proto.name_problem(n))
    {
        return Err(CheckError::NameRule {
            component: component.to_string(),
            problem,
        }
        .boxed());
    }
    Ok(value)
}

/// ` (did you mean 'numWorkers'?)`, or nothing when no param is close.
fn did_you_mean(key: &str, proto: &Prototype) -> String {
    let close = crate::suggest::closest(key, proto.params.iter().map(|p| p.name.as_str()));
    if close.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = close.iter().map(|c| format!("'{c}'")).collect();
    format!(" (did you mean {}?)", quoted.join(" or "))
}
