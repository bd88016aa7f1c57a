//! validation.go (apiextensions): the keywords a CRD's schema may not use, where defaults
//! may stand, and the `x-kubernetes-*` extensions' consistency.

use serde_json::{Map, Value};

use super::{flag, junctors, object, properties, type_of};

/// Whether a node sits in an object's metadata (where defaults are not allowed) and whether
/// it is the resource root (whose metadata, apiVersion and kind the server owns).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Meta {
    Root,
    Outside,
    Inside,
}

/// validation.go's `ValidateCustomResourceDefinitionOpenAPISchema`: keywords CRDs do not
/// support, and the `x-kubernetes-*` extensions' consistency, on every node.
pub(super) fn standard(node: &Map<String, Value>, at: &str, meta: Meta, out: &mut Vec<String>) {
    for (key, what) in [
        ("id", "id is not supported"),
        ("additionalItems", "additionalItems is not supported"),
        ("patternProperties", "patternProperties is not supported"),
        ("definitions", "definitions is not supported"),
        ("dependencies", "dependencies is not supported"),
        ("$ref", "$ref is not supported"),
    ] {
        if node.contains_key(key) {
            out.push(format!("{at}.{key}: Forbidden: {what}"));
        }
    }
    if type_of(node) == "null" {
        out.push(format!(
            "{at}.type: Forbidden: type cannot be set to null, use nullable as an alternative"
        ));
    }
    if !matches!(node.get("type"), None | Some(Value::String(_))) {
        out.push(format!("{at}.type: Invalid value: must be one string (use nullable or x-kubernetes-int-or-string for unions)"));
    }
    if matches!(node.get("items"), Some(Value::Array(_))) {
        out.push(format!(
            "{at}.items: Forbidden: items must be a schema object and not an array"
        ));
    }
    if node.contains_key("default") && meta == Meta::Inside {
        out.push(format!(
            "{at}.default: Forbidden: must not be set in top-level metadata, apiVersion or kind"
        ));
    }
    if meta == Meta::Inside && flag(node, "x-kubernetes-embedded-resource") {
        out.push(format!("{at}.x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta"));
    }
    if flag(node, "uniqueItems") {
        out.push(format!("{at}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    }
    if let Some(additional) = node.get("additionalProperties")
        && object(node, "properties").is_some_and(|p| !p.is_empty())
        && additional != &Value::Bool(true)
    {
        out.push(format!("{at}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"));
    }
    if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        out.push(format!("{at}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"));
    }
    extensions(node, at, out);

    if let Some(additional) = object(node, "additionalProperties") {
        standard(
            additional,
            &format!("{at}.additionalProperties"),
            meta.below(),
            out,
        );
    }
    let embedded = flag(node, "x-kubernetes-embedded-resource");
    for (k, v) in properties(node) {
        let sub = if (meta == Meta::Root || embedded)
            && matches!(k.as_str(), "metadata" | "apiVersion" | "kind")
        {
            // An embedded object's metadata may carry defaults; the resource root's may not.
            if meta == Meta::Root {
                Meta::Inside
            } else {
                Meta::Outside
            }
        } else {
            meta.below()
        };
        standard(v, &format!("{at}.properties[{k}]"), sub, out);
    }
    for (name, v) in junctors(node) {
        standard(v, &format!("{at}.{name}"), meta.below(), out);
    }
    if let Some(items) = object(node, "items") {
        standard(items, &format!("{at}.items"), meta.below(), out);
    }
}

impl Meta {
    fn below(self) -> Meta {
        match self {
            Meta::Root => Meta::Outside,
            other => other,
        }
    }
}

/// `x-kubernetes-list-type`, `-list-map-keys` and `-map-type` as validation.go checks them.
pub(super) fn extensions(node: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    let ty = type_of(node);
    if let Some(map_type) = node.get("x-kubernetes-map-type") {
        if ty != "object" {
            out.push(format!(
                "{at}.type: Required value: must be object if x-kubernetes-map-type is specified"
            ));
        }
        if !matches!(map_type.as_str(), Some("atomic" | "granular")) {
            out.push(format!("{at}.x-kubernetes-map-type: Unsupported value: {map_type}: supported values: \"atomic\", \"granular\""));
        }
    }
    let list_type = node.get("x-kubernetes-list-type");
    if let Some(list_type) = list_type {
        if ty != "array" {
            out.push(format!(
                "{at}.type: Required value: must be array if x-kubernetes-list-type is specified"
            ));
        }
        if !matches!(list_type.as_str(), Some("atomic" | "set" | "map")) {
            out.push(format!("{at}.x-kubernetes-list-type: Unsupported value: {list_type}: supported values: \"atomic\", \"map\", \"set\""));
        }
    }
    let keys: Vec<&str> = node
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let is_map = list_type.and_then(Value::as_str) == Some("map");
    if !keys.is_empty() && !is_map {
        out.push(format!("{at}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"));
    }
    if !is_map {
        return;
    }
    if keys.is_empty() {
        out.push(format!("{at}.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"));
    }
    let Some(items) = object(node, "items") else {
        out.push(format!(
            "{at}.items: Required value: must have a schema if x-kubernetes-list-type is map"
        ));
        return;
    };
    if type_of(items) != "object" {
        out.push(format!("{at}.items.type: Invalid value: must be object if parent array's x-kubernetes-list-type is map"));
        return;
    }
    let item_props = object(items, "properties");
    for (i, key) in keys.iter().enumerate() {
        match item_props.and_then(|p| p.get(*key)).and_then(Value::as_object) {
            Some(p) if matches!(type_of(p), "array" | "object") => out.push(format!(
                "{at}.items.properties[{key}].type: Invalid value: must be a scalar type if parent array's x-kubernetes-list-type is map"
            )),
            Some(_) => {}
            None => out.push(format!(
                "{at}.x-kubernetes-list-map-keys: Invalid value: entries must all be names of item properties ({key} is not)"
            )),
        }
        if keys[..i].contains(key) {
            out.push(format!("{at}.x-kubernetes-list-map-keys: Invalid value: must not contain duplicate entries ({key})"));
        }
    }
}
