//! Comparing live objects with what kf would apply.

use serde_json::Value;

/// Fields the server sets or keeps for itself; they are noise in a comparison.
const METADATA_NOISE: &[&str] = &[
    "managedFields",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "uid",
    "selfLink",
];

/// The object without server bookkeeping and status.
pub fn comparable(obj: &Value) -> Value {
    let mut v = obj.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("status");
        if let Some(Value::Object(m)) = o.get_mut("metadata") {
            for k in METADATA_NOISE {
                m.remove(*k);
            }
            if let Some(Value::Object(a)) = m.get_mut("annotations") {
                a.remove("kubectl.kubernetes.io/last-applied-configuration");
                if a.is_empty() {
                    m.remove("annotations");
                }
            }
        }
    }
    v
}

/// kubectl's mask for Secret values (kubectl/pkg/cmd/diff/diff.go, `Masker`): a value
/// that is the same on both sides is `***`; one that differs is `*** (before)` on the left
/// and `*** (after)` on the right, so a diff shows that a value changed, never the value
/// (not even a hash of it: a short secret's hash can be guessed).
pub fn mask_secrets(left: Option<&Value>, right: Option<&Value>) -> (Option<Value>, Option<Value>) {
    let is_secret = |v: Option<&Value>| v.is_some_and(|v| v["kind"] == "Secret");
    if !is_secret(left) && !is_secret(right) {
        return (left.cloned(), right.cloned());
    }
    let mut l = left.cloned();
    let mut r = right.cloned();
    for field in ["data", "stringData"] {
        let lmap = l
            .as_ref()
            .and_then(|v| v.get(field))
            .and_then(Value::as_object)
            .cloned();
        let rmap = r
            .as_ref()
            .and_then(|v| v.get(field))
            .and_then(Value::as_object)
            .cloned();
        let mask = |side: &mut Option<Value>,
                    own: &Option<serde_json::Map<String, Value>>,
                    other: &Option<serde_json::Map<String, Value>>,
                    changed: &str| {
            let (Some(side), Some(own)) = (side.as_mut(), own) else {
                return;
            };
            let masked: serde_json::Map<String, Value> = own
                .iter()
                .map(|(k, v)| {
                    let same = other.as_ref().and_then(|o| o.get(k)) == Some(v);
                    let shown = if same || other.is_none() && changed.is_empty() {
                        "***".to_string()
                    } else {
                        format!("*** ({changed})")
                    };
                    (k.clone(), Value::String(shown))
                })
                .collect();
            side[field] = Value::Object(masked);
        };
        let both = l.is_some() && r.is_some();
        mask(&mut l, &lmap, &rmap, if both { "before" } else { "" });
        mask(&mut r, &rmap, &lmap, if both { "after" } else { "" });
    }
    (l, r)
}

/// A unified diff of two YAML texts, or `None` when they are equal.
pub fn unified(left: &str, right: &str, left_name: &str, right_name: &str) -> Option<String> {
    if left == right {
        return None;
    }
    let diff = similar::TextDiff::from_lines(left, right);
    Some(
        diff.unified_diff()
            .context_radius(3)
            .header(left_name, right_name)
            .to_string(),
    )
}

/// YAML for a diff side (`""` for an absent object).
pub fn yaml(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(v) => serde_saphyr::to_string(v).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_values_are_masked_like_kubectl() {
        let before =
            json!({"kind": "Secret", "data": {"password": "aHVudGVyMg==", "user": "YQ=="}});
        let after = json!({"kind": "Secret", "data": {"password": "bmV3", "user": "YQ=="}, "stringData": {"token": "abc"}});
        let (l, r) = mask_secrets(Some(&before), Some(&after));
        let (l, r) = (l.unwrap(), r.unwrap());
        assert_eq!(l["data"]["password"], "*** (before)");
        assert_eq!(r["data"]["password"], "*** (after)");
        assert_eq!(
            (&l["data"]["user"], &r["data"]["user"]),
            (&json!("***"), &json!("***"))
        );
        assert_eq!(r["stringData"]["token"], "*** (after)");
        let shown = format!("{l}{r}");
        assert!(
            !shown.contains("aHVudGVyMg==") && !shown.contains("abc"),
            "{shown}"
        );
        let (_, only) = mask_secrets(None, Some(&after));
        assert_eq!(only.unwrap()["data"]["password"], "***");
        let cm = json!({"kind": "ConfigMap", "data": {"password": "visible"}});
        assert_eq!(mask_secrets(Some(&cm), None).0.unwrap(), cm);
    }

    #[test]
    fn server_noise_is_not_a_difference() {
        let live = json!({"kind": "ConfigMap", "metadata": {"name": "a", "uid": "1", "resourceVersion": "7",
            "managedFields": [], "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
            "data": {"k": "v"}, "status": {"x": 1}});
        let planned = json!({"kind": "ConfigMap", "metadata": {"name": "a", "uid": "1", "resourceVersion": "8"}, "data": {"k": "v"}});
        assert_eq!(comparable(&live), comparable(&planned));
        assert!(
            unified(
                &yaml(Some(&comparable(&live))),
                &yaml(Some(&comparable(&planned))),
                "a",
                "b"
            )
            .is_none()
        );
    }
}
