//! Turning a prototype and the user's param values into a component file and its params.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{ParamSpec, ParamType, Prototype};
use crate::params::{editor::render_key, to_jsonnet};

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum GenerateError {
    #[error("prototype {prototype} needs --{param} ({kind}: {description})")]
    MissingParam {
        prototype: String,
        param: String,
        kind: &'static str,
        description: String,
    },
    #[error("--{param}: '{value}' is not a valid {kind}{why}")]
    BadValue {
        param: String,
        value: String,
        kind: &'static str,
        why: String,
    },
    #[error("prototype {prototype} has no param '{param}'{hint}")]
    UnknownParam {
        prototype: String,
        param: String,
        hint: String,
    },
    #[error(
        "the prototype's default for '{param}' is not one {kind} value ({why}); pass --{param}, or fix the prototype's @optionalParam line"
    )]
    BadDefault {
        param: String,
        kind: &'static str,
        why: String,
    },
}

/// A value for a param: as typed on the command line, or already typed (values file).
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    Raw(String),
    Typed(Value),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    /// The component's Jsonnet source.
    pub source: String,
    /// Param name → Jsonnet source of its value, sorted by name.
    pub params: BTreeMap<String, String>,
}

pub fn instantiate(
    proto: &Prototype,
    component: &str,
    given: &BTreeMap<String, Given>,
) -> Result<Instance, GenerateError> {
    for name in given.keys() {
        if !proto.params.iter().any(|p| &p.name == name) {
            return Err(GenerateError::UnknownParam {
                prototype: proto.name.clone(),
                param: name.clone(),
                hint: crate::suggest::hint(name, proto.params.iter().map(|p| p.name.as_str())),
            });
        }
    }
    let mut params = BTreeMap::new();
    for spec in &proto.params {
        let value = match given.get(&spec.name) {
            Some(g) => typed(spec, g)?,
            None if spec.name == "name" => typed(spec, &Given::Raw(component.to_string()))?,
            None => match &spec.default {
                Some(d) => typed_default(spec, d)?,
                None => {
                    return Err(GenerateError::MissingParam {
                        prototype: proto.name.clone(),
                        param: spec.name.clone(),
                        kind: spec.kind.as_str(),
                        description: spec.description.clone(),
                    });
                }
            },
        };
        params.insert(spec.name.clone(), value);
    }
    let body = rewrite_imports(&proto.body);
    let accessor = if render_key(component) == component {
        format!(".{component}")
    } else {
        format!("[{}]", serde_json::to_string(component).unwrap_or_default())
    };
    let source = format!(
        "local env = std.extVar(\"__ksonnet/environments\");\nlocal params = std.extVar(\"__ksonnet/params\").components{accessor};\n{}",
        body.trim_start_matches('\n')
    );
    Ok(Instance { source, params })
}

fn bad(spec: &ParamSpec, value: &str, why: &str) -> GenerateError {
    GenerateError::BadValue {
        param: spec.name.clone(),
        value: value.to_string(),
        kind: spec.kind.as_str(),
        why: why.to_string(),
    }
}

fn typed(spec: &ParamSpec, given: &Given) -> Result<String, GenerateError> {
    let raw = match given {
        Given::Typed(v) => return typed_value(spec, v),
        Given::Raw(r) => r,
    };
    let number = || {
        crate::params::parse_value(raw, false)
            .ok()
            .filter(Value::is_number)
    };
    match spec.kind {
        ParamType::String => Ok(to_jsonnet(&Value::String(raw.clone()))),
        ParamType::Number => number()
            .map(|v| to_jsonnet(&v))
            .ok_or_else(|| bad(spec, raw, "")),
        ParamType::NumberOrString => Ok(to_jsonnet(
            &number().unwrap_or_else(|| Value::String(raw.clone())),
        )),
        ParamType::Boolean => match raw.to_ascii_lowercase().as_str() {
            "true" => Ok("true".into()),
            "false" => Ok("false".into()),
            _ => Err(bad(spec, raw, " (true or false)")),
        },
        ParamType::Object | ParamType::Array => {
            let v: Value =
                serde_json::from_str(raw).map_err(|e| bad(spec, raw, &format!(": {e}")))?;
            typed_value(spec, &v).map_err(|_| bad(spec, raw, ""))
        }
    }
}

fn typed_value(spec: &ParamSpec, v: &Value) -> Result<String, GenerateError> {
    let ok = match spec.kind {
        ParamType::String => v.is_string(),
        ParamType::Number => v.is_number(),
        ParamType::NumberOrString => v.is_number() || v.is_string(),
        ParamType::Boolean => v.is_boolean(),
        ParamType::Object => v.is_object(),
        ParamType::Array => v.is_array(),
    };
    if ok || v.is_null() {
        Ok(to_jsonnet(v))
    } else {
        Err(bad(spec, &v.to_string(), ""))
    }
}

/// Defaults in headers are Jsonnet source, except that strings may be written bare.
/// Source is evaluated (without imports) and the value re-printed, never pasted: a
/// default like `{"a":1},"evil":{"b":2}` must not add a field to params.libsonnet.
fn typed_default(spec: &ParamSpec, default: &str) -> Result<String, GenerateError> {
    let quoted = default.len() >= 2
        && (default.starts_with('"') && default.ends_with('"')
            || default.starts_with('\'') && default.ends_with('\''));
    match spec.kind {
        ParamType::String if !quoted => typed(spec, &Given::Raw(default.to_string())),
        ParamType::String | ParamType::Object | ParamType::Array => {
            let value =
                crate::engine::literal_to_json(default).map_err(|e| GenerateError::BadDefault {
                    param: spec.name.clone(),
                    kind: spec.kind.as_str(),
                    why: crate::app::error_summary(&e.message),
                })?;
            typed_value(spec, &value).map_err(|_| GenerateError::BadDefault {
                param: spec.name.clone(),
                kind: spec.kind.as_str(),
                why: format!("it is {value}"),
            })
        }
        _ if default == "null" => Ok("null".to_string()),
        _ => typed(spec, &Given::Raw(default.to_string())),
    }
}

/// `import 'param://x'` → `params.x`, `import 'env://x'` → `env.x`.
fn rewrite_imports(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(pos) = rest.find("import") {
        let (before, after) = rest.split_at(pos);
        out.push_str(before);
        let tail = &after["import".len()..];
        let spaced = tail.trim_start();
        let boundary_ok = before
            .chars()
            .last()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let quote = spaced.chars().next().filter(|c| *c == '\'' || *c == '"');
        if let (true, Some(q), true) = (boundary_ok, quote, tail.len() > spaced.len()) {
            let inner = &spaced[1..];
            for (scheme, local) in [("param://", "params"), ("env://", "env")] {
                if let Some(name_and_rest) = inner.strip_prefix(scheme) {
                    let name_len = name_and_rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(name_and_rest.len());
                    let name = &name_and_rest[..name_len];
                    // An undeclared param becomes `params.x` too, as ksonnet wrote it: real
                    // prototypes (Kubeflow's seldon core) import ones they never read.
                    if !name.is_empty() && name_and_rest[name_len..].starts_with(q) {
                        out.push_str(local);
                        out.push('.');
                        out.push_str(name);
                        rest = &name_and_rest[name_len + 1..];
                        break;
                    }
                }
            }
            if !std::ptr::eq(rest, after) && rest.len() < after.len() {
                continue;
            }
        }
        out.push_str("import");
        rest = tail;
    }
    out.push_str(rest);
    out
}
