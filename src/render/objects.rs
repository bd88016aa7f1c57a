//! A component's value → labelled Kubernetes objects (Lists flattened, YAML components
//! merge-patched with their env params).

use serde_json::{Map, Value};

use super::{COMPONENT_LABEL, RenderedObject};

/// One component's value → labelled objects.
pub(super) fn to_objects(
    component: &str,
    value: Value,
    patch: Option<&Value>,
) -> Result<Vec<RenderedObject>, String> {
    let value = match value {
        Value::Array(items) => {
            serde_json::json!({ "apiVersion": "v1", "kind": "List", "items": items })
        }
        other => other,
    };
    let Value::Object(mut obj) = value else {
        return Err(format!(
            "rendered {}, not a Kubernetes object or a list of them",
            crate::params::value::json_type(&value)
        ));
    };
    if let Some(p) = patch {
        let mut v = Value::Object(obj);
        merge_patch(&mut v, p);
        let Value::Object(o) = v else {
            unreachable!("patching an object with an object")
        };
        obj = o;
    }
    let items = if patch.is_none() && !obj.contains_key("apiVersion") && !obj.contains_key("kind") {
        // Tanka's shape: objects nested in objects (a chart's keyed objects, say).
        let mut found = Vec::new();
        nested_objects(Value::Object(obj), "", &mut found)?;
        found
    } else if obj.get("kind").and_then(Value::as_str) == Some("List") {
        match obj.remove("items") {
            Some(Value::Array(items)) => items,
            Some(Value::Null) | None => Vec::new(),
            Some(_) => return Err("a List's items must be an array".into()),
        }
    } else {
        vec![Value::Object(obj)]
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| list_item(component, i, item))
        .collect()
}

/// Item `i` of a component's list, checked to be a Kubernetes object and labelled.
pub(super) fn list_item(component: &str, i: usize, item: Value) -> Result<RenderedObject, String> {
    let Value::Object(mut o) = item else {
        return Err(format!(
            "item {i} is {}, not a Kubernetes object",
            crate::params::value::json_type(&item)
        ));
    };
    for field in ["apiVersion", "kind"] {
        if !o.get(field).is_some_and(Value::is_string) {
            let name = o
                .get("metadata")
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("<unnamed>");
            return Err(format!(
                "object '{name}' (item {i}) has no string `{field}`"
            ));
        }
    }
    label(&mut o, component);
    Ok(RenderedObject::new(component.to_string(), o))
}

/// The Kubernetes objects in a tree of objects and arrays, as Tanka finds them: a value
/// with an `apiVersion` or a `kind` is an object (checked by the caller), any other object
/// or array is looked into, in key order; `null` is nothing. Anything else is an error
/// naming its path.
pub(super) fn nested_objects(
    value: Value,
    path: &str,
    found: &mut Vec<Value>,
) -> Result<(), String> {
    match value {
        Value::Null => Ok(()),
        Value::Object(o) if o.contains_key("apiVersion") || o.contains_key("kind") => {
            if o.get("kind").and_then(Value::as_str) == Some("List")
                && let Some(Value::Array(items)) = o.get("items")
            {
                found.extend(items.iter().cloned());
            } else {
                found.push(Value::Object(o));
            }
            Ok(())
        }
        Value::Object(o) => {
            for (key, v) in o {
                nested_objects(v, &format!("{path}.{key}"), found)?;
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, v) in items.into_iter().enumerate() {
                nested_objects(v, &format!("{path}[{i}]"), found)?;
            }
            Ok(())
        }
        other => Err(format!(
            "{} at {path} is neither a Kubernetes object nor objects and arrays holding them",
            crate::params::value::json_type(&other)
        )),
    }
}

pub(super) fn label(obj: &mut Map<String, Value>, component: &str) {
    let metadata = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let Value::Object(metadata) = metadata else {
        unreachable!("just made an object")
    };
    let labels = metadata
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if !labels.is_object() {
        *labels = Value::Object(Map::new());
    }
    if let Value::Object(labels) = labels {
        labels.insert(
            COMPONENT_LABEL.to_string(),
            Value::String(component.to_string()),
        );
    }
}

/// RFC 7386 JSON merge patch (what Jsonnet's std.mergePatch does).
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else {
        unreachable!("just made an object")
    };
    for (k, v) in patch {
        if v.is_null() {
            t.remove(k);
        } else {
            merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
        }
    }
}
