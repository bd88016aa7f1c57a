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

/// Secret values replaced by a stable hash, so diffs and logs show that a value changed
/// without showing it.
pub fn redact_secrets(obj: &Value) -> Value {
    use sha2::{Digest, Sha256};
    let mut v = obj.clone();
    if v["kind"] != "Secret" {
        return v;
    }
    for field in ["data", "stringData"] {
        if let Some(Value::Object(m)) = v.get_mut(field) {
            for value in m.values_mut() {
                let text = match &*value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let digest = Sha256::digest(text.as_bytes());
                let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
                *value = Value::String(format!("<redacted sha256:{hex}>"));
            }
        }
    }
    v
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
    fn secrets_are_hashed_stably_and_other_kinds_untouched() {
        let s = json!({"kind": "Secret", "data": {"password": "aHVudGVyMg=="}, "stringData": {"token": "abc"}});
        let r = redact_secrets(&s);
        let shown = r.to_string();
        assert!(
            !shown.contains("aHVudGVyMg==") && !shown.contains("abc\""),
            "{shown}"
        );
        assert_eq!(r, redact_secrets(&s));
        assert_ne!(r["data"]["password"], r["stringData"]["token"]);
        let cm = json!({"kind": "ConfigMap", "data": {"password": "visible"}});
        assert_eq!(redact_secrets(&cm), cm);
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
