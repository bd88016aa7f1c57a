//! Offline validation of rendered objects: built-in kinds by a round trip through their
//! k8s-openapi types (a field the type does not have, or of the wrong type, shows up as a
//! difference), custom resources against their CRD's `openAPIV3Schema`, made strict so
//! that a misspelt field is an error rather than silently pruned by the API server.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// What validation found about one object.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The object would be rejected or changed by the API server.
    Error(String),
    /// No schema is known for the kind; the object was not checked.
    Unchecked(String),
}

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
    /// The environment's k8sVersion, when known: kinds it no longer serves are errors.
    k8s_version: Option<String>,
}

impl Validator {
    /// A validator that knows the CRDs kf carries: those of the built-in registry's
    /// packages (training-operator, mpi-operator, Trainer, JobSet, argo, KServe, Seldon,
    /// Emissary, …) and the schema-only copies in `schemas/crds/` (Istio, Flux).
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

    /// Also refuse API versions that `version` (an env's k8sVersion) no longer serves.
    pub fn for_k8s_version(mut self, version: &str) -> Validator {
        self.k8s_version = Some(version.to_string());
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
        if let Some(p) = self
            .k8s_version
            .as_deref()
            .and_then(|v| served_problem(obj, v))
        {
            rules.insert(0, p);
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

/// An API version Kubernetes stopped serving (the deprecated-API migration guide,
/// kubernetes.io/docs/reference/using-api/deprecation-guide).
pub struct Retired {
    pub group: &'static str,
    pub version: &'static str,
    /// The kinds retired with it; `[""]` for every kind of the group version.
    pub kinds: &'static [&'static str],
    /// The 1.x release that no longer serves it.
    pub removed_minor: u32,
    pub instead: &'static str,
}

const fn retired_api(
    group: &'static str,
    version: &'static str,
    kinds: &'static [&'static str],
    removed_minor: u32,
    instead: &'static str,
) -> Retired {
    Retired {
        group,
        version,
        kinds,
        removed_minor,
        instead,
    }
}

/// The most specific entry first (extensions/v1beta1 Ingress before the rest of it).
pub const RETIRED: &[Retired] = &[
    retired_api(
        "extensions",
        "v1beta1",
        &["Ingress"],
        22,
        "networking.k8s.io/v1",
    ),
    retired_api(
        "extensions",
        "v1beta1",
        &["NetworkPolicy"],
        16,
        "networking.k8s.io/v1",
    ),
    retired_api(
        "extensions",
        "v1beta1",
        &["PodSecurityPolicy"],
        16,
        "policy/v1beta1, itself removed in 1.25",
    ),
    retired_api("extensions", "v1beta1", &[""], 16, "apps/v1"),
    retired_api("apps", "v1beta1", &[""], 16, "apps/v1"),
    retired_api("apps", "v1beta2", &[""], 16, "apps/v1"),
    retired_api(
        "networking.k8s.io",
        "v1beta1",
        &[""],
        22,
        "networking.k8s.io/v1",
    ),
    retired_api(
        "rbac.authorization.k8s.io",
        "v1beta1",
        &[""],
        22,
        "rbac.authorization.k8s.io/v1",
    ),
    retired_api(
        "rbac.authorization.k8s.io",
        "v1alpha1",
        &[""],
        22,
        "rbac.authorization.k8s.io/v1",
    ),
    retired_api(
        "apiextensions.k8s.io",
        "v1beta1",
        &[""],
        22,
        "apiextensions.k8s.io/v1 (with a structural schema)",
    ),
    retired_api(
        "admissionregistration.k8s.io",
        "v1beta1",
        &[""],
        22,
        "admissionregistration.k8s.io/v1",
    ),
    retired_api(
        "scheduling.k8s.io",
        "v1beta1",
        &[""],
        22,
        "scheduling.k8s.io/v1",
    ),
    retired_api(
        "storage.k8s.io",
        "v1beta1",
        &["StorageClass", "VolumeAttachment", "CSIDriver", "CSINode"],
        22,
        "storage.k8s.io/v1",
    ),
    retired_api("batch", "v1beta1", &["CronJob"], 25, "batch/v1"),
    retired_api(
        "policy",
        "v1beta1",
        &["PodDisruptionBudget"],
        25,
        "policy/v1",
    ),
    retired_api(
        "policy",
        "v1beta1",
        &["PodSecurityPolicy"],
        25,
        "Pod Security admission (no replacement kind)",
    ),
    retired_api("autoscaling", "v2beta1", &[""], 25, "autoscaling/v2"),
    retired_api("autoscaling", "v2beta2", &[""], 26, "autoscaling/v2"),
];

/// The retirement of `api_version` `kind`, if Kubernetes retired it.
pub fn retired(api_version: &str, kind: &str) -> Option<&'static Retired> {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    RETIRED.iter().find(|r| {
        r.group == group
            && r.version == version
            && (r.kinds.contains(&kind) || r.kinds.contains(&""))
    })
}

/// `v1.33.0`, `1.33`, `v1.10.3` → (1, 33); `None` for anything else.
pub fn k8s_minor(version: &str) -> Option<(u32, u32)> {
    let mut parts = version.trim_start_matches('v').split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

/// The error for an object the env's Kubernetes version no longer serves.
pub fn served_problem(obj: &Map<String, Value>, k8s_version: &str) -> Option<String> {
    let (major, minor) = k8s_minor(k8s_version)?;
    let api = obj.get("apiVersion").and_then(Value::as_str)?;
    let kind = obj.get("kind").and_then(Value::as_str)?;
    let r = retired(api, kind)?;
    (major > 1 || minor >= r.removed_minor).then(|| {
        format!(
            "Kubernetes {k8s_version} (the environment's k8sVersion) does not serve {api} {kind}: removed in 1.{}; use {}",
            r.removed_minor, r.instead
        )
    })
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

/// Why `name` is not a DNS-1123 label (what Kubernetes requires of Service, Namespace
/// and container names: at most 63 lowercase letters, digits and `-`, starting and
/// ending with a letter or digit), or `None` when it is one.
pub fn dns1123_label_problem(name: &str) -> Option<String> {
    if name.len() > 63 {
        return Some(format!("'{name}' is longer than 63 characters"));
    }
    dns1123_subdomain_problem(name).or_else(|| {
        name.contains('.')
            .then(|| format!("'{name}' must not contain '.' (a DNS-1123 label)"))
    })
}

/// Why `name` is not a DNS-1123 subdomain (what Kubernetes requires of most object names:
/// at most 253 lowercase letters, digits, `-` and `.`, starting and ending with a letter
/// or digit), or `None` when it is one.
pub fn dns1123_subdomain_problem(name: &str) -> Option<String> {
    let alnum = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let rule = "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit";
    if name.is_empty() {
        Some("the name is empty".into())
    } else if name.len() > 253 {
        Some(format!("'{name}' is longer than 253 characters"))
    } else if !name.chars().all(|c| alnum(c) || c == '-' || c == '.')
        || !name.starts_with(alnum)
        || !name.ends_with(alnum)
        || name.split('.').any(|part| part.is_empty())
    {
        let hint = name.to_lowercase().replace('_', "-");
        Some(format!(
            "'{name}' is not a valid Kubernetes name ({rule}; e.g. '{hint}')"
        ))
    } else {
        None
    }
}

/// What the API server checks beyond the schema, as `field.path: problem` lines.
pub fn api_server_rules(obj: &Map<String, Value>) -> Vec<String> {
    let mut problems = Vec::new();
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
    if let Some(name) = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
    {
        let problem = match kind {
            // RBAC names are path segments (`system:controller` is fine).
            "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" => None,
            "Service" | "Namespace" => dns1123_label_problem(name),
            _ => dns1123_subdomain_problem(name),
        };
        if let Some(p) = problem {
            problems.push(format!("metadata.name: {p}"));
        }
    }
    check_selector(obj, kind, &mut problems);
    let mut pods = Vec::new();
    for (key, value) in obj {
        find_pod_specs(value, key.clone(), &mut pods);
    }
    for (path, pod) in pods {
        check_pod(&path, pod, &mut problems);
    }
    problems
}

/// A workload whose selector does not select its own pods is rejected ("selector does
/// not match template labels").
fn check_selector(obj: &Map<String, Value>, kind: &str, problems: &mut Vec<String>) {
    let api = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if api != "apps/v1"
        || !matches!(
            kind,
            "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
        )
    {
        return;
    }
    let spec = obj.get("spec");
    let labels = spec
        .and_then(|s| s.pointer("/template/metadata/labels"))
        .and_then(Value::as_object);
    let Some(selector) = spec
        .and_then(|s| s.get("selector"))
        .and_then(Value::as_object)
    else {
        problems.push(format!(
            "spec.selector: required for {api} {kind} (e.g. matchLabels equal to spec.template.metadata.labels)"
        ));
        return;
    };
    let label = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    for (key, want) in selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let want = want.as_str().unwrap_or_default();
        if label(key) != Some(want) {
            let have = label(key).map_or("no such label".to_string(), |v| format!("'{v}'"));
            problems.push(format!(
                "spec.selector.matchLabels.{key}: '{want}' does not match spec.template.metadata.labels.{key} ({have}); the Deployment would not select its own pods"
            ));
        }
    }
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    for (i, e) in expressions.into_iter().flatten().enumerate() {
        let key = e.get("key").and_then(Value::as_str).unwrap_or_default();
        let values: Vec<&str> = e
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let have = label(key);
        let matches = match e
            .get("operator")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "In" => have.is_some_and(|v| values.contains(&v)),
            "NotIn" => !have.is_some_and(|v| values.contains(&v)),
            "Exists" => have.is_some(),
            "DoesNotExist" => have.is_none(),
            _ => true,
        };
        if !matches {
            problems.push(format!(
                "spec.selector.matchExpressions[{i}]: does not match spec.template.metadata.labels (key '{key}'); the {kind} would not select its own pods"
            ));
        }
    }
}

/// Every pod spec in `value` (a Pod's, a workload template's, a TFJob replica's …): an
/// object with a `containers` array, with its path.
fn find_pod_specs<'a>(
    value: &'a Value,
    path: String,
    out: &mut Vec<(String, &'a Map<String, Value>)>,
) {
    match value {
        Value::Object(o) => {
            if o.get("containers").is_some_and(Value::is_array) {
                out.push((path.clone(), o));
            }
            for (k, v) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                find_pod_specs(v, p, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                find_pod_specs(v, format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Container names and port names are unique in a pod, containerPort/protocol pairs too
/// (the API server warns and Services then pick one at random), and every resource
/// quantity parses; extended resources such as GPUs take whole numbers.
fn check_pod(pod_path: &str, pod: &Map<String, Value>, problems: &mut Vec<String>) {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut port_names: BTreeMap<String, String> = BTreeMap::new();
    let mut ports: BTreeMap<String, String> = BTreeMap::new();
    for list in ["initContainers", "containers"] {
        let containers = pod.get(list).and_then(Value::as_array);
        for (i, c) in containers.into_iter().flatten().enumerate() {
            let at = format!("{pod_path}.{list}[{i}]")
                .trim_start_matches('.')
                .to_string();
            if let Some(name) = c.get("name").and_then(Value::as_str) {
                if let Some(p) = dns1123_label_problem(name) {
                    problems.push(format!("{at}.name: {p}"));
                }
                if let Some(first) = names.insert(name.to_string(), format!("{at}.name")) {
                    problems.push(format!(
                        "{at}.name: duplicate container name '{name}' (also at {first})"
                    ));
                }
            }
            for (j, port) in c
                .get("ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                let port_at = format!("{at}.ports[{j}]");
                if let Some(name) = port.get("name").and_then(Value::as_str)
                    && let Some(first) = port_names.insert(name.to_string(), port_at.clone())
                {
                    problems.push(format!(
                        "{port_at}.name: duplicate port name '{name}' in the pod (also at {first})"
                    ));
                }
                if let Some(number) = port.get("containerPort").and_then(Value::as_i64) {
                    let protocol = port
                        .get("protocol")
                        .and_then(Value::as_str)
                        .unwrap_or("TCP");
                    let id = format!("{number}/{protocol}");
                    if let Some(first) = ports.insert(id.clone(), port_at.clone()) {
                        problems.push(format!("{port_at}.containerPort: duplicate port {id} in the pod (also at {first})"));
                    }
                }
            }
            for side in ["requests", "limits"] {
                let quantities = c
                    .get("resources")
                    .and_then(|r| r.get(side))
                    .and_then(Value::as_object);
                for (resource, q) in quantities.into_iter().flatten() {
                    let field = if resource.contains(['.', '/']) {
                        format!("{at}.resources.{side}[\"{resource}\"]")
                    } else {
                        format!("{at}.resources.{side}.{resource}")
                    };
                    if let Some(p) = quantity_problem(resource, q) {
                        problems.push(format!("{field}: {p}"));
                    }
                }
            }
        }
    }
}

/// Why `value` is not a valid quantity of `resource`, or `None`. Kubernetes quantities
/// are a decimal number with an optional suffix (`500m`, `2`, `1.5Gi`, `1e3`); resources
/// outside `kubernetes.io` (`nvidia.com/gpu`) cannot be split and take whole numbers.
pub fn quantity_problem(resource: &str, value: &Value) -> Option<String> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        other => {
            return Some(format!(
                "{other} is not a quantity (e.g. \"500m\", \"2Gi\" or 1)"
            ));
        }
    };
    let Some(amount) = parse_quantity(&text) else {
        return Some(format!(
            "'{text}' is not a Kubernetes quantity: a number with an optional suffix (m, k, M, G, Ki, Mi, Gi, …), e.g. \"500m\", \"2\" or \"1.5Gi\""
        ));
    };
    let native = !resource.contains('/') || resource.contains("kubernetes.io/");
    if !native && amount.fract() != 0.0 {
        return Some(format!(
            "'{text}': {resource} is an extended resource and takes a whole number (a GPU cannot be shared by a fraction)"
        ));
    }
    if amount < 0.0 {
        return Some(format!("'{text}' is negative"));
    }
    None
}

/// The amount a Kubernetes quantity string stands for, or `None` when it does not parse.
fn parse_quantity(text: &str) -> Option<f64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let digits = number.trim_start_matches(['+', '-']);
    if digits.is_empty()
        || digits == "."
        || digits.matches('.').count() > 1
        || number.len() - digits.len() > 1
        || digits.contains(['+', '-'])
    {
        return None;
    }
    let base: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        e if e.starts_with(['e', 'E']) => {
            let exp = &e[1..];
            let exp_digits = exp.trim_start_matches(['+', '-']);
            if exp_digits.is_empty()
                || !exp_digits.chars().all(|c| c.is_ascii_digit())
                || exp.len() - exp_digits.len() > 1
            {
                return None;
            }
            10f64.powi(exp.parse().ok()?)
        }
        _ => return None,
    };
    Some(base * scale)
}

/// Groups served by Kubernetes itself: the core group, un-dotted groups (`apps`,
/// `batch`, …) and `*.k8s.io`.
pub fn is_builtin_group(api_version: &str) -> bool {
    match api_version.split_once('/') {
        None => true,
        Some((group, _)) => !group.contains('.') || group.ends_with(".k8s.io"),
    }
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
    use serde_json::json;

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

    #[test]
    fn quantities_parse_as_kubernetes_reads_them() {
        for good in [
            "1", "500m", "1.5", ".5", "2Gi", "100Mi", "1e3", "1E-2", "+1", "0",
        ] {
            assert_eq!(quantity_problem("cpu", &json!(good)), None, "{good}");
        }
        for bad in ["2 cores", "1.2.3", "Gi", "", "1GB", "1e", "--1", "one"] {
            assert!(quantity_problem("cpu", &json!(bad)).is_some(), "{bad}");
        }
        assert_eq!(quantity_problem("nvidia.com/gpu", &json!(2)), None);
        assert!(quantity_problem("nvidia.com/gpu", &json!(0.5)).is_some());
        assert!(quantity_problem("nvidia.com/gpu", &json!("500m")).is_some());
        assert!(quantity_problem("cpu", &json!(true)).is_some());
    }

    #[test]
    fn apis_the_envs_kubernetes_retired_are_errors() {
        let deploy = obj(
            json!({"apiVersion": "extensions/v1beta1", "kind": "Deployment",
            "metadata": {"name": "web"}, "spec": {}}),
        );
        let mut v = Validator::with_builtin_crds().for_k8s_version("v1.33.0");
        match v.validate(&deploy) {
            Some(Finding::Error(e)) => assert!(
                e.contains("v1.33.0 (the environment's k8sVersion) does not serve extensions/v1beta1 Deployment: removed in 1.16; use apps/v1"),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
        // A ksonnet-era env at v1.10.3 still has it; extensions/v1beta1 Ingress lasted to 1.22.
        assert_eq!(served_problem(&deploy, "v1.10.3"), None);
        let ingress = obj(json!({"apiVersion": "extensions/v1beta1", "kind": "Ingress"}));
        assert_eq!(served_problem(&ingress, "v1.21.0"), None);
        assert!(served_problem(&ingress, "v1.22.0").is_some());
        assert_eq!(served_problem(&deploy, "latest"), None);
    }

    #[test]
    fn names_follow_dns_1123() {
        assert_eq!(dns1123_subdomain_problem("web-1.example"), None);
        assert_eq!(dns1123_label_problem("web-1"), None);
        for bad in ["Bad_Name", "-web", "web-", "a..b", "", "UPPER"] {
            assert!(dns1123_subdomain_problem(bad).is_some(), "{bad}");
        }
        assert!(dns1123_label_problem("a.b").is_some());
        assert!(dns1123_label_problem(&"a".repeat(64)).is_some());
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "system:kf-reader"}});
        assert!(api_server_rules(&obj(role)).is_empty());
    }
}
