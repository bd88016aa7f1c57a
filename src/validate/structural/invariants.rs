//! validation.go (schema): the structural invariants, a `type` on every specified node,
//! nothing but value checks inside the junctors, metadata limited to name and generateName.

use serde_json::{Map, Value};

use super::{Level, flag, junctors, object, properties, type_of};

/// schema/validation.go's `validateStructuralInvariants`: the structural part of a node
/// (type, properties, items, additionalProperties) and what may stand beside it.
pub(super) fn invariants(node: &Map<String, Value>, level: Level, at: &str, out: &mut Vec<String>) {
    let ty = type_of(node);
    let int_or_string = flag(node, "x-kubernetes-int-or-string");
    let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(node, "x-kubernetes-embedded-resource");

    if ty == "array" && !node.contains_key("items") {
        out.push(format!("{at}.items: Required value: must be specified"));
    }
    if let Some(items) = object(node, "items") {
        invariants(items, Level::Item, &format!("{at}.items"), out);
    }
    for (k, v) in properties(node) {
        invariants(v, Level::Field, &format!("{at}.properties[{k}]"), out);
    }
    if node.contains_key("additionalProperties") {
        if level == Level::Root {
            out.push(format!(
                "{at}.additionalProperties: Forbidden: must not be used at the root"
            ));
        }
        if let Some(additional) = object(node, "additionalProperties") {
            invariants(
                additional,
                Level::Field,
                &format!("{at}.additionalProperties"),
                out,
            );
        }
    }
    if int_or_string && preserve {
        out.push(format!("{at}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true"));
    }
    if int_or_string && embedded {
        out.push(format!("{at}.x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true"));
    }
    value_validation(node, at, out);

    if embedded && ty != "object" {
        out.push(format!(
            "{at}.type: Required value: must be object if x-kubernetes-embedded-resource is true"
        ));
    } else if ty.is_empty() && !int_or_string && !preserve {
        let why = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        out.push(format!("{at}.type: Required value: {why}"));
    }
    if embedded && node.contains_key("additionalProperties") {
        out.push(format!("{at}.additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set"));
    }
    if level == Level::Root && !ty.is_empty() && ty != "object" {
        out.push(format!(
            "{at}.type: Invalid value: \"{ty}\": must be object at the root"
        ));
    }
    if level == Level::Root || embedded {
        for (field, want) in [
            ("kind", "string"),
            ("apiVersion", "string"),
            ("metadata", "object"),
        ] {
            if let Some(p) = object(node, "properties")
                .and_then(|p| p.get(field))
                .and_then(Value::as_object)
                && type_of(p) != want
            {
                out.push(format!(
                    "{at}.properties[{field}].type: Invalid value: \"{}\": must be {want}",
                    type_of(p)
                ));
            }
        }
    }
    if level == Level::Root
        && let Some(metadata) = object(node, "properties")
            .and_then(|p| p.get("metadata"))
            .and_then(Value::as_object)
        && !metadata_is_implicit(metadata)
    {
        out.push(format!(
            "{at}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
        ));
    }
    if embedded && !preserve && properties(node).next().is_none() {
        out.push(format!("{at}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
    }
}

/// The resource root's metadata may say that it is an object, give a default, and
/// restrict name and generateName; anything more is the server's to define.
pub(super) fn metadata_is_implicit(metadata: &Map<String, Value>) -> bool {
    metadata.iter().all(|(k, v)| match k.as_str() {
        "type" | "default" => true,
        "properties" => v
            .as_object()
            .is_some_and(|p| p.keys().all(|k| k == "name" || k == "generateName")),
        _ => false,
    })
}

/// `anyOf: [{type: integer}, {type: string}]`: the one pattern (int-or-string) whose
/// junctor may carry types.
pub(super) fn is_int_or_string_any_of(node: &Map<String, Value>) -> bool {
    node.get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|any| {
            any.len() == 2
                && any[0] == serde_json::json!({"type": "integer"})
                && any[1] == serde_json::json!({"type": "string"})
        })
}

/// The junctors of a structural node: nothing inside them may say what the value *is*
/// (type, default, description, extensions), only what it must satisfy.
pub(super) fn value_validation(node: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    let skip_any_of = is_int_or_string_any_of(node);
    let first_all_of_is_int_or_string = node
        .get("allOf")
        .and_then(Value::as_array)
        .and_then(|all| all.first())
        .and_then(Value::as_object)
        .is_some_and(is_int_or_string_any_of);
    for (name, nested) in junctors(node) {
        if name.starts_with("anyOf") && skip_any_of {
            continue;
        }
        let skip_nested_any_of = name == "allOf[0]" && first_all_of_is_int_or_string;
        nested_value_validation(nested, skip_nested_any_of, &format!("{at}.{name}"), out);
    }
}

pub(super) fn nested_value_validation(
    node: &Map<String, Value>,
    skip_any_of: bool,
    at: &str,
    out: &mut Vec<String>,
) {
    for (name, nested) in junctors(node) {
        if !(skip_any_of && name.starts_with("anyOf")) {
            nested_value_validation(nested, false, &format!("{at}.{name}"), out);
        }
    }
    if let Some(items) = object(node, "items") {
        nested_value_validation(items, false, &format!("{at}.items"), out);
    }
    for (k, v) in properties(node) {
        nested_value_validation(v, false, &format!("{at}.properties[{k}]"), out);
    }
    let set = |key: &str| match node.get(key) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    };
    for (key, why) in [
        ("type", "must be empty to be structural"),
        ("additionalProperties", "must be undefined to be structural"),
        ("default", "must be undefined to be structural"),
        ("title", "must be empty to be structural"),
        ("description", "must be empty to be structural"),
        ("nullable", "must be false to be structural"),
        (
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ),
        (
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        ),
        (
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        ),
    ] {
        if set(key) {
            out.push(format!("{at}.{key}: Forbidden: {why}"));
        }
    }
    if object(node, "properties").is_some_and(|p| p.contains_key("metadata")) {
        out.push(format!(
            "{at}.properties[metadata]: Forbidden: must not be specified in a nested context"
        ));
    }
}
