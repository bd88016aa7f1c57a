//! A Kubernetes swagger 2.0 spec read as ksonnet-lib reads it: which definitions are
//! top-level kinds (the bodies of POST/PATCH/PUT operations), which are the `hidden`
//! types, and what each property becomes (a plain setter, an object or array setter with
//! its `Mixin` twin, or a nested object of setters). The rules are ksonnet-lib's
//! (ksonnet/ksonnet-lib ksonnet-gen/ksonnet/{catalog,properties,paths,renderer}.go), so
//! that every path an old app calls exists in kf's generated library too.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::names::{Description, MAX_NAME_LEN, parse_description};

/// Recursive types ksonnet-lib treats as a plain object instead of nesting them.
const JSON_SCHEMA_PROPS: &str =
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.JSONSchemaProps";
/// References ksonnet-lib leaves out (unless required).
const BLOCKED_REFS: &[&str] = &[
    "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
];
/// Properties the server owns.
const BLOCKED_NAMES: &[&str] = &["status", "apiVersion", "kind"];

/// What a literal property's setters do with the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Literal {
    /// `withX(x)`: string, number, integer, boolean.
    Item,
    /// `withX(x)` and `withXMixin(x)` (merged with `+:`).
    Object,
    /// `withX(x)` and `withXMixin(x)`, a single value wrapped in an array.
    Array,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertyKind {
    Literal(Literal),
    /// A nested object of setters for the referenced definition.
    Reference(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub name: String,
    pub kind: PropertyKind,
    /// The definition `<name>Type` points at in `hidden` (array items, references).
    pub type_ref: Option<String>,
}

/// A definition ksonnet-lib renders.
#[derive(Debug, Clone)]
pub struct Definition {
    pub id: String,
    pub desc: Description,
    /// Sorted by name, as ksonnet-lib emits them.
    pub properties: Vec<Property>,
    /// `Some` for a top-level kind: (API group, version, kind) of its operations.
    pub component: Option<(String, String, String)>,
}

impl Definition {
    /// The group key it is filed under (`core` for the core group).
    pub fn group(&self) -> &str {
        self.desc.group_or_core()
    }

    /// The version it is filed under: the kind's own for top-level kinds.
    pub fn version(&self) -> &str {
        match &self.component {
            Some((_, v, _)) => v,
            None => &self.desc.version,
        }
    }

    pub fn kind(&self) -> &str {
        match &self.component {
            Some((_, _, k)) => k,
            None => &self.desc.kind,
        }
    }

    /// The `apiVersion` of a top-level kind.
    pub fn api_version(&self) -> Option<String> {
        let (group, version, _) = self.component.as_ref()?;
        Some(if group.is_empty() || group == "core" {
            version.clone()
        } else {
            format!("{group}/{version}")
        })
    }
}

/// The spec, as ksonnet-lib sees it.
#[derive(Debug, Clone)]
pub struct ApiSpec {
    /// `1.10.3`
    pub kubernetes_version: String,
    pub definitions: BTreeMap<String, Definition>,
}

/// Why a spec is no Kubernetes API spec kf can make a library of.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("the API spec is not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("the spec has no `definitions`: is it a Kubernetes swagger 2.0 spec?")]
    NoDefinitions,
    #[error("the spec has no info.version: is it a Kubernetes swagger 2.0 spec?")]
    NoVersion,
    #[error("the spec's info.version {0:?} is not a version")]
    BadVersion(String),
    #[error(
        "the spec has a {what} of {len} bytes ({head:?}…); kf reads names of at most {MAX_NAME_LEN} bytes, and Kubernetes names are far shorter: use the swagger.json the API server serves (/openapi/v2)"
    )]
    LongName {
        what: String,
        len: usize,
        head: String,
    },
    #[error(
        "the spec is too big to make a library of: {what}, over kf's bound of {limit}; a real API server's spec (its CRDs' included) is far smaller: check where it came from"
    )]
    TooBig { what: String, limit: String },
}

/// The most definitions kf makes a library of: Kubernetes has under 1,000, and a cluster
/// with thousands of CRDs stays far below this; each becomes one or two files.
pub const MAX_DEFINITIONS: usize = 50_000;

impl ApiSpec {
    pub fn from_swagger(spec: &Value) -> Result<ApiSpec, SpecError> {
        let raw_defs = spec
            .get("definitions")
            .and_then(Value::as_object)
            .ok_or(SpecError::NoDefinitions)?;
        let version = spec["info"]["version"]
            .as_str()
            .ok_or(SpecError::NoVersion)?;
        let kubernetes_version =
            semver_of(version).ok_or_else(|| SpecError::BadVersion(version.to_string()))?;
        if raw_defs.len() > MAX_DEFINITIONS {
            return Err(SpecError::TooBig {
                what: format!("{} definitions", raw_defs.len()),
                limit: format!("{MAX_DEFINITIONS} definitions"),
            });
        }
        let components = components(spec)?;
        let mut definitions = BTreeMap::new();
        for (id, schema) in raw_defs {
            check_name("definition name", id)?;
            // Since 1.7, the io.k8s.kubernetes.pkg.api names are old aliases.
            if id.starts_with("io.k8s.kubernetes.pkg.api") {
                continue;
            }
            let Some(desc) = parse_description(id) else {
                continue;
            };
            definitions.insert(
                id.clone(),
                Definition {
                    id: id.clone(),
                    desc,
                    properties: properties(raw_defs, id, schema)?,
                    component: components.get(id).cloned(),
                },
            );
        }
        // A nested object exists only for a hidden type ksonnet-lib knows.
        let hidden: BTreeSet<String> = definitions
            .values()
            .filter(|d| d.component.is_none())
            .map(|d| d.id.clone())
            .collect();
        for def in definitions.values_mut() {
            def.properties.retain(|p| match &p.kind {
                PropertyKind::Reference(r) => hidden.contains(r),
                PropertyKind::Literal(_) => true,
            });
        }
        Ok(ApiSpec {
            kubernetes_version,
            definitions,
        })
    }

    /// Top-level kinds whose objects hold `target` somewhere below them (`List` kinds
    /// excepted): the kinds k.libsonnet gives `mapContainers`.
    pub fn kinds_containing(&self, target: &str) -> Vec<&Definition> {
        let holders = self.holders_of(target);
        self.definitions
            .values()
            .filter(|d| d.component.is_some() && !d.kind().ends_with("List"))
            .filter(|d| holders.contains(d.id.as_str()))
            .collect()
    }

    /// Every definition from which a chain of references (nested objects, `xType` links)
    /// reaches `target`, never through JSONSchemaProps, which ksonnet-lib does not descend
    /// into. Found backwards from `target`, visiting each definition once, so that it
    /// costs the same whatever the number of kinds.
    fn holders_of(&self, target: &str) -> BTreeSet<&str> {
        let mut referrers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for def in self.definitions.values() {
            for p in &def.properties {
                let r = match &p.kind {
                    PropertyKind::Reference(r) => Some(r),
                    PropertyKind::Literal(_) => p.type_ref.as_ref(),
                };
                if let Some(r) = r {
                    referrers
                        .entry(r.as_str())
                        .or_default()
                        .push(def.id.as_str());
                }
            }
        }
        let mut holders = BTreeSet::new();
        let mut visited = BTreeSet::new();
        let mut todo = vec![target];
        while let Some(held) = todo.pop() {
            if !visited.insert(held) {
                continue;
            }
            for &holder in referrers.get(held).into_iter().flatten() {
                holders.insert(holder);
                if holder != JSON_SCHEMA_PROPS {
                    todo.push(holder);
                }
            }
        }
        holders
    }
}

/// `v1.10.3` → `1.10.3` (a missing patch or minor becomes 0).
fn semver_of(version: &str) -> Option<String> {
    let v = version.strip_prefix('v').unwrap_or(version);
    let core = v.split(['-', '+']).next()?;
    let mut nums = core.split('.').map(|n| n.parse::<u64>().ok());
    let major = nums.next()??;
    let minor = nums.next().unwrap_or(Some(0))?;
    let patch = nums.next().unwrap_or(Some(0))?;
    Some(format!("{major}.{minor}.{patch}"))
}

/// A name the spec gives, refused when it is longer than any Kubernetes name can be.
fn check_name(what: &str, name: &str) -> Result<(), SpecError> {
    if name.len() <= MAX_NAME_LEN {
        return Ok(());
    }
    Err(SpecError::LongName {
        what: what.to_string(),
        len: name.len(),
        head: name.chars().take(40).collect(),
    })
}

fn ref_of(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/definitions/")
}

/// Which definitions are top-level kinds: the body of a POST, PATCH or PUT, with the
/// operation's group/version/kind. Paths are visited in order and the last operation
/// wins (ksonnet-lib visits them in Go's random map order, which only matters for the
/// `Patch` body every kind shares).
fn components(spec: &Value) -> Result<BTreeMap<String, (String, String, String)>, SpecError> {
    let mut out = BTreeMap::new();
    let Some(paths) = spec.get("paths").and_then(Value::as_object) else {
        return Ok(out);
    };
    for item in paths.values() {
        for verb in ["post", "patch", "put"] {
            let Some(op) = item.get(verb) else { continue };
            let body = op
                .get("parameters")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|p| p["name"] == "body");
            let (Some(body), Some(gvk)) = (body, op.get("x-kubernetes-group-version-kind")) else {
                continue;
            };
            let (Some(target), Some(g), Some(v), Some(k)) = (
                ref_of(&body["schema"]),
                gvk["group"].as_str(),
                gvk["version"].as_str(),
                gvk["kind"].as_str(),
            ) else {
                continue;
            };
            for name in [g, v, k] {
                check_name("group, version or kind", name)?;
            }
            out.insert(
                target.to_string(),
                (g.to_string(), v.to_string(), k.to_string()),
            );
        }
    }
    Ok(out)
}

fn literal_of(schema_type: &str) -> Option<Literal> {
    match schema_type {
        "array" => Some(Literal::Array),
        "object" => Some(Literal::Object),
        "string" | "boolean" | "integer" | "number" => Some(Literal::Item),
        _ => None,
    }
}

fn properties(
    defs: &serde_json::Map<String, Value>,
    id: &str,
    schema: &Value,
) -> Result<Vec<Property>, SpecError> {
    let required: BTreeSet<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (name, p) in props {
        check_name(&format!("property name in definition {id}"), name)?;
        let reference = ref_of(p);
        let read_only = name != "readOnly"
            && p["description"]
                .as_str()
                .is_some_and(|d| d.to_ascii_lowercase().contains("read-only"));
        let skipped = BLOCKED_NAMES.contains(&name.as_str())
            || read_only
            || reference.is_some_and(|r| BLOCKED_REFS.contains(&r));
        if skipped && !required.contains(name.as_str()) {
            continue;
        }
        let item_ref = ref_of(&p["items"]);
        let property = |kind, type_ref: Option<&str>| Property {
            name: name.clone(),
            kind,
            type_ref: type_ref.map(str::to_string),
        };
        if reference == Some(JSON_SCHEMA_PROPS) {
            out.push(property(PropertyKind::Literal(Literal::Object), reference));
        } else if let Some(t) = p["type"].as_str() {
            if let Some(l) = literal_of(t) {
                out.push(property(PropertyKind::Literal(l), item_ref));
            }
        } else if let Some(r) = reference
            && let Some(target) = defs.get(r)
        {
            // A reference to a formatted scalar (Time, IntOrString) is a plain value.
            if target["format"].as_str().is_some_and(|f| !f.is_empty()) {
                if let Some(l) = target["type"].as_str().and_then(literal_of) {
                    out.push(property(PropertyKind::Literal(l), None));
                }
            } else {
                out.push(property(PropertyKind::Reference(r.to_string()), Some(r)));
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ApiSpec {
        ApiSpec::from_swagger(&serde_json::from_str(super::super::DEFAULT_SPEC).unwrap()).unwrap()
    }

    #[test]
    fn kinds_come_from_operations_and_the_rest_is_hidden() {
        let s = spec();
        assert_eq!(s.kubernetes_version, "1.10.3");
        let d = &s.definitions["io.k8s.api.apps.v1.Deployment"];
        assert_eq!(d.api_version().as_deref(), Some("apps/v1"));
        assert!(
            s.definitions["io.k8s.api.apps.v1.DeploymentSpec"]
                .component
                .is_none()
        );
        // CustomResourceDefinition has no group-version-kind of its own in v1.10.
        let crd = &s.definitions["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1beta1.CustomResourceDefinition"];
        assert_eq!(
            crd.api_version().as_deref(),
            Some("apiextensions.k8s.io/v1beta1")
        );
    }

    #[test]
    fn properties_are_typed_and_server_fields_left_out() {
        let s = spec();
        let d = &s.definitions["io.k8s.api.apps.v1.Deployment"];
        let names: Vec<&str> = d.properties.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["metadata", "spec"]);
        let meta = &s.definitions["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
        let names: Vec<&str> = meta.properties.iter().map(|p| p.name.as_str()).collect();
        assert!(
            names.contains(&"labels") && !names.contains(&"uid"),
            "{names:?}"
        );
        let spec = &s.definitions["io.k8s.api.core.v1.PodSpec"];
        let containers = spec
            .properties
            .iter()
            .find(|p| p.name == "containers")
            .unwrap();
        assert_eq!(containers.kind, PropertyKind::Literal(Literal::Array));
        assert_eq!(
            containers.type_ref.as_deref(),
            Some("io.k8s.api.core.v1.Container")
        );
        let port = &s.definitions["io.k8s.api.core.v1.ServicePort"];
        let target = port
            .properties
            .iter()
            .find(|p| p.name == "targetPort")
            .unwrap();
        assert_eq!(target.kind, PropertyKind::Literal(Literal::Item));
    }
}
