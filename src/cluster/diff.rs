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
