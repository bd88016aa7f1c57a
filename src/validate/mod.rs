//! Offline validation of rendered objects: built-in kinds by a round trip through their
//! k8s-openapi types (a field the type does not have, or of the wrong type, shows up as a
//! difference), custom resources against their CRD's `openAPIV3Schema`, made strict so
//! that a misspelt field is an error rather than silently pruned by the API server.
//!
//! One concern a file: [`schema`] checks an object against its kind's schema, [`rules`]
//! holds what the API server checks beyond any schema, [`structural`] what it requires of
//! a CRD's own schema, [`retired`] which API versions a Kubernetes release no longer
//! serves, and [`kueue`] a check across objects: queued workloads no flavor admits.

pub mod kueue;
mod retired;
mod rules;
mod schema;
mod structural;

pub use retired::{RETIRED, Retired, k8s_minor, retired, served_problem, served_problem_for};
pub use rules::{
    api_server_rules, dns1123_label_problem, dns1123_subdomain_problem, quantity_problem,
};
pub use schema::{Validator, strict};
pub use structural::{Requirement, crd_problems, crd_requirement};

use serde_json::{Map, Value};

/// What validation found about one object.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The object would be rejected or changed by the API server.
    Error(String),
    /// No schema is known for the kind; the object was not checked.
    Unchecked(String),
}

/// How validation output names an object: `name`, or `name -n namespace` when the object
/// names its namespace (as the cluster commands print it after `Kind/`).
pub fn object_name(obj: &Map<String, Value>) -> String {
    let meta = obj.get("metadata");
    let field = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str);
    let name = field("name").unwrap_or("<unnamed>");
    match field("namespace") {
        Some(ns) => format!("{name} -n {ns}"),
        None => name.to_string(),
    }
}

/// Groups served by Kubernetes itself: the core group, un-dotted groups (`apps`,
/// `batch`, …) and `*.k8s.io`.
pub fn is_builtin_group(api_version: &str) -> bool {
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => !group.contains('.') || group.ends_with(".k8s.io"),
    }
}
