//! What the API server checks beyond any schema: names, selectors, pods' container
//! names and ports, quantities; and, for a CRD, what [`super::structural`] requires of its
//! schemas.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

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
    problems.extend(super::crd_problems(obj));
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value, json};

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
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
