//! complete.go: what a junctor names must also be specified outside it.

use serde_json::{Map, Value};

use super::{junctors, object, properties};

/// complete.go: a field or items that one of the root's junctors constrains must also be
/// specified in the structural part at the same place, or the server could not prune or
/// default it. (The server checks this from the root's junctors only; so does kf.)
pub(super) fn completeness(root: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    for (name, nested) in junctors(root) {
        nested_completeness(nested, Some(root), at, &format!("{at}.{name}"), out);
    }
}

pub(super) fn nested_completeness(
    nested: &Map<String, Value>,
    structural: Option<&Map<String, Value>>,
    s_at: &str,
    v_at: &str,
    out: &mut Vec<String>,
) {
    let Some(structural) = structural else {
        out.push(format!(
            "{s_at}: Required value: because it is defined in {v_at}"
        ));
        return;
    };
    for (name, deeper) in junctors(nested) {
        nested_completeness(
            deeper,
            Some(structural),
            s_at,
            &format!("{v_at}.{name}"),
            out,
        );
    }
    if let Some(items) = object(nested, "items") {
        nested_completeness(
            items,
            object(structural, "items"),
            &format!("{s_at}.items"),
            &format!("{v_at}.items"),
            out,
        );
    }
    for (k, v) in properties(nested) {
        let field = object(structural, "properties")
            .and_then(|p| p.get(k))
            .and_then(Value::as_object);
        let (s, vv) = (
            format!("{s_at}.properties[{k}]"),
            format!("{v_at}.properties[{k}]"),
        );
        match field {
            Some(field) => nested_completeness(v, Some(field), &s, &vv, out),
            None => out.push(format!(
                "{s}: Required value: because it is defined in {vv}"
            )),
        }
    }
}
