//! KEP-3659 ApplySets, so that `kubectl` (and other tools that know the spec) can see the
//! set of objects kf applied for an app and environment: each member is labelled
//! `applyset.kubernetes.io/part-of: <id>`, and a parent Secret in the env's namespace
//! carries `applyset.kubernetes.io/id: <id>` and the annotations that describe the set
//! (tooling, contains-group-kinds, additional-namespaces).
//!
//! kf's own safety does not rest on the ApplySet: prune and delete check kf's labels and
//! field manager (`ownership`). The ID follows kubectl's `ApplySet.ID`
//! (kubectl/pkg/cmd/apply/applyset.go): `applyset-` + base64url, unpadded, of
//! sha256(`<name>.<namespace>.<kind>.<group>`) + `-v1`.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::labels;

pub const PART_OF: &str = "applyset.kubernetes.io/part-of";
pub const ID: &str = "applyset.kubernetes.io/id";
pub const TOOLING: &str = "applyset.kubernetes.io/tooling";
pub const CONTAINS_GROUP_KINDS: &str = "applyset.kubernetes.io/contains-group-kinds";
pub const ADDITIONAL_NAMESPACES: &str = "applyset.kubernetes.io/additional-namespaces";

/// The ApplySet of one app and environment, by its parent Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplySet {
    pub name: String,
    pub namespace: String,
}

/// RFC 4648 base64 with the URL-safe alphabet and no padding (Go's RawURLEncoding).
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
        }
    }
    out
}

/// `Deployment.apps`, `ConfigMap`: how the spec names a group and kind.
pub fn group_kind(api_version: &str, kind: &str) -> String {
    match api_version.split_once('/') {
        Some((group, _)) => format!("{kind}.{group}"),
        None => kind.to_string(),
    }
}

impl ApplySet {
    /// The set of `app` in `env`, parented in `namespace`: Secret `kf-<app>-<env>-<id>`,
    /// or `kf-<app>-<env>` for an app without an id (a valid object name, lower case).
    /// Two apps of one name have sets of their own once they have ids.
    pub fn for_env(app: &str, app_id: Option<&str>, env: &str, namespace: &str) -> ApplySet {
        let mut name = format!(
            "kf-{}-{}",
            labels::label_value(app),
            labels::label_value(env)
        );
        if let Some(id) = app_id {
            name = format!("{name}-{}", labels::label_value(id));
        }
        let name = name.to_ascii_lowercase().replace('_', "-");
        ApplySet {
            name: name.chars().take(253).collect(),
            namespace: namespace.to_string(),
        }
    }

    /// The set of `owner`'s app and environment, parented in `namespace`.
    pub fn of(owner: &super::ownership::Owner, namespace: &str) -> ApplySet {
        ApplySet::for_env(&owner.app, owner.app_id.as_deref(), &owner.env, namespace)
    }

    pub fn id(&self) -> String {
        let unencoded = format!("{}.{}.Secret.", self.name, self.namespace);
        format!(
            "applyset-{}-v1",
            base64url(&Sha256::digest(unencoded.as_bytes()))
        )
    }

    /// The parent Secret to apply, describing `group_kinds` and the members' namespaces.
    pub fn parent(
        &self,
        group_kinds: &BTreeSet<String>,
        namespaces: &BTreeSet<String>,
    ) -> Map<String, Value> {
        let others: Vec<&str> = namespaces
            .iter()
            .map(String::as_str)
            .filter(|n| !n.is_empty() && *n != self.namespace)
            .collect();
        let kinds: Vec<&str> = group_kinds.iter().map(String::as_str).collect();
        let v = json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {
                "name": self.name,
                "namespace": self.namespace,
                "labels": { ID: self.id() },
                "annotations": {
                    TOOLING: format!("kf/v{}", env!("CARGO_PKG_VERSION")),
                    CONTAINS_GROUP_KINDS: kinds.join(","),
                    ADDITIONAL_NAMESPACES: others.join(","),
                },
            },
        });
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_kubectls() {
        // kubectl's own test (pkg/cmd/apply/apply_test.go): Secret my-set in test.
        let set = ApplySet {
            name: "my-set".into(),
            namespace: "test".into(),
        };
        assert_eq!(
            set.id(),
            "applyset-0eFHV8ySqp7XoShsGvyWFQD3s96yqwHmzc4e0HR1dsY-v1"
        );
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
    }

    #[test]
    fn the_parent_describes_the_set() {
        let set = ApplySet::for_env("App_1", None, "prod", "ml");
        assert_eq!(set.name, "kf-app-1-prod");
        let kinds: BTreeSet<String> = [
            group_kind("apps/v1", "Deployment"),
            group_kind("v1", "ConfigMap"),
        ]
        .into();
        let namespaces: BTreeSet<String> = ["ml".to_string(), "other".to_string()].into();
        let parent = Value::Object(set.parent(&kinds, &namespaces));
        assert_eq!(
            parent["metadata"]["annotations"][CONTAINS_GROUP_KINDS],
            "ConfigMap,Deployment.apps"
        );
        assert_eq!(
            parent["metadata"]["annotations"][ADDITIONAL_NAMESPACES],
            "other"
        );
        assert_eq!(parent["metadata"]["labels"][ID], set.id());
    }
}
