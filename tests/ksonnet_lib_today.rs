//! The ksonnet-lib kf generates for today's API (v1.33.0, from k8s-openapi's schemas:
//! schemas/k8s/swagger-v1.33.0.json, checked against k8s-openapi by crates/kf-spec in CI).
//! ksonnet never generated one, so there is no library to compare shapes with; instead
//! every setter below the kinds new apps use is called, and what they build together must
//! be what the setters' spec says (each value at its property's path) and what
//! Kubernetes' own types read: a round trip through k8s-openapi's struct of the kind
//! (kf_kinds, what `kf validate` checks built-in kinds with) keeps every field.

mod support;

use kf::ksonnetlib::model::{self, Literal, PropertyKind};
use kf::ksonnetlib::names;
use serde_json::{Map, Value, json};
use support::library::eval;

fn spec_text() -> &'static str {
    let (version, text) = kf::ksonnetlib::CARRIED[kf::ksonnetlib::carried_for("v1.33.0")];
    assert_eq!(version, "v1.33.0");
    text
}

fn generated() -> tempfile::TempDir {
    support::library::generated(spec_text())
}

/// A value of a scalar property's type and format that Kubernetes' types read.
fn scalar_sample(schema: &Value) -> Value {
    match (schema["type"].as_str(), schema["format"].as_str()) {
        (Some("integer"), _) => json!(3),
        (Some("number"), _) => json!(1.5),
        (Some("boolean"), _) => json!(true),
        (Some("string"), Some("date-time")) => json!("2026-01-02T03:04:05Z"),
        (Some("string"), Some("byte")) => json!("a2Y="),
        _ => json!("s"),
    }
}

/// The raw schema of a property, with a `$ref` to a formatted scalar (Time, IntOrString)
/// resolved to that scalar.
fn property_schema<'a>(spec: &'a Value, def: &str, property: &str) -> &'a Value {
    let p = &spec["definitions"][def]["properties"][property];
    match p["$ref"].as_str() {
        Some(r) => &spec["definitions"][r.trim_start_matches("#/definitions/")],
        None => p,
    }
}

/// Every setter below a definition: the Jsonnet calls (from `at`, the object holding
/// them) and the object they build together.
struct Walk<'a> {
    spec: &'a Value,
    api: &'a model::ApiSpec,
    calls: Vec<String>,
    setters: usize,
}

impl Walk<'_> {
    fn definition(
        &mut self,
        id: &str,
        at: &str,
        into: &mut Map<String, Value>,
        seen: &mut Vec<String>,
    ) {
        if seen.iter().any(|s| s == id) || seen.len() > 8 {
            return;
        }
        seen.push(id.to_string());
        let def = &self.api.definitions[id];
        for p in &def.properties {
            let schema = property_schema(self.spec, id, &p.name);
            let value = match &p.kind {
                PropertyKind::Literal(Literal::Item) => scalar_sample(schema),
                PropertyKind::Literal(Literal::Object) => {
                    let item = &schema["additionalProperties"];
                    if item["$ref"]
                        .as_str()
                        .is_some_and(|r| r.ends_with(".Quantity"))
                    {
                        json!({ "k": "1" })
                    } else if item["type"].is_string()
                        && item["type"] != "array"
                        && item["type"] != "object"
                    {
                        json!({ "k": scalar_sample(item) })
                    } else {
                        json!({})
                    }
                }
                PropertyKind::Literal(Literal::Array) => match schema["items"]["type"].as_str() {
                    Some("string") => json!(["s"]),
                    Some("integer") => json!([3]),
                    _ => json!([]),
                },
                PropertyKind::Reference(target) => {
                    let nested = format!("{at}[{}]", names::quote(&names::format_kind(&p.name)));
                    let mut inner = Map::new();
                    self.definition(target, &nested, &mut inner, seen);
                    if !inner.is_empty() {
                        into.insert(p.name.clone(), Value::Object(inner));
                    }
                    continue;
                }
            };
            self.setters += 1;
            self.calls.push(format!(
                "{at}[{}]({})",
                names::quote(&names::setter(&p.name, false)),
                value
            ));
            into.insert(p.name.clone(), value);
        }
        seen.pop();
    }
}

/// (library path, definition, apiVersion, kind) of the kinds today's apps are made of.
const KINDS: &[(&str, &str, &str, &str)] = &[
    (
        "networking.v1.ingress",
        "io.k8s.api.networking.v1.Ingress",
        "networking.k8s.io/v1",
        "Ingress",
    ),
    (
        "networking.v1.networkPolicy",
        "io.k8s.api.networking.v1.NetworkPolicy",
        "networking.k8s.io/v1",
        "NetworkPolicy",
    ),
    (
        "batch.v1.cronJob",
        "io.k8s.api.batch.v1.CronJob",
        "batch/v1",
        "CronJob",
    ),
    ("batch.v1.job", "io.k8s.api.batch.v1.Job", "batch/v1", "Job"),
    (
        "policy.v1.podDisruptionBudget",
        "io.k8s.api.policy.v1.PodDisruptionBudget",
        "policy/v1",
        "PodDisruptionBudget",
    ),
    (
        "autoscaling.v2.horizontalPodAutoscaler",
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
        "autoscaling/v2",
        "HorizontalPodAutoscaler",
    ),
    (
        "apps.v1.deployment",
        "io.k8s.api.apps.v1.Deployment",
        "apps/v1",
        "Deployment",
    ),
    (
        "apps.v1.statefulSet",
        "io.k8s.api.apps.v1.StatefulSet",
        "apps/v1",
        "StatefulSet",
    ),
    (
        "core.v1.service",
        "io.k8s.api.core.v1.Service",
        "v1",
        "Service",
    ),
];

/// Every setter of each kind, called on `new()`, builds the object the spec says, and
/// Kubernetes' type of the kind keeps every field of it.
#[test]
fn every_setter_of_todays_kinds_builds_what_their_types_read() {
    let spec: Value = serde_json::from_str(spec_text()).unwrap();
    let api = model::ApiSpec::from_swagger(&spec).unwrap();
    let dir = generated();
    for (path, id, api_version, kind) in KINDS {
        let at = format!("k.{path}.mixin");
        let mut walk = Walk {
            spec: &spec,
            api: &api,
            calls: Vec::new(),
            setters: 0,
        };
        let mut want = Map::new();
        let def = &api.definitions[*id];
        // The kind's own setters are on it; its nested objects under `mixin`.
        for p in &def.properties {
            if let PropertyKind::Reference(target) = &p.kind {
                let nested = format!("{at}[{}]", names::quote(&names::format_kind(&p.name)));
                let mut inner = Map::new();
                walk.definition(target, &nested, &mut inner, &mut vec![id.to_string()]);
                want.insert(p.name.clone(), Value::Object(inner));
            }
        }
        assert!(walk.setters > 10, "{path}: {} setters", walk.setters);
        want.insert("apiVersion".into(), json!(api_version));
        want.insert("kind".into(), json!(kind));
        let want = Value::Object(want);
        let code = format!(
            "local k = import 'k.libsonnet';\nk.{path}.new() + {}",
            walk.calls.join("\n + ")
        );
        let got = eval(dir.path(), &code);
        assert_eq!(got, want, "{path}: what its {} setters build", walk.setters);
        let read = kf_kinds::round_trip(api_version, kind, &got)
            .unwrap_or_else(|| panic!("kf_kinds has no type for {api_version} {kind}"))
            .unwrap_or_else(|e| panic!("{path}: k8s-openapi's {kind} does not read it: {e}"));
        let lost = differences(&got, &read, String::new());
        assert!(
            lost.is_empty(),
            "{path}: fields k8s-openapi's {kind} lacks or changes: {lost:?}"
        );
    }
}

/// Paths where `a` has what `b` lacks or holds otherwise.
fn differences(a: &Value, b: &Value, at: String) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x
            .iter()
            .flat_map(|(k, v)| match y.get(k) {
                Some(w) => differences(v, w, format!("{at}.{k}")),
                None if v == &json!({}) || v == &json!([]) => Vec::new(),
                None => vec![format!("{at}.{k}")],
            })
            .collect(),
        _ if a == b => Vec::new(),
        _ => vec![format!("{at}: {a} became {b}")],
    }
}

/// Every kind an operation of the spec takes has `new()` with its apiVersion and kind.
#[test]
fn every_kind_of_todays_api_has_new() {
    let spec: Value = serde_json::from_str(spec_text()).unwrap();
    let n = support::library::assert_every_kind_has_new(&spec, generated().path());
    assert!(n >= 85, "{n} kinds");
}

/// ksonnet-lib's constructors, in today's library: apps/v1 workloads select their pod
/// labels (the API server refuses a Deployment without `spec.selector`), and the v1.10.3
/// library keeps ksonnet's constructor, which never set one.
#[test]
fn todays_workload_constructors_select_their_pod_labels() {
    let dir = generated();
    let got = eval(
        dir.path(),
        "local k = import 'k.libsonnet';\n\
         local c = k.apps.v1.deployment.mixin.spec.template.spec.containersType;\n\
         [k.apps.v1.deployment.new('web', 2, [c.new('web', 'nginx')], { app: 'web' }),\n\
          k.apps.v1.statefulSet.new('db', 1, [c.new('db', 'postgres')], [], { app: 'db' })]",
    );
    for (o, app) in got.as_array().unwrap().iter().zip(["web", "db"]) {
        assert_eq!(
            o["spec"]["selector"]["matchLabels"],
            json!({ "app": app }),
            "{o}"
        );
        assert_eq!(
            o["spec"]["template"]["metadata"]["labels"],
            json!({ "app": app }),
            "{o}"
        );
        let read = kf_kinds::round_trip("apps/v1", o["kind"].as_str().unwrap(), o).unwrap();
        assert!(read.is_ok(), "{read:?}");
    }
    let old = support::library::generated(kf::ksonnetlib::DEFAULT_SPEC);
    let got = eval(
        old.path(),
        "local k = import 'k.libsonnet'; k.apps.v1.deployment.new('web', 2, [], { app: 'web' })",
    );
    assert!(got["spec"].get("selector").is_none(), "{got}");
}
