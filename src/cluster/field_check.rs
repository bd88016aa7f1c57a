//! Unknown fields of custom resources, which an API server before 1.25 drops without a
//! word (a TFJob's `runPolicy.cleanPodPolicyy` is applied as if it were not there, and
//! the next diff says nothing changed). From 1.25 on the server checks them itself
//! (`fieldValidation=Strict` on the apply); before, kf checks each custom resource
//! against the schema of its CRD — the one in the render, else the one the server has —
//! before sending it, as kubectl's client-side validation did.

use std::collections::BTreeMap;

use serde_json::Value;

use super::client::Cluster;
use super::events::Reporter;
use super::item::Item;
use super::resources::Resources;
use super::version::MinorVersion;
use crate::validate::{Finding, Validator};

/// `--validate`: what an unknown or mistyped field of an object does (kubectl's flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValidation {
    /// The object is refused.
    Strict,
    /// A warning, and the object is applied (without the field).
    Warn,
    /// Nothing is checked.
    Ignore,
}

/// The first server version whose apply takes `fieldValidation`.
const SERVER_SIDE: MinorVersion = MinorVersion {
    major: 1,
    minor: 25,
};

/// How an apply checks fields: the query parameter to send (1.25+), or the objects to
/// refuse before sending, by [`key`], with the reason (older servers, checked here).
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub query: Option<&'static str>,
    pub refused: BTreeMap<String, String>,
}

/// The key [`Plan::refused`] knows an item by.
pub fn key(item: &Item) -> String {
    let ns = item
        .object
        .get("metadata")
        .and_then(|m| m["namespace"].as_str())
        .unwrap_or("");
    format!("{}/{}/{ns}/{}", item.api_version, item.kind, item.name)
}

/// The CRDs among `items` whose schemas this server cannot store, by [`key`], with the
/// version they need: refused before sending, since the server's own answer names a
/// field path and not the cause (a CEL rule, a `default: ""` on 1.20).
fn crds_too_new(items: &[Item], server: MinorVersion) -> BTreeMap<String, String> {
    let mut refused = BTreeMap::new();
    for item in items {
        if let Some(needs) = crate::validate::crd_requirement(&item.object)
            && server.major == 1
            && server.minor < needs.minor
        {
            refused.insert(
                key(item),
                format!(
                    "this CRD needs Kubernetes 1.{} or later (for {}) and the server runs {server}; apply it on a newer cluster, or install the operator's release made for this one (--validate=ignore sends it anyway)",
                    needs.minor, needs.what
                ),
            );
        }
    }
    refused
}

/// Decide how `items` are checked on this server, and check them when kf must.
pub async fn plan(
    cluster: &Cluster,
    resources: &Resources,
    items: &[Item],
    mode: FieldValidation,
    server: Option<MinorVersion>,
    reporter: &mut dyn Reporter,
) -> Plan {
    if mode == FieldValidation::Ignore {
        return Plan::default();
    }
    let too_new = server.map(|v| crds_too_new(items, v)).unwrap_or_default();
    if server.is_some_and(|v| v >= SERVER_SIDE) {
        return Plan {
            query: Some(match mode {
                FieldValidation::Warn => "Warn",
                _ => "Strict",
            }),
            refused: too_new,
        };
    }
    let mut validator = Validator::default();
    for item in items {
        validator.add_crds(&Value::Object(item.object.clone()));
    }
    let mut fetched = std::collections::BTreeSet::new();
    let mut plan = Plan {
        refused: too_new,
        ..Plan::default()
    };
    for item in items {
        if crate::validate::is_builtin_group(&item.api_version) {
            continue;
        }
        if !validator.knows(&item.api_version, &item.kind)
            && let Some(res) = resources.resolve(&item.api_version, &item.kind)
        {
            let crd = format!("{}.{}", res.api.plural, res.api.group);
            if fetched.insert(crd.clone()) {
                let path = format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{crd}");
                // Not readable (RBAC) or not there: the object goes unchecked, as before.
                if let Ok(reply) = cluster.get(&path).await {
                    validator.add_crds(&reply.body);
                }
            }
        }
        if let Some(Finding::Error(e)) = validator.validate(&item.object) {
            let reason = format!(
                "{e}; a server before 1.25 may drop such a field without a word, so kf refuses the object (fix the field, or pass --validate=warn)"
            );
            match mode {
                FieldValidation::Strict => {
                    plan.refused.insert(key(item), reason);
                }
                _ => reporter.warning(&format!(
                    "{}/{}: {e}; sent anyway (--validate=warn): the server may drop the field or refuse the object",
                    item.kind.to_ascii_lowercase(),
                    item.name
                )),
            }
        }
    }
    plan
}
