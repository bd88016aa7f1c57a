//! `app.yaml` and `app.override.yaml`: ksonnet's app model, in the 0.3.0 shape.
//!
//! Older apps (0.1.0, 0.2.0) are read and migrated in memory; fields kf does not model are
//! kept verbatim so that rewriting app.yaml never drops what ksonnet or a user put there.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const APP_KIND: &str = "ksonnet.io/app";
pub const OVERRIDE_KIND: &str = "ksonnet.io/app-override";
pub const CURRENT_API_VERSION: &str = "0.3.0";
pub const SUPPORTED_API_VERSIONS: &[&str] = &["0.0.1", "0.1.0", "0.2.0", "0.3.0"];
/// The version an environment without a k8sVersion is read as (ksonnet's, whose
/// ksonnet-lib apps were generated from it).
pub const DEFAULT_K8S_VERSION: &str = "v1.10.3";
/// The version `kf init` gives a new app's first environment: the Kubernetes release whose
/// API types `kf validate` checks against (k8s-openapi's v1_33).
pub const NEW_APP_K8S_VERSION: &str = "v1.33.0";

/// A field written with no value (`libraries:`, a bare key, which YAML reads as null) is
/// empty, as ksonnet reads it, not an error that refuses the whole app.
fn null_is_empty<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AppSpec {
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub environments: BTreeMap<String, EnvironmentSpec>,
    /// kf's identity of the app on a cluster (a random name `kf init` and `kf upgrade`
    /// record): two apps with the same `name` — kfctl named every app `ks_app` — never
    /// take over or prune each other's objects. ksonnet ignores it.
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<String>,
    /// Library folders every verb searches for imports after the app's own and before
    /// `-J` (relative to the app, inside its repository): a team's `-J`, kept with the app.
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub jpath: Vec<String>,
    pub kind: String,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub libraries: BTreeMap<String, Value>,
    pub name: String,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub registries: BTreeMap<String, Value>,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "Option::is_none"
    )]
    pub version: Option<String>,
    /// Everything else ksonnet allowed (description, authors, license, …), kept as written.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct EnvironmentSpec {
    #[serde(default, deserialize_with = "null_is_empty")]
    pub destination: Destination,
    #[serde(
        rename = "k8sVersion",
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "String::is_empty"
    )]
    pub k8s_version: String,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "String::is_empty"
    )]
    pub path: String,
    /// Modules this environment renders (`/` is the root module); empty means the root
    /// module alone, as ksonnet 0.13 read it.
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub targets: Vec<String>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

impl EnvironmentSpec {
    /// ksonnet's override rule for an env in both files: the override's k8sVersion and
    /// path replace; its destination and targets replace when set; the rest stays.
    pub fn overridden_by(&self, o: &EnvironmentSpec) -> EnvironmentSpec {
        let mut out = self.clone();
        if !o.k8s_version.is_empty() {
            out.k8s_version = o.k8s_version.clone();
        }
        if !o.path.is_empty() {
            out.path = o.path.clone();
        }
        if !o.destination.server.is_empty() || !o.destination.namespace.is_empty() {
            out.destination = o.destination.clone();
        }
        if !o.targets.is_empty() {
            out.targets = o.targets.clone();
        }
        for (k, v) in &o.extra {
            if k != "libraries" {
                out.extra.insert(k.clone(), v.clone());
            }
        }
        out
    }
}

impl OverrideSpec {
    /// True when the override file would say nothing (ksonnet then removes it).
    pub fn is_empty(&self) -> bool {
        self.environments.is_empty() && self.registries.is_empty() && self.extra.is_empty()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Destination {
    #[serde(default, deserialize_with = "null_is_empty")]
    pub namespace: String,
    #[serde(default, deserialize_with = "null_is_empty")]
    pub server: String,
}

/// `app.override.yaml`: local, usually git-ignored, environments and registries.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OverrideSpec {
    #[serde(rename = "apiVersion", default = "current_version")]
    pub api_version: String,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub environments: BTreeMap<String, EnvironmentSpec>,
    #[serde(default = "override_kind")]
    pub kind: String,
    #[serde(
        default,
        deserialize_with = "null_is_empty",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub registries: BTreeMap<String, Value>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

fn current_version() -> String {
    CURRENT_API_VERSION.to_string()
}

fn override_kind() -> String {
    OVERRIDE_KIND.to_string()
}

impl AppSpec {
    pub fn new(name: &str) -> Self {
        AppSpec {
            api_version: CURRENT_API_VERSION.to_string(),
            environments: BTreeMap::new(),
            id: Some(new_app_id()),
            jpath: Vec::new(),
            kind: APP_KIND.to_string(),
            libraries: BTreeMap::new(),
            name: name.to_string(),
            registries: BTreeMap::new(),
            version: Some("0.0.1".to_string()),
            extra: BTreeMap::new(),
        }
    }
}

impl Default for OverrideSpec {
    fn default() -> Self {
        OverrideSpec {
            api_version: current_version(),
            environments: BTreeMap::new(),
            kind: override_kind(),
            registries: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }
}

/// A new app id: 16 random hex digits (a valid label value, unlikely ever to repeat).
pub fn new_app_id() -> String {
    let mut bytes = [0u8; 8];
    // Without randomness (never on Unix), the time still tells two apps apart.
    if crate::signing::random_bytes(&mut bytes).is_err() {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or_default();
        bytes = (t ^ u64::from(std::process::id())).to_le_bytes();
    }
    crate::signing::hex(&bytes)
}

/// Whether `id` may be an app id: 8 to 63 lower-case letters and digits (it becomes a
/// label value).
pub fn is_app_id(id: &str) -> bool {
    (8..=63).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

#[cfg(test)]
mod app_id_tests {
    use super::{is_app_id, new_app_id};

    #[test]
    fn new_app_ids_are_app_ids_and_differ() {
        let (a, b) = (new_app_id(), new_app_id());
        assert!(is_app_id(&a) && is_app_id(&b), "{a} {b}");
        assert_ne!(a, b);
        assert!(!is_app_id("ks_app") && !is_app_id("ABCDEFGH12") && !is_app_id("short"));
    }
}
