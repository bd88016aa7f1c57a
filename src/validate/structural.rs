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

use serde_json::{Map, Value};

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

/// Whether a node sits in an object's metadata (where defaults are not allowed) and whether
/// it is the resource root (whose metadata, apiVersion and kind the server owns).
#[derive(Clone, Copy, PartialEq)]
enum Meta {
    Root,
    Outside,
    Inside,
}

/// validation.go's `ValidateCustomResourceDefinitionOpenAPISchema`: keywords CRDs do not
/// support, and the `x-kubernetes-*` extensions' consistency, on every node.
fn standard(node: &Map<String, Value>, at: &str, meta: Meta, out: &mut Vec<String>) {
    for (key, what) in [
        ("id", "id is not supported"),
        ("additionalItems", "additionalItems is not supported"),
        ("patternProperties", "patternProperties is not supported"),
        ("definitions", "definitions is not supported"),
        ("dependencies", "dependencies is not supported"),
        ("$ref", "$ref is not supported"),
    ] {
        if node.contains_key(key) {
            out.push(format!("{at}.{key}: Forbidden: {what}"));
        }
    }
    if type_of(node) == "null" {
        out.push(format!(
            "{at}.type: Forbidden: type cannot be set to null, use nullable as an alternative"
        ));
    }
    if !matches!(node.get("type"), None | Some(Value::String(_))) {
        out.push(format!("{at}.type: Invalid value: must be one string (use nullable or x-kubernetes-int-or-string for unions)"));
    }
    if matches!(node.get("items"), Some(Value::Array(_))) {
        out.push(format!(
            "{at}.items: Forbidden: items must be a schema object and not an array"
        ));
    }
    if node.contains_key("default") && meta == Meta::Inside {
        out.push(format!(
            "{at}.default: Forbidden: must not be set in top-level metadata, apiVersion or kind"
        ));
    }
    if meta == Meta::Inside && flag(node, "x-kubernetes-embedded-resource") {
        out.push(format!("{at}.x-kubernetes-embedded-resource: Forbidden: must not be used inside of resource meta"));
    }
    if flag(node, "uniqueItems") {
        out.push(format!("{at}.uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    }
    if let Some(additional) = node.get("additionalProperties")
        && object(node, "properties").is_some_and(|p| !p.is_empty())
        && additional != &Value::Bool(true)
    {
        out.push(format!("{at}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"));
    }
    if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(false)) {
        out.push(format!("{at}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"));
    }
    extensions(node, at, out);

    if let Some(additional) = object(node, "additionalProperties") {
        standard(
            additional,
            &format!("{at}.additionalProperties"),
            meta.below(),
            out,
        );
    }
    let embedded = flag(node, "x-kubernetes-embedded-resource");
    for (k, v) in properties(node) {
        let sub = if (meta == Meta::Root || embedded)
            && matches!(k.as_str(), "metadata" | "apiVersion" | "kind")
        {
            // An embedded object's metadata may carry defaults; the resource root's may not.
            if meta == Meta::Root {
                Meta::Inside
            } else {
                Meta::Outside
            }
        } else {
            meta.below()
        };
        standard(v, &format!("{at}.properties[{k}]"), sub, out);
    }
    for (name, v) in junctors(node) {
        standard(v, &format!("{at}.{name}"), meta.below(), out);
    }
    if let Some(items) = object(node, "items") {
        standard(items, &format!("{at}.items"), meta.below(), out);
    }
}

impl Meta {
    fn below(self) -> Meta {
        match self {
            Meta::Root => Meta::Outside,
            other => other,
        }
    }
}

/// `x-kubernetes-list-type`, `-list-map-keys` and `-map-type` as validation.go checks them.
fn extensions(node: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    let ty = type_of(node);
    if let Some(map_type) = node.get("x-kubernetes-map-type") {
        if ty != "object" {
            out.push(format!(
                "{at}.type: Required value: must be object if x-kubernetes-map-type is specified"
            ));
        }
        if !matches!(map_type.as_str(), Some("atomic" | "granular")) {
            out.push(format!("{at}.x-kubernetes-map-type: Unsupported value: {map_type}: supported values: \"atomic\", \"granular\""));
        }
    }
    let list_type = node.get("x-kubernetes-list-type");
    if let Some(list_type) = list_type {
        if ty != "array" {
            out.push(format!(
                "{at}.type: Required value: must be array if x-kubernetes-list-type is specified"
            ));
        }
        if !matches!(list_type.as_str(), Some("atomic" | "set" | "map")) {
            out.push(format!("{at}.x-kubernetes-list-type: Unsupported value: {list_type}: supported values: \"atomic\", \"map\", \"set\""));
        }
    }
    let keys: Vec<&str> = node
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let is_map = list_type.and_then(Value::as_str) == Some("map");
    if !keys.is_empty() && !is_map {
        out.push(format!("{at}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty"));
    }
    if !is_map {
        return;
    }
    if keys.is_empty() {
        out.push(format!("{at}.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map"));
    }
    let Some(items) = object(node, "items") else {
        out.push(format!(
            "{at}.items: Required value: must have a schema if x-kubernetes-list-type is map"
        ));
        return;
    };
    if type_of(items) != "object" {
        out.push(format!("{at}.items.type: Invalid value: must be object if parent array's x-kubernetes-list-type is map"));
        return;
    }
    let item_props = object(items, "properties");
    for (i, key) in keys.iter().enumerate() {
        match item_props.and_then(|p| p.get(*key)).and_then(Value::as_object) {
            Some(p) if matches!(type_of(p), "array" | "object") => out.push(format!(
                "{at}.items.properties[{key}].type: Invalid value: must be a scalar type if parent array's x-kubernetes-list-type is map"
            )),
            Some(_) => {}
            None => out.push(format!(
                "{at}.x-kubernetes-list-map-keys: Invalid value: entries must all be names of item properties ({key} is not)"
            )),
        }
        if keys[..i].contains(key) {
            out.push(format!("{at}.x-kubernetes-list-map-keys: Invalid value: must not contain duplicate entries ({key})"));
        }
    }
}

/// schema/validation.go's `validateStructuralInvariants`: the structural part of a node
/// (type, properties, items, additionalProperties) and what may stand beside it.
fn invariants(node: &Map<String, Value>, level: Level, at: &str, out: &mut Vec<String>) {
    let ty = type_of(node);
    let int_or_string = flag(node, "x-kubernetes-int-or-string");
    let preserve = flag(node, "x-kubernetes-preserve-unknown-fields");
    let embedded = flag(node, "x-kubernetes-embedded-resource");

    if ty == "array" && !node.contains_key("items") {
        out.push(format!("{at}.items: Required value: must be specified"));
    }
    if let Some(items) = object(node, "items") {
        invariants(items, Level::Item, &format!("{at}.items"), out);
    }
    for (k, v) in properties(node) {
        invariants(v, Level::Field, &format!("{at}.properties[{k}]"), out);
    }
    if node.contains_key("additionalProperties") {
        if level == Level::Root {
            out.push(format!(
                "{at}.additionalProperties: Forbidden: must not be used at the root"
            ));
        }
        if let Some(additional) = object(node, "additionalProperties") {
            invariants(
                additional,
                Level::Field,
                &format!("{at}.additionalProperties"),
                out,
            );
        }
    }
    if int_or_string && preserve {
        out.push(format!("{at}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true"));
    }
    if int_or_string && embedded {
        out.push(format!("{at}.x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true"));
    }
    value_validation(node, at, out);

    if embedded && ty != "object" {
        out.push(format!(
            "{at}.type: Required value: must be object if x-kubernetes-embedded-resource is true"
        ));
    } else if ty.is_empty() && !int_or_string && !preserve {
        let why = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        out.push(format!("{at}.type: Required value: {why}"));
    }
    if embedded && node.contains_key("additionalProperties") {
        out.push(format!("{at}.additionalProperties: Forbidden: must not be used if x-kubernetes-embedded-resource is set"));
    }
    if level == Level::Root && !ty.is_empty() && ty != "object" {
        out.push(format!(
            "{at}.type: Invalid value: \"{ty}\": must be object at the root"
        ));
    }
    if level == Level::Root || embedded {
        for (field, want) in [
            ("kind", "string"),
            ("apiVersion", "string"),
            ("metadata", "object"),
        ] {
            if let Some(p) = object(node, "properties")
                .and_then(|p| p.get(field))
                .and_then(Value::as_object)
                && type_of(p) != want
            {
                out.push(format!(
                    "{at}.properties[{field}].type: Invalid value: \"{}\": must be {want}",
                    type_of(p)
                ));
            }
        }
    }
    if level == Level::Root
        && let Some(metadata) = object(node, "properties")
            .and_then(|p| p.get("metadata"))
            .and_then(Value::as_object)
        && !metadata_is_implicit(metadata)
    {
        out.push(format!(
            "{at}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
        ));
    }
    if embedded && !preserve && properties(node).next().is_none() {
        out.push(format!("{at}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
    }
}

/// The resource root's metadata may say that it is an object, give a default, and
/// restrict name and generateName; anything more is the server's to define.
fn metadata_is_implicit(metadata: &Map<String, Value>) -> bool {
    metadata.iter().all(|(k, v)| match k.as_str() {
        "type" | "default" => true,
        "properties" => v
            .as_object()
            .is_some_and(|p| p.keys().all(|k| k == "name" || k == "generateName")),
        _ => false,
    })
}

/// `anyOf: [{type: integer}, {type: string}]`: the one pattern (int-or-string) whose
/// junctor may carry types.
fn is_int_or_string_any_of(node: &Map<String, Value>) -> bool {
    node.get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|any| {
            any.len() == 2
                && any[0] == serde_json::json!({"type": "integer"})
                && any[1] == serde_json::json!({"type": "string"})
        })
}

/// The junctors of a structural node: nothing inside them may say what the value *is*
/// (type, default, description, extensions), only what it must satisfy.
fn value_validation(node: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    let skip_any_of = is_int_or_string_any_of(node);
    let first_all_of_is_int_or_string = node
        .get("allOf")
        .and_then(Value::as_array)
        .and_then(|all| all.first())
        .and_then(Value::as_object)
        .is_some_and(is_int_or_string_any_of);
    for (name, nested) in junctors(node) {
        if name.starts_with("anyOf") && skip_any_of {
            continue;
        }
        let skip_nested_any_of = name == "allOf[0]" && first_all_of_is_int_or_string;
        nested_value_validation(nested, skip_nested_any_of, &format!("{at}.{name}"), out);
    }
}

fn nested_value_validation(
    node: &Map<String, Value>,
    skip_any_of: bool,
    at: &str,
    out: &mut Vec<String>,
) {
    for (name, nested) in junctors(node) {
        if !(skip_any_of && name.starts_with("anyOf")) {
            nested_value_validation(nested, false, &format!("{at}.{name}"), out);
        }
    }
    if let Some(items) = object(node, "items") {
        nested_value_validation(items, false, &format!("{at}.items"), out);
    }
    for (k, v) in properties(node) {
        nested_value_validation(v, false, &format!("{at}.properties[{k}]"), out);
    }
    let set = |key: &str| match node.get(key) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(_) => true,
    };
    for (key, why) in [
        ("type", "must be empty to be structural"),
        ("additionalProperties", "must be undefined to be structural"),
        ("default", "must be undefined to be structural"),
        ("title", "must be empty to be structural"),
        ("description", "must be empty to be structural"),
        ("nullable", "must be false to be structural"),
        (
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        ),
        (
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ),
        (
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        ),
        (
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        ),
    ] {
        if set(key) {
            out.push(format!("{at}.{key}: Forbidden: {why}"));
        }
    }
    if object(node, "properties").is_some_and(|p| p.contains_key("metadata")) {
        out.push(format!(
            "{at}.properties[metadata]: Forbidden: must not be specified in a nested context"
        ));
    }
}

/// complete.go: a field or items that one of the root's junctors constrains must also be
/// specified in the structural part at the same place, or the server could not prune or
/// default it. (The server checks this from the root's junctors only; so does kf.)
fn completeness(root: &Map<String, Value>, at: &str, out: &mut Vec<String>) {
    for (name, nested) in junctors(root) {
        nested_completeness(nested, Some(root), at, &format!("{at}.{name}"), out);
    }
}

fn nested_completeness(
    nested: &Map<String, Value>,
    structural: Option<&Map<String, Value>>,
    s_at: &str,
    v_at: &str,
    out: &mut Vec<String>,
) {
    let Some(structural) = structural else {
        out.push(format!(
            "{s_at}: Required value: because it is defined in {v_at}"
        ));
        return;
    };
    for (name, deeper) in junctors(nested) {
        nested_completeness(
            deeper,
            Some(structural),
            s_at,
            &format!("{v_at}.{name}"),
            out,
        );
    }
    if let Some(items) = object(nested, "items") {
        nested_completeness(
            items,
            object(structural, "items"),
            &format!("{s_at}.items"),
            &format!("{v_at}.items"),
            out,
        );
    }
    for (k, v) in properties(nested) {
        let field = object(structural, "properties")
            .and_then(|p| p.get(k))
            .and_then(Value::as_object);
        let (s, vv) = (
            format!("{s_at}.properties[{k}]"),
            format!("{v_at}.properties[{k}]"),
        );
        match field {
            Some(field) => nested_completeness(v, Some(field), &s, &vv, out),
            None => out.push(format!(
                "{s}: Required value: because it is defined in {vv}"
            )),
        }
    }
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
