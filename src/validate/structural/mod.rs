//! What the API server requires of a CustomResourceDefinition's own schemas before it
//! stores the CRD. Since apiextensions.k8s.io/v1 every schema must be *structural*; a CRD
//! that is not is refused whole (422), so every custom resource of it fails to apply.
//!
//! The rules are Kubernetes' own, read from the apiextensions-apiserver source (v1.20.2,
//! unchanged in substance since): `pkg/apiserver/schema/validation.go` (the structural
//! invariants: a `type` on every specified node, nothing but value checks inside
//! `allOf`/`anyOf`/`oneOf`/`not`, metadata limited to name and generateName),
//! `pkg/apiserver/schema/complete.go` (every field a junctor names is also specified outside
//! it) and `pkg/apis/apiextensions/validation/validation.go` (keywords CRDs do not support,
//! `x-kubernetes-*` consistency, where defaults may stand). Problems are reported with the
//! server's own field paths, so the message kf prints is the one a server would give.

mod completeness;
mod invariants;
mod keywords;

use serde_json::{Map, Value};

use completeness::completeness;
use invariants::invariants;
use keywords::{Meta, standard};

/// Why the API server would refuse `obj`, a CustomResourceDefinition, for its schemas:
/// `field.path: problem` lines, empty when it would accept them (or `obj` is no CRD).
pub fn crd_problems(obj: &Map<String, Value>) -> Vec<String> {
    let api = obj.get("apiVersion").and_then(Value::as_str);
    if obj.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
        return Vec::new();
    }
    let spec = obj.get("spec").and_then(Value::as_object);
    let mut out = Vec::new();
    match (api, spec) {
        (Some("apiextensions.k8s.io/v1"), Some(spec)) => {
            let versions = spec.get("versions").and_then(Value::as_array);
            for (i, version) in versions.into_iter().flatten().enumerate() {
                let at = format!("spec.versions[{i}].schema.openAPIV3Schema");
                match version.pointer("/schema/openAPIV3Schema") {
                    Some(Value::Object(schema)) => check_schema(schema, &at, &mut out),
                    _ => out.push(format!("{at}: Required value: schemas are required")),
                }
            }
        }
        // v1beta1 asks for a structural schema only of a CRD that turns pruning on.
        (Some("apiextensions.k8s.io/v1beta1"), Some(spec))
            if spec.get("preserveUnknownFields") == Some(&Value::Bool(false)) =>
        {
            if let Some(Value::Object(schema)) = spec
                .get("validation")
                .and_then(|v| v.get("openAPIV3Schema"))
            {
                check_schema(schema, "spec.validation.openAPIV3Schema", &mut out);
            }
            let versions = spec.get("versions").and_then(Value::as_array);
            for (i, version) in versions.into_iter().flatten().enumerate() {
                if let Some(Value::Object(schema)) = version.pointer("/schema/openAPIV3Schema") {
                    let at = format!("spec.versions[{i}].schema.openAPIV3Schema");
                    check_schema(schema, &at, &mut out);
                }
            }
        }
        _ => {}
    }
    out
}

/// A feature of a CRD's schemas that API servers before `1.<minor>` cannot store, and
/// where the first use of it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Requirement {
    pub minor: u32,
    pub what: String,
}

/// The newest Kubernetes minor that `obj`, a CRD, needs of the API server, if any; what an
/// older server does with such a CRD is a refusal whose message points nowhere near the
/// cause (1.20: `failed to create typed patch object: … x-kubernetes-validations: field
/// not declared in schema`, or `default: Invalid value: "null"` for a default of "").
pub fn crd_requirement(obj: &Map<String, Value>) -> Option<Requirement> {
    if obj.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
        return None;
    }
    let spec = obj.get("spec")?;
    let mut found: Option<Requirement> = None;
    let mut note = |minor: u32, what: String| {
        if found.as_ref().is_none_or(|f| minor > f.minor) {
            found = Some(Requirement { minor, what });
        }
    };
    let mut visit = |node: &Map<String, Value>, at: &str, defaults_checked: bool| {
        // CEL rules: alpha in 1.23, on by default from 1.25; older servers' typed
        // apply does not know the keyword.
        if node.contains_key("x-kubernetes-validations") {
            note(
                25,
                format!("CEL validation rules (x-kubernetes-validations) at {at}"),
            );
        }
        // 1.20's validator (kube-openapi validate/type.go) takes a zero-valued string
        // for null and refuses `default: ""` on a string that is not nullable; kube-openapi
        // dropped that check in e467f52 ("Remove incorrect zero value check", 2021-03).
        if defaults_checked
            && node.get("default") == Some(&Value::String(String::new()))
            && type_of(node) == "string"
            && !flag(node, "nullable")
        {
            note(
                21,
                format!("a default of \"\" at {at} (1.20 takes it for null)"),
            );
        }
    };
    let versions = spec.get("versions").and_then(Value::as_array);
    for (i, version) in versions.into_iter().flatten().enumerate() {
        if let Some(Value::Object(schema)) = version.pointer("/schema/openAPIV3Schema") {
            let at = format!("spec.versions[{i}].schema.openAPIV3Schema");
            each_node(schema, &at, true, &mut visit);
        }
    }
    if let Some(Value::Object(schema)) = spec.pointer("/validation/openAPIV3Schema") {
        each_node(schema, "spec.validation.openAPIV3Schema", true, &mut visit);
    }
    found
}

/// What [`each_node`] calls on a node: the node, its field path, and whether the server
/// checks defaults there.
type VisitNode<'a> = dyn FnMut(&Map<String, Value>, &str, bool) + 'a;

/// Every schema node below and including `node`, with its field path and whether the
/// server validates defaults there: its default check walks properties and items only
/// (defaulting/validation.go), never additionalProperties.
fn each_node(
    node: &Map<String, Value>,
    at: &str,
    defaults_checked: bool,
    visit: &mut VisitNode<'_>,
) {
    visit(node, at, defaults_checked);
    for (k, v) in properties(node) {
        each_node(v, &format!("{at}.properties[{k}]"), defaults_checked, visit);
    }
    if let Some(v) = object(node, "items") {
        each_node(v, &format!("{at}.items"), defaults_checked, visit);
    }
    if let Some(v) = object(node, "additionalProperties") {
        each_node(v, &format!("{at}.additionalProperties"), false, visit);
    }
    for (name, v) in junctors(node) {
        each_node(v, &format!("{at}.{name}"), false, visit);
    }
}

/// Where a node stands: the level decides what "type must not be empty" says, and
/// whether metadata rules apply.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Root,
    Item,
    Field,
}

/// One version's `openAPIV3Schema`.
fn check_schema(schema: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    if flag(schema, "nullable") {
        out.push(format!(
            "{at}.nullable: Forbidden: nullable cannot be true at the root"
        ));
    }
    standard(schema, at, Meta::Root, out);
    invariants(schema, Level::Root, at, out);
    completeness(schema, at, out);
}

fn flag(node: &Map<String, Value>, key: &str) -> bool {
    node.get(key) == Some(&Value::Bool(true))
}

fn type_of(node: &Map<String, Value>) -> &str {
    node.get("type").and_then(Value::as_str).unwrap_or("")
}

fn object<'a>(node: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    node.get(key).and_then(Value::as_object)
}

/// `properties[k]` entries, in the schema's order.
fn properties(node: &Map<String, Value>) -> impl Iterator<Item = (&String, &Map<String, Value>)> {
    object(node, "properties")
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some((k, v.as_object()?)))
}

/// The value-validation junctors of a node, with their field-path names.
fn junctors(node: &Map<String, Value>) -> Vec<(String, &Map<String, Value>)> {
    let mut found = Vec::new();
    for key in ["allOf", "anyOf", "oneOf"] {
        for (i, v) in node
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if let Some(v) = v.as_object() {
                found.push((format!("{key}[{i}]"), v));
            }
        }
    }
    if let Some(not) = object(node, "not") {
        found.push(("not".to_string(), not));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A v1 CRD whose one version has `spec` as its schema's spec property.
    fn crd(spec: Value) -> Map<String, Value> {
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"},
                "scope": "Namespaced",
                "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                        "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                        "metadata": {"type": "object"}, "spec": spec}}}}]}})
        .as_object()
        .unwrap()
        .clone()
    }

    const SPEC: &str = "spec.versions[0].schema.openAPIV3Schema.properties[spec]";

    #[test]
    fn a_structural_schema_has_no_problems() {
        let ok = crd(json!({"type": "object", "properties": {
            "size": {"type": "integer", "default": 1, "minimum": 0},
            "port": {"x-kubernetes-int-or-string": true,
                     "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "either": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                       "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}}}));
        assert_eq!(crd_problems(&ok), Vec::<String>::new());
        let not_a_crd = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        assert!(crd_problems(not_a_crd.as_object().unwrap()).is_empty());
    }

    /// Emissary's `ambassador_id` as pkg/api/getambassador.io/crds.yaml writes it: the
    /// 422 a v1.20.2 API server gave for it, path for path.
    #[test]
    fn a_type_union_in_one_of_is_not_structural() {
        let union = crd(json!({"type": "object", "properties": {"ambassador_id": {
            "description": "a string or a list of strings",
            "items": {"type": "string"},
            "oneOf": [{"type": "string"}, {"type": "array"}]}}}));
        let problems = crd_problems(&union);
        let at = format!("{SPEC}.properties[ambassador_id]");
        for want in [
            format!("{at}.type: Required value: must not be empty for specified object fields"),
            format!("{at}.oneOf[0].type: Forbidden: must be empty to be structural"),
            format!("{at}.oneOf[1].type: Forbidden: must be empty to be structural"),
        ] {
            assert!(problems.contains(&want), "{want}\nnot in {problems:#?}");
        }
        assert_eq!(problems.len(), 3, "{problems:#?}");
    }

    #[test]
    fn every_rule_names_its_field() {
        let cases = [
            (
                json!({"type": "array"}),
                format!("{SPEC}.items: Required value: must be specified"),
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string"}},
                    "additionalProperties": {"type": "string"}}),
                format!(
                    "{SPEC}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"
                ),
            ),
            (
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false}),
                format!(
                    "{SPEC}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"
                ),
            ),
            (
                json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
                format!(
                    "{SPEC}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"
                ),
            ),
            (
                json!({"type": "object", "$ref": "#/definitions/x"}),
                format!("{SPEC}.$ref: Forbidden: $ref is not supported"),
            ),
            (
                json!({"type": "object", "allOf": [{"properties": {"b": {"type": "string"}}}]}),
                format!(
                    "{SPEC}.allOf[0].properties[b].type: Forbidden: must be empty to be structural"
                ),
            ),
            (
                json!({"type": "object", "anyOf": [{"description": "x"}]}),
                format!("{SPEC}.anyOf[0].description: Forbidden: must be empty to be structural"),
            ),
            (
                json!({"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}},
                    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"]}),
                format!(
                    "{SPEC}.x-kubernetes-list-map-keys: Invalid value: entries must all be names of item properties (id is not)"
                ),
            ),
            (
                json!({"type": "string", "x-kubernetes-map-type": "atomic"}),
                format!(
                    "{SPEC}.type: Required value: must be object if x-kubernetes-map-type is specified"
                ),
            ),
            (
                json!({"type": "object", "x-kubernetes-embedded-resource": true}),
                format!(
                    "{SPEC}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"
                ),
            ),
        ];
        for (spec, want) in cases {
            let problems = crd_problems(&crd(spec.clone()));
            assert!(
                problems.contains(&want),
                "{spec}\n{want}\nnot in {problems:#?}"
            );
        }
    }

    #[test]
    fn the_roots_junctors_must_name_specified_fields_and_metadata_stays_implicit() {
        let mut c = crd(json!({"type": "object"}));
        let root = c["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
            .as_object_mut()
            .unwrap();
        root.insert(
            "anyOf".into(),
            json!([{"properties": {"status": {"required": ["x"]}}}]),
        );
        root["properties"]["metadata"] =
            json!({"type": "object", "properties": {"labels": {"type": "object"}}});
        let problems = crd_problems(&c);
        let at = "spec.versions[0].schema.openAPIV3Schema";
        for want in [
            format!(
                "{at}.properties[status]: Required value: because it is defined in {at}.anyOf[0].properties[status]"
            ),
            format!(
                "{at}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
            ),
        ] {
            assert!(problems.contains(&want), "{want}\nnot in {problems:#?}");
        }
        // name and generateName may be restricted.
        let mut named = crd(json!({"type": "object"}));
        named["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["metadata"] =
            json!({"type": "object", "properties": {"name": {"type": "string", "maxLength": 63}}});
        assert_eq!(crd_problems(&named), Vec::<String>::new());
    }

    #[test]
    fn v1_needs_a_schema_and_v1beta1_only_when_it_prunes() {
        let mut c = crd(json!({"type": "object"}));
        c["spec"]["versions"][0]
            .as_object_mut()
            .unwrap()
            .remove("schema");
        assert_eq!(
            crd_problems(&c),
            ["spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"]
        );
        let legacy = |prune: bool| {
            json!({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "CustomResourceDefinition",
                "spec": {"preserveUnknownFields": !prune,
                         "validation": {"openAPIV3Schema": {"properties": {"a": {"type": "string"}}}}}})
            .as_object()
            .unwrap()
            .clone()
        };
        assert!(crd_problems(&legacy(false)).is_empty());
        assert_eq!(
            crd_problems(&legacy(true)),
            ["spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"]
        );
    }
}
