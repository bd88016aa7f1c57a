//! The labels kf puts on what it applies, so it can find its own objects again (prune,
//! delete, status) and never touch anybody else's.

use serde_json::{Map, Value};

pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const APP: &str = "kf.dev/app";
pub const ENVIRONMENT: &str = "kf.dev/environment";
/// The app's id (app.yaml `id`), which tells apart two apps of the same name.
pub const APP_ID: &str = "kf.dev/app-id";
/// `kf.dev/prune: never` keeps an object from ever being pruned.
pub const PRUNE: &str = "kf.dev/prune";

/// A string made into a valid label value: at most 63 characters of `[A-Za-z0-9-_.]`,
/// starting and ending alphanumeric. A value that had to change (`us-west/prod` →
/// `us-west.prod-<hash>`) or be shortened keeps a hash of the original, so two never collide.
pub fn label_value(s: &str) -> String {
    let mapped: String = s
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            '/' => '.',
            _ => '-',
        })
        .collect();
    let trimmed = mapped.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    if trimmed.len() <= 63 && trimmed == s {
        return trimmed.to_string();
    }
    let hash = s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    });
    // A changed or shortened value keeps a hash of the original, so that `a/b` and `a.b`
    // (or `prod_` and `prod`) never share a label and one env's prune never sees the other's.
    let head: String = trimmed.chars().take(54).collect();
    format!(
        "{}-{:08x}",
        head.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()),
        hash as u32
    )
}

/// The label selector for an app's objects in one environment.
pub fn selector(app: &str, env: &str) -> String {
    format!(
        "{MANAGED_BY}=kf,{APP}={},{ENVIRONMENT}={}",
        label_value(app),
        label_value(env)
    )
}

/// Add kf's labels to an object about to be applied (the app id's when the app has one).
pub fn add(obj: &mut Map<String, Value>, app: &str, app_id: Option<&str>, env: &str) {
    let metadata = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    let labels = metadata
        .as_object_mut()
        .expect("made an object above")
        .entry("labels")
        .or_insert_with(|| Value::Object(Map::new()));
    if !labels.is_object() {
        *labels = Value::Object(Map::new());
    }
    let labels = labels.as_object_mut().expect("made an object above");
    labels.insert(MANAGED_BY.into(), "kf".into());
    labels.insert(APP.into(), label_value(app).into());
    labels.insert(ENVIRONMENT.into(), label_value(env).into());
    if let Some(id) = app_id {
        labels.insert(APP_ID.into(), label_value(id).into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_valid_and_distinct() {
        assert_eq!(label_value("prod"), "prod");
        let nested = label_value("us-west/prod");
        assert!(
            nested.starts_with("us-west.prod-") && nested.len() <= 63,
            "{nested}"
        );
        assert_ne!(nested, label_value("us-west.prod"));
        assert_ne!(label_value("prod_"), label_value("prod"));
        let long = "a".repeat(80);
        let v = label_value(&long);
        assert!(v.len() <= 63, "{v}");
        assert_ne!(v, label_value(&format!("{long}b")));
    }
}
