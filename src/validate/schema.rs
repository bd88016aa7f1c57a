//! An object against its kind's schema: built-in kinds by a round trip through their
//! k8s-openapi types, custom resources against their CRD's `openAPIV3Schema` made strict.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{
    Finding, api_server_rules, crd_requirement, is_builtin_group, k8s_minor, served_problem_for,
};

/// CRD schemas by (group, version, kind).
#[derive(Default)]
pub struct Validator {
    schemas: BTreeMap<(String, String, String), Value>,
    /// Compiled schemas, built when an object of the kind is first checked: compiling a
    /// large CRD schema costs far more than checking an object against it.
    compiled: BTreeMap<(String, String, String), Result<jsonschema::Validator, String>>,
    /// Embedded CRD files not read yet: (file name, JSON text). Parsing all of them
    /// costs ~100 ms, so each is read when an object first needs it.
    unread: Vec<(&'static str, &'static str)>,
    /// The Kubernetes version checked for, when known, and whose it is (the environment's
    /// k8sVersion, or the server's): kinds it no longer serves are errors.
    k8s_version: Option<(String, &'static str)>,
}

impl Validator {
    /// A validator that knows the CRDs kf carries: those of the built-in registry's
    /// packages (training-operator, mpi-operator, Trainer, JobSet, argo, KServe, Seldon,
    /// Emissary, …) and the schema-only copies in `schemas/crds/` (Istio, Flux, Kueue).
    pub fn with_builtin_crds() -> Validator {
        let unread = crate::embedded::FILES
            .iter()
            .copied()
            .filter(|(path, _)| {
                path.ends_with(".json")
                    && (path.starts_with("schemas/crds/")
                        || (path.starts_with("registry/") && path.contains("/crds/")))
            })
            .map(|(path, text)| (path.rsplit('/').next().unwrap_or(path), text))
            .collect();
        Validator {
            unread,
            ..Validator::default()
        }
    }

    /// Also refuse API versions that `version` (an env's k8sVersion) no longer serves,
    /// and CRDs it cannot store.
    pub fn for_k8s_version(mut self, version: &str) -> Validator {
        self.k8s_version = Some((version.to_string(), "the environment's k8sVersion"));
        self
    }

    /// The same for the version the cluster says it runs (`kf validate --server`).
    pub fn for_server_version(mut self, version: &str) -> Validator {
        self.k8s_version = Some((version.to_string(), "the server's"));
        self
    }

    /// Read the embedded CRD files that may define `group`/`kind`: first those named
    /// `<group>_<kind>s…` as upstream names them, then, if that was not it, the rest.
    fn load_for(&mut self, group: &str, version: &str, kind: &str) {
        let key = (group.to_string(), version.to_string(), kind.to_string());
        let likely = format!("{group}_{}", kind.to_ascii_lowercase());
        for pass in [true, false] {
            if self.schemas.contains_key(&key) || self.unread.is_empty() {
                return;
            }
            let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.unread)
                .into_iter()
                .partition(|(name, _)| !pass || name.starts_with(&likely));
            self.unread = later;
            for (_, text) in now {
                if let Ok(value) = serde_json::from_str::<Value>(text) {
                    self.add_crds(&value);
                }
            }
        }
    }

    /// Learn the CRDs in `value`: one CRD object, or an array or List of objects.
    pub fn add_crds(&mut self, value: &Value) {
        match value {
            Value::Array(items) => items.iter().for_each(|i| self.add_crds(i)),
            Value::Object(o) if o.get("kind").and_then(Value::as_str) == Some("List") => {
                if let Some(items) = o.get("items") {
                    self.add_crds(items);
                }
            }
            Value::Object(o)
                if o.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition") =>
            {
                let spec = &value["spec"];
                let (Some(group), Some(kind)) =
                    (spec["group"].as_str(), spec["names"]["kind"].as_str())
                else {
                    return;
                };
                // apiextensions v1: per-version schemas; v1beta1: `version` and one
                // top-level `validation` schema for every version.
                let mut versions: Vec<(String, Value)> = spec["versions"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|v| {
                        let schema = if v["schema"]["openAPIV3Schema"].is_null() {
                            spec["validation"]["openAPIV3Schema"].clone()
                        } else {
                            v["schema"]["openAPIV3Schema"].clone()
                        };
                        Some((v["name"].as_str()?.to_string(), schema))
                    })
                    .collect();
                if let Some(v) = spec["version"].as_str()
                    && !versions.iter().any(|(n, _)| n == v)
                {
                    versions.push((v.to_string(), spec["validation"]["openAPIV3Schema"].clone()));
                }
                for (name, mut schema) in versions {
                    if schema.is_null() {
                        continue;
                    }
                    strict(&mut schema);
                    // The API server handles these itself; some CRDs (Istio's) leave them
                    // out of their schema.
                    if let Some(Value::Object(props)) = schema.get_mut("properties") {
                        for (field, kind) in [
                            ("apiVersion", "string"),
                            ("kind", "string"),
                            ("metadata", "object"),
                        ] {
                            props
                                .entry(field)
                                .or_insert_with(|| serde_json::json!({ "type": kind }));
                        }
                    }
                    let key = (group.to_string(), name, kind.to_string());
                    // A CRD read later (the app's own) replaces what was compiled before.
                    self.compiled.remove(&key);
                    self.schemas.insert(key, schema);
                }
            }
            _ => {}
        }
    }

    pub fn knows(&self, api_version: &str, kind: &str) -> bool {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        self.schemas
            .contains_key(&(group.into(), version.into(), kind.into()))
    }

    /// Check one object: its schema, then the rules the API server adds on top of any
    /// schema (names, quantities, selectors, unique container names and ports).
    pub fn validate(&mut self, obj: &Map<String, Value>) -> Option<Finding> {
        let mut rules = api_server_rules(obj);
        if let Some((version, whose)) = &self.k8s_version {
            rules.splice(
                0..0,
                [
                    crd_version_problem(obj, version, whose),
                    served_problem_for(obj, version, whose),
                ]
                .into_iter()
                .flatten(),
            );
        }
        let schema = self.validate_schema(obj);
        if rules.is_empty() {
            return schema;
        }
        let mut problems = Vec::new();
        if let Some(Finding::Error(e)) = schema {
            problems.push(e);
        }
        problems.extend(rules);
        Some(Finding::Error(problems.join("\n  ")))
    }

    /// The object against its kind's schema alone.
    fn validate_schema(&mut self, obj: &Map<String, Value>) -> Option<Finding> {
        let api = obj
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
        let value = Value::Object(obj.clone());
        if is_builtin_group(api) {
            return match check_builtin(api, kind, &value) {
                Some(Ok(())) => None,
                Some(Err(e)) => Some(Finding::Error(e)),
                None => Some(Finding::Unchecked(format!(
                    "{api} {kind}: kf has no schema for this kind; not checked"
                ))),
            };
        }
        let (group, version) = api.split_once('/').unwrap_or(("", api));
        self.load_for(group, version, kind);
        let key = (group.to_string(), version.to_string(), kind.to_string());
        if !self.compiled.contains_key(&key) {
            let Some(schema) = self.schemas.get(&key) else {
                return Some(Finding::Unchecked(format!(
                    "{api} {kind}: no CRD for it in the built-in registry or the app; not checked"
                )));
            };
            let compiled = jsonschema::draft4::new(schema).map_err(|e| e.to_string());
            self.compiled.insert(key.clone(), compiled);
        }
        let validator = match &self.compiled[&key] {
            Ok(v) => v,
            Err(e) => return Some(Finding::Error(format!("{api} {kind}: its CRD schema: {e}"))),
        };
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{} {e}", if at.is_empty() { "/" } else { at.as_str() })
            })
            .collect();
        if errors.is_empty() {
            None
        } else {
            Some(Finding::Error(format!(
                "{api} {kind} does not match its CRD schema: {}",
                errors.join("; ")
            )))
        }
    }
}

/// The error for a CRD whose schemas need a newer Kubernetes than the env's k8sVersion.
fn crd_version_problem(obj: &Map<String, Value>, k8s_version: &str, whose: &str) -> Option<String> {
    let (major, minor) = k8s_minor(k8s_version)?;
    let needs = crd_requirement(obj)?;
    (major == 1 && minor < needs.minor).then(|| {
        format!(
            "Kubernetes {k8s_version} ({whose}) cannot store this CRD: it needs 1.{} or later for {}",
            needs.minor, needs.what
        )
    })
}

/// Structural schemas let the API server prune unknown fields silently; kf reports them:
/// every object schema with `properties` and no other rule for extra fields gets
/// `additionalProperties: false`. `nullable` becomes a JSON-Schema null type.
pub fn strict(schema: &mut Value) {
    let Value::Object(o) = schema else { return };
    let preserve = o.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if o.contains_key("properties") && !o.contains_key("additionalProperties") && !preserve {
        o.insert("additionalProperties".into(), Value::Bool(false));
    }
    if o.get("nullable") == Some(&Value::Bool(true))
        && let Some(Value::String(t)) = o.get("type").cloned()
    {
        o.insert("type".into(), serde_json::json!([t, "null"]));
    }
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = o.get_mut(key) {
            props.values_mut().for_each(strict);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(v) = o.get_mut(key) {
            strict(v);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(vs)) = o.get_mut(key) {
            vs.iter_mut().for_each(strict);
        }
    }
}

/// The round trip for a built-in kind (kf_kinds), or `None` when kf has no type for it:
/// `Err` names the first field the type dropped or could not read.
fn check_builtin(api: &str, kind: &str, obj: &Value) -> Option<Result<(), String>> {
    let what = format!("{api} {kind}");
    let back = match kf_kinds::round_trip(api, kind, obj)? {
        Ok(back) => back,
        Err(e) => return Some(Err(format!("{what}: {e}"))),
    };
    Some(match first_difference(obj, &back, String::new()) {
        None => Ok(()),
        Some(path) => Err(format!(
            "{what}: field {path} is unknown to Kubernetes or has the wrong type (the API server would drop or reject it)"
        )),
    })
}

/// The first path where `rendered` has something the typed round trip lost or changed.
fn first_difference(rendered: &Value, typed: &Value, path: String) -> Option<String> {
    match (rendered, typed) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{path}.{k}");
                match b.get(k) {
                    Some(w) => {
                        if let Some(d) = first_difference(v, w, p) {
                            return Some(d);
                        }
                    }
                    // Empty values may be dropped by the types without changing meaning.
                    None if v.is_null() => {}
                    None => return Some(p),
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, format!("{path}[{i}]"))),
        (a, b) if a == b => None,
        // Quantities and int-or-string fields take a number and come back as its text;
        // the API server accepts both.
        (Value::Number(n), Value::String(t)) if n.to_string() == *t => None,
        // 511 and 511.0: a float field of the type re-serialises an integer.
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        _ => Some(if path.is_empty() { "/".into() } else { path }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value, json};

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn builtin_kinds_catch_unknown_and_mistyped_fields() {
        let mut v = Validator::default();
        let good = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d"},
            "spec": {"selector": {"matchLabels": {"app": "d"}},
                     "template": {"metadata": {"labels": {"app": "d"}},
                                  "spec": {"containers": [{"name": "c", "image": "i",
                                     "resources": {"limits": {"nvidia.com/gpu": 2, "cpu": "500m"}}}]}}}});
        assert_eq!(v.validate(&obj(good.clone())), None);
        let mut typo = good.clone();
        typo["spec"]["replica"] = json!(3);
        match v.validate(&obj(typo)) {
            Some(Finding::Error(e)) => assert!(e.contains(".spec.replica"), "{e}"),
            other => panic!("{other:?}"),
        }
        let mut mistyped = good;
        mistyped["spec"]["replicas"] = json!("3");
        assert!(matches!(
            v.validate(&obj(mistyped)),
            Some(Finding::Error(_))
        ));
        let unknown =
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}});
        assert!(matches!(
            v.validate(&obj(unknown)),
            Some(Finding::Unchecked(_))
        ));
    }

    #[test]
    fn crd_schemas_are_strict() {
        let mut v = Validator::default();
        v.add_crds(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "spec": {"group": "example.com", "names": {"kind": "Widget"},
                     "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                       "metadata": {"type": "object"},
                                       "spec": {"type": "object", "properties": {"size": {"type": "integer"},
                                                "note": {"type": "string", "nullable": true}}}}}}}]}}));
        let ok = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                        "spec": {"size": 3, "note": null}});
        assert_eq!(v.validate(&obj(ok)), None);
        let typo = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                          "spec": {"sise": 3}});
        match v.validate(&obj(typo)) {
            Some(Finding::Error(e)) => assert!(e.contains("sise"), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    /// Each kind's schema is compiled once and reused; a CRD learnt later (the app's own
    /// copy of a kind kf also embeds) replaces the compiled one.
    #[test]
    fn a_crd_learnt_later_replaces_the_compiled_schema() {
        let crd = |size_type: &str| {
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": "example.com", "names": {"kind": "Widget"},
                         "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
                            "type": "object",
                            "properties": {"spec": {"type": "object",
                                           "properties": {"size": {"type": size_type}}}}}}}]}})
        };
        let widget = |size: Value| {
            obj(json!({"apiVersion": "example.com/v1", "kind": "Widget",
                       "metadata": {"name": "w"}, "spec": {"size": size}}))
        };
        let mut v = Validator::default();
        v.add_crds(&crd("integer"));
        assert_eq!(v.validate(&widget(json!(3))), None);
        assert!(matches!(
            v.validate(&widget(json!("3"))),
            Some(Finding::Error(_))
        ));
        assert_eq!(
            v.validate(&widget(json!(4))),
            None,
            "the compiled schema is reused"
        );
        v.add_crds(&crd("string"));
        assert_eq!(v.validate(&widget(json!("3"))), None);
        match v.validate(&widget(json!(3))) {
            Some(Finding::Error(e)) => assert!(e.contains("size"), "{e}"),
            other => panic!("the new schema applies: {other:?}"),
        }
    }
}
