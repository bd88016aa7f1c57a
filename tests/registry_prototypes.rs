//! Every prototype of the built-in kubeflow registry, rendered with its defaults (env
//! `default`) and with GPUs on (env `prod`): golden files, strict validation of custom
//! resources against the CRDs kf embeds (copies of upstream's, checked equal to them by
//! .ci/check-schemas.py, never by `cargo test`), and a round trip of
//! every built-in kind through its k8s-openapi type.

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;

use kf::prototype::{Catalog, ParamType, Prototype};
use kf::validate::{Finding, Validator};
use serde_json::{Map, Value};
use support::*;

/// Values for required params the type alone cannot guess.
fn required_value(proto: &str, param: &str, kind: ParamType) -> String {
    match (proto, param) {
        (_, "image") => "registry.example.com/ml/train:1.0".into(),
        (_, "modelBasePath") => "gs://example-models/mnist".into(),
        (_, "storageUri") => "gs://example-models/mnist".into(),
        (_, "modelUri") => "gs://example-models/mnist".into(),
        (_, "logDir") => "gs://example-logs/mnist".into(),
        (_, "url") | (_, "gitUrl") | (_, "repoUrl") => {
            "https://github.com/example/ml-manifests".into()
        }
        (_, "service") => "mnist-serving".into(),
        (_, "inputRepo") => "images".into(),
        // Kueue's CRDs want DNS-1123 names (kueue.x-k8s.io_localqueues, spec.clusterQueue).
        (_, "clusterQueue") => "team-a".into(),
        _ => match kind {
            ParamType::Number | ParamType::Integer | ParamType::NumberOrString => "1".into(),
            ParamType::Boolean => "true".into(),
            ParamType::Object => "{}".into(),
            ParamType::Array => "[]".into(),
            ParamType::String => format!("example-{param}"),
        },
    }
}

fn registry_prototypes() -> Vec<Prototype> {
    Catalog::for_app(None)
        .expect("built-in prototypes parse")
        .prototypes
        .into_values()
        .filter(|p| p.package.is_some())
        .collect()
}

fn gpu_params(proto: &Prototype) -> Vec<String> {
    proto
        .params
        .iter()
        .filter(|p| {
            (p.name == "numGpus" || p.name.ends_with("Gpus"))
                && matches!(
                    p.kind,
                    ParamType::Number | ParamType::Integer | ParamType::NumberOrString
                )
        })
        .map(|p| p.name.clone())
        .collect()
}

/// An app with one component per registry prototype; prod turns every GPU param on —
/// as a string, the way ksonnet-era params files often held it.
fn registry_app(protos: &[Prototype]) -> TempApp {
    let app = new_app();
    for proto in protos {
        let short = proto.short_name();
        let mut args = vec!["generate".to_string(), short.to_string(), short.to_string()];
        for p in proto.required().filter(|p| p.name != "name") {
            args.push(format!(
                "--{}={}",
                p.name,
                required_value(short, &p.name, p.kind)
            ));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&app.root, &args);
        for g in gpu_params(proto) {
            ok(
                &app.root,
                &[
                    "param",
                    "set",
                    short,
                    &g,
                    "2",
                    "--env",
                    "prod",
                    "--as-string",
                    // A string where the prototype declares an integer: past the check.
                    "--force",
                ],
            );
        }
        if proto.params.iter().any(|p| p.name == "gpuNodeSelector") {
            ok(
                &app.root,
                &[
                    "param",
                    "set",
                    short,
                    "gpuNodeSelector",
                    "cloud.google.com/gke-accelerator=nvidia-tesla-t4",
                    "--env",
                    "prod",
                ],
            );
        }
    }
    app
}

/// The objects of `show -o json` (one v1 List).
fn objects(json: &str) -> Vec<Map<String, Value>> {
    let list: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    list["items"]
        .as_array()
        .unwrap_or_else(|| panic!("not a List: {json}"))
        .iter()
        .map(|o| o.as_object().unwrap().clone())
        .collect()
}

// ---- CRDs ----------------------------------------------------------------------------

/// The cluster-scoped kinds the registry makes; every other kind is namespaced.
const CLUSTER_SCOPED_KINDS: &[&str] = &[
    "ClusterRole",
    "ClusterRoleBinding",
    // scope: Cluster in kserve/kserve@v0.20.0:config/crd/minimal (kserve-runtimes)
    "ClusterServingRuntime",
    // scope: Cluster in trainer.kubeflow.org_clustertrainingruntimes.yaml (Trainer v2.3)
    "ClusterTrainingRuntime",
    // scope: Cluster in Kueue v0.19.2's kueue.x-k8s.io_clusterqueues.yaml and its
    // resourceflavors and workloadpriorityclasses CRDs (kueue package)
    "ClusterQueue",
    "CustomResourceDefinition",
    "MutatingWebhookConfiguration",
    "Namespace",
    "ResourceFlavor",
    "ValidatingWebhookConfiguration",
    "WorkloadPriorityClass",
];

/// The namespace rule: a namespaced object names `namespace`, a cluster-scoped one none.
fn namespace_problem(obj: &Map<String, Value>, namespace: &str) -> Option<String> {
    let kind = obj["kind"].as_str().unwrap_or_default();
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    let got = obj["metadata"].get("namespace").and_then(Value::as_str);
    match (CLUSTER_SCOPED_KINDS.contains(&kind), got) {
        (true, None) => None,
        (true, Some(ns)) => Some(format!("{kind}/{name} is cluster-scoped but names {ns}")),
        (false, Some(ns)) if ns == namespace => None,
        (false, got) => Some(format!(
            "{kind}/{name} is in {got:?}, not the environment's {namespace}"
        )),
    }
}

/// Kinds whose archived operators published CRDs without any schema (kubeflow/chainer-operator
/// deploy/0-crd.yaml, kubeflow/caffe2-operator examples/crd.yaml): nothing upstream to check
/// their objects against, which the test states explicitly.
const SCHEMALESS_KINDS: &[&str] = &["ChainerJob", "Caffe2Job"];

/// The API group of cert-manager, which kserve-controller and seldon-operator `@requires`
/// for their webhook certificates (Issuer, Certificate): no registry package installs it,
/// so kf has no CRD to check those objects against.
const REQUIRED_ELSEWHERE_GROUP: &str = "cert-manager.io/";

/// The CRD objects the registry packages embed (registry/kubeflow/*/crds/*.json), by name.
fn embedded_crds() -> BTreeMap<String, Value> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("registry/kubeflow");
    let mut crds = BTreeMap::new();
    for pkg in std::fs::read_dir(&root).unwrap().flatten() {
        let Ok(files) = std::fs::read_dir(pkg.path().join("crds")) else {
            continue;
        };
        for file in files.flatten() {
            let value: Value = serde_json::from_str(&read(file.path())).unwrap();
            let items = match value {
                Value::Array(items) => items,
                one => vec![one],
            };
            for crd in items {
                let name = crd["metadata"]["name"].as_str().unwrap().to_string();
                crds.insert(name, crd);
            }
        }
    }
    crds
}

/// A CRD in a golden file is shortened to its name and a hash of its spec; the test checks
/// separately that it is exactly upstream's.
fn for_golden(mut obj: Map<String, Value>) -> Map<String, Value> {
    if obj.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
        && let Some(spec) = obj.get("spec")
    {
        let text = serde_json::to_string(spec).unwrap();
        let hash = text.bytes().fold(0xcbf29ce484222325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
        });
        obj.insert(
            "spec".into(),
            Value::String(format!(
                "<{} bytes of JSON, FNV-1a {hash:016x}>",
                text.len()
            )),
        );
    }
    obj
}

/// A CRD spec without the Service its conversion webhook names: a package may point it
/// at the webhook it renders (emissary-crds sends the getambassador.io conversion to its
/// own emissary-apiext, in the namespace it renders it in).
fn without_conversion_service(spec: &Value) -> Value {
    let mut spec = spec.clone();
    if let Some(service) = spec
        .pointer_mut("/conversion/webhook/clientConfig/service")
        .and_then(Value::as_object_mut)
    {
        service.remove("name");
        service.remove("namespace");
    }
    spec
}

/// A schema node that says "one of these types" and no type of its own: Emissary's
/// union fields (`ambassador_id`: a string or a list), which no API server accepts.
fn is_type_union(node: &Value) -> bool {
    node.get("type").is_none()
        && node["oneOf"].as_array().is_some_and(|o| {
            !o.is_empty()
                && o.iter().all(|t| {
                    t.as_object()
                        .is_some_and(|t| t.len() == 1 && t.contains_key("type"))
                })
        })
}

/// `rendered` is `embedded` but for what Emissary's tools/src/fix-crds does for an API
/// server: every property or additionalProperties that is a type union (or an array of
/// them) left out, and the object that held it marked `x-kubernetes-preserve-unknown-fields`. Anything else that
/// differs is a difference.
fn unions_left_out(embedded: &Value, rendered: &Value) -> bool {
    let (e, r) = match (embedded, rendered) {
        (Value::Object(e), Value::Object(r)) => (e, r),
        (Value::Array(e), Value::Array(r)) => {
            return e.len() == r.len() && e.iter().zip(r).all(|(e, r)| unions_left_out(e, r));
        }
        _ => return embedded == rendered,
    };
    let left_out = |v: &Value| is_type_union(v) || is_type_union(&v["items"]);
    let mut dropped = false;
    for (key, value) in e {
        if key == "properties" && value.is_object() {
            let (Some(ep), Some(rp)) = (value.as_object(), r.get(key).and_then(Value::as_object))
            else {
                return false;
            };
            for (name, field) in ep {
                match rp.get(name) {
                    None if left_out(field) => dropped = true,
                    Some(kept) if !left_out(field) && unions_left_out(field, kept) => {}
                    _ => return false,
                }
            }
            if rp.keys().any(|k| !ep.contains_key(k)) {
                return false;
            }
        } else if key == "additionalProperties" && left_out(value) && !r.contains_key(key) {
            dropped = true;
        } else if !r.get(key).is_some_and(|kept| unions_left_out(value, kept)) {
            return false;
        }
    }
    r.keys().all(|k| {
        e.contains_key(k)
            || (k == "x-kubernetes-preserve-unknown-fields" && dropped && r[k] == Value::Bool(true))
    })
}

fn to_yaml(objs: &[Map<String, Value>]) -> String {
    let mut out = String::new();
    for o in objs {
        out.push_str("---\n");
        out.push_str(&serde_saphyr::to_string(&Value::Object(for_golden(o.clone()))).unwrap());
    }
    out
}

fn has_gpu_fields(obj: &Map<String, Value>) -> bool {
    if obj.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition") {
        return false;
    }
    let text = serde_json::to_string(obj).unwrap();
    text.contains("nvidia.com/gpu") || text.contains("gke-accelerator")
}

/// Prototypes whose objects the user's helm renders from a chart vendored in the app:
/// tests/helm.rs renders them with the real helm and Kueue's upstream chart.
const RENDERED_BY_HELM: &[&str] = &["kueue-controller"];

#[test]
fn every_registry_prototype_renders_validates_and_matches_its_golden_files() {
    let protos: Vec<Prototype> = registry_prototypes()
        .into_iter()
        .filter(|p| !RENDERED_BY_HELM.contains(&p.short_name()))
        .collect();
    assert!(!protos.is_empty(), "the built-in registry has prototypes");
    let app = registry_app(&protos);
    let mut validator = Validator::with_builtin_crds();
    let crds = embedded_crds();
    let mut failures = Vec::new();
    // Rendered first, so a custom resource is checked against the CRD another prototype
    // writes (kserve-runtimes' ClusterServingRuntimes, kserve-controller's CRD), as
    // `kf validate` does with the CRDs of an app.
    let mut rendered = BTreeMap::new();
    for proto in &protos {
        for env in ["default", "prod"] {
            let short = proto.short_name();
            let objs = objects(&ok(&app.root, &["show", env, "-c", short, "-o", "json"]));
            for obj in objs
                .iter()
                .filter(|o| o["kind"] == "CustomResourceDefinition")
            {
                validator.add_crds(&Value::Object(obj.clone()));
            }
            rendered.insert((short.to_string(), env), objs);
        }
    }
    for proto in &protos {
        let short = proto.short_name();
        let gpus = gpu_params(proto);
        for env in ["default", "prod"] {
            let objs = &rendered[&(short.to_string(), env)];
            if objs.is_empty() {
                failures.push(format!("{short} ({env}): renders no objects"));
            }
            let namespace = if env == "prod" { "ml-prod" } else { "ml-dev" };
            for obj in objs {
                if let Some(problem) = namespace_problem(obj, namespace) {
                    failures.push(format!("{short} ({env}): {problem}"));
                }
                let schemaless = obj
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| SCHEMALESS_KINDS.contains(&k));
                let required_elsewhere = obj
                    .get("apiVersion")
                    .and_then(Value::as_str)
                    .is_some_and(|a| a.starts_with(REQUIRED_ELSEWHERE_GROUP));
                match validator.validate(obj) {
                    None => {}
                    Some(Finding::Unchecked(_)) if schemaless || required_elsewhere => {}
                    Some(Finding::Error(e)) | Some(Finding::Unchecked(e)) => {
                        failures.push(format!("{short} ({env}): {e}"))
                    }
                }
                // A CRD a package renders is the file it embeds (which .ci/check-schemas.py
                // checks is upstream's), unchanged but for what an API server needs of it.
                if obj["kind"] == "CustomResourceDefinition" {
                    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
                    match crds.get(name) {
                        Some(embedded)
                            if unions_left_out(
                                &without_conversion_service(&embedded["spec"]),
                                &without_conversion_service(&obj["spec"]),
                            ) => {}
                        Some(_) => failures.push(format!(
                            "{short}: CRD {name} differs from the file its package embeds"
                        )),
                        // Written here (e.g. Argo's smaller CRDs): checked by the round trip.
                        None => {}
                    }
                }
            }
            let gpu_objects = objs.iter().filter(|o| has_gpu_fields(o)).count();
            // An LLM needs a GPU: llm-serve and llm-finetune ask for one by default (issue
            // 48), and Trainer's torchtune runtimes ask for 2, as upstream ships them.
            let gpu_by_default =
                ["llm-serve", "llm-finetune", "training-runtimes"].contains(&short);
            if env == "default" && gpu_objects > 0 && !gpu_by_default {
                failures.push(format!("{short}: GPU fields with 0 GPUs (defaults)"));
            }
            if env == "prod" && !gpus.is_empty() && gpu_objects == 0 {
                failures.push(format!(
                    "{short}: {gpus:?} = \"2\" in prod, but no GPU limit or selector"
                ));
            }
            golden(&format!("registry/{short}.{env}.yaml"), &to_yaml(objs));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // kf's own validator knows every schema the registry needs (the two archived
    // operators' CRDs have none, and cert-manager, which the KServe and Seldon operators
    // require for their webhook certificates, is not a registry package).
    for env in ["default", "prod"] {
        let run = kf_in(&app.root, &["validate", env]);
        assert_eq!(run.status, 0, "{}", run.stderr);
        for line in run.stderr.lines() {
            assert!(
                line.contains("ChainerJob")
                    || line.contains("Caffe2Job")
                    || line.contains("cert-manager.io/v1"),
                "unexpected: {line}"
            );
        }
    }
}

#[test]
fn generating_a_registry_prototype_vendors_its_package_once() {
    let app = new_app();
    let protos = registry_prototypes();
    let tf = protos
        .iter()
        .find(|p| p.short_name() == "tf-job")
        .expect("tf-job is built in");
    let pkg = tf.package.clone().unwrap();
    ok(
        &app.root,
        &["generate", "tf-job", "mnist", "--image=example/mnist:1"],
    );
    let vendored = app.root.join("vendor").join(&pkg.registry).join(&pkg.name);
    assert!(vendored.join("prototypes/tf-job.jsonnet").is_file());
    assert!(
        app.root
            .join("vendor/kubeflow/common/gpu.libsonnet")
            .is_file(),
        "dependencies too"
    );
    let app_yaml = read(app.root.join("app.yaml"));
    assert!(app_yaml.contains(&format!("{pkg}:")), "{app_yaml}");

    // A local edit of the vendored copy is what renders, and a second generate keeps it.
    let lib = std::fs::read_dir(&vendored)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "libsonnet"))
        .expect("the package has a library");
    let before = read(&lib);
    write(&lib, &format!("{before}\n// edited\n"));
    ok(
        &app.root,
        &["generate", "tf-job", "mnist2", "--image=example/mnist:1"],
    );
    assert!(read(&lib).ends_with("// edited\n"));

    // workerGpus in prod changes prod only.
    let dev_before = ok(&app.root, &["show", "default", "-c", "mnist"]);
    let prod_before = ok(&app.root, &["show", "prod", "-c", "mnist"]);
    ok(
        &app.root,
        &["param", "set", "mnist", "workerGpus", "4", "--env", "prod"],
    );
    assert_eq!(
        ok(&app.root, &["show", "default", "-c", "mnist"]),
        dev_before
    );
    let prod = ok(&app.root, &["show", "prod", "-c", "mnist"]);
    assert_ne!(prod, prod_before);
    assert!(prod.contains("nvidia.com/gpu: 4"), "{prod}");
}

#[test]
fn prototype_list_shows_the_registry_right_after_init() {
    let dir = tempfile::tempdir().unwrap();
    ok(dir.path(), &["init", "fresh"]);
    let list = ok(&dir.path().join("fresh"), &["prototype", "list"]);
    for proto in registry_prototypes() {
        assert!(
            list.contains(&proto.name),
            "{} missing from:\n{list}",
            proto.name
        );
    }
}

#[test]
fn gpu_params_are_type_safe_and_vendor_neutral() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "pytorch-job", "bert", "--numWorkers=2"],
    );
    // "0", 0, null and "null" all mean no GPUs: no limit, selector, toleration or GPU
    // image. The strings are what ksonnet-era params files held; kf's check refuses them
    // for a number param, so they are set past it with --force.
    for (value, as_string) in [("0", true), ("0", false), ("null", false), ("null", true)] {
        let mut args = vec!["param", "set", "bert", "numGpus", value, "--env", "prod"];
        if as_string {
            args.extend(["--as-string", "--force"]);
        }
        ok(&app.root, &args);
        ok(
            &app.root,
            &[
                "param",
                "set",
                "bert",
                "gpuNodeSelector",
                "gpu=yes",
                "--env",
                "prod",
            ],
        );
        let out = ok(&app.root, &["show", "prod", "-c", "bert"]);
        assert!(
            !out.contains("nvidia.com/gpu") && !out.contains("gpu: \"yes\""),
            "numGpus={value}: {out}"
        );
        assert!(
            !out.contains("tolerations") && !out.contains("nodeSelector"),
            "{out}"
        );
    }
    // AMD GPUs: the resource name changes everywhere, nothing mentions NVIDIA.
    ok(
        &app.root,
        &["param", "set", "bert", "numGpus", "2", "--env", "prod"],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "bert",
            "gpuResource",
            "amd.com/gpu",
            "--env",
            "prod",
        ],
    );
    let out = ok(&app.root, &["show", "prod", "-c", "bert"]);
    assert!(
        out.contains("amd.com/gpu: 2") && out.contains("key: amd.com/gpu"),
        "{out}"
    );
    assert!(!out.contains("nvidia.com/gpu"), "{out}");
    assert!(
        out.contains("gpu: \"yes\""),
        "the selector applies now: {out}"
    );
    // A value that is not a number is refused when it is set, naming the param…
    let before = snapshot(&app.root);
    let err = fails(
        &app.root,
        &["param", "set", "bert", "numGpus", "two", "--env", "prod"],
    );
    assert!(
        err.contains("numGpus: 'two' is not a valid integer")
            && err.contains("io.ksonnet.pkg.pytorch-job"),
        "{err}"
    );
    // …and so is a count that is not whole (it failed only at render).
    let err = fails(&app.root, &["param", "set", "bert", "numWorkers", "2.5"]);
    assert!(
        err.contains("numWorkers: '2.5' is not a valid integer (it is not a whole number; give a whole number, e.g. 4)"),
        "{err}"
    );
    let err = fails(&app.root, &["generate", "tf-job", "half", "--numPs=0.5"]);
    assert!(err.contains("0.5") && err.contains("whole number"), "{err}");
    assert_eq!(snapshot(&app.root), before);
    // …and, set past the check, is a clear render error naming it.
    ok(
        &app.root,
        &[
            "param", "set", "bert", "numGpus", "two", "--env", "prod", "--force",
        ],
    );
    let err = fails(&app.root, &["show", "prod", "-c", "bert"]);
    assert!(
        err.contains("numGpus: \"two\" is not a whole number"),
        "{err}"
    );
    // The error starts with the param, the file and line that set it, and the command
    // that sets it right; the Jsonnet trace (in the package's libraries) follows.
    let line_of = |file: &str, key: &str| {
        let text = read(app.root.join(file));
        1 + text
            .lines()
            .position(|l| l.trim_start().starts_with(key))
            .unwrap()
    };
    let at = line_of("environments/prod/params.libsonnet", "numGpus:");
    assert!(
        err.starts_with(&format!(
            "error: component 'bert': environments/prod/params.libsonnet:{at}: param numGpus: 'two' is not a valid integer"
        )) && err.contains("`kf param set bert numGpus VALUE --env prod` sets it"),
        "{err}"
    );
    // A value the libraries meet inside a List's items (jrsonnet lost that error and said
    // "infinite recursion detected"), set in the component params.
    ok(
        &app.root,
        &["param", "set", "bert", "numWorkers", "2.5", "--force"],
    );
    let err = fails(&app.root, &["show", "default", "-c", "bert"]);
    let at = line_of("components/params.libsonnet", "numWorkers:");
    assert!(
        err.contains(&format!(
            "components/params.libsonnet:{at}: param numWorkers: '2.5' is not a valid integer (it is not a whole number"
        )) && err.contains("numWorkers: 2.5 is not a whole number")
            && !err.contains("infinite recursion"),
        "{err}"
    );
}

/// The runtimes a TrainJob names must exist and have the job and container the TrainJob's
/// trainer settings go to: Trainer v2.3 applies them to the container named `node` of the
/// replicated job labelled `trainer.kubeflow.org/trainjob-ancestor-step: trainer`
/// (kubeflow/trainer v2.3.0 manifests/base/runtimes/*.yaml; .ci/check-runtimes.py compares
/// kf's rendering with those files field by field).
#[test]
fn training_runtimes_hold_what_train_job_points_at() {
    let app = new_app();
    ok(&app.root, &["generate", "training-runtimes", "runtimes"]);
    ok(&app.root, &["generate", "train-job", "ft", "--numGpus=2"]);
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    let runtimes: BTreeMap<String, &Map<String, Value>> = objs
        .iter()
        .filter(|o| o["kind"] == "ClusterTrainingRuntime")
        .map(|o| (o["metadata"]["name"].as_str().unwrap().to_string(), o))
        .collect();
    assert_eq!(
        runtimes.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "deepspeed-distributed",
            "jax-distributed",
            "mlx-distributed",
            "torch-distributed",
            "torchtune-llama3.2-1b",
            "torchtune-llama3.2-3b",
            "torchtune-qwen2.5-1.5b",
            "xgboost-distributed"
        ]
    );
    for (name, rt) in &runtimes {
        assert!(
            rt["metadata"].get("namespace").is_none(),
            "{name}: cluster-scoped"
        );
        let jobs = rt["spec"]["template"]["spec"]["replicatedJobs"]
            .as_array()
            .unwrap();
        let trainer_jobs: Vec<&Value> = jobs
            .iter()
            .filter(|j| {
                j["template"]["metadata"]["labels"]["trainer.kubeflow.org/trainjob-ancestor-step"]
                    == "trainer"
            })
            .collect();
        assert_eq!(trainer_jobs.len(), 1, "{name}: one trainer job");
        for j in jobs {
            let containers = j["template"]["spec"]["template"]["spec"]["containers"]
                .as_array()
                .unwrap();
            // The trainer's job trains in `node` (the torchtune runtimes' initializer jobs
            // run containers named after themselves, as upstream's do).
            if j["name"] == "node" || trainer_jobs.contains(&j) {
                assert!(containers.iter().any(|c| c["name"] == "node"), "{name}");
            }
            for c in containers {
                let image = c["image"].as_str().unwrap();
                if image.starts_with("ghcr.io/kubeflow/trainer/") {
                    assert!(image.ends_with(":v2.3.0"), "{name}: {image} pinned");
                }
            }
        }
        if name.starts_with("deepspeed") || name.starts_with("mlx") {
            let launcher = jobs.iter().find(|j| j["name"] == "launcher").unwrap();
            assert_eq!(launcher["dependsOn"][0]["name"], "node");
            assert_eq!(launcher["dependsOn"][0]["status"], "Ready");
            assert_eq!(rt["spec"]["mlPolicy"]["mpi"]["runLauncherAsNode"], true);
        }
    }
    // The TrainJob's defaults point at a runtime that is there, and its GPU patch at a
    // replicated job that runtime has.
    let job = objs.iter().find(|o| o["kind"] == "TrainJob").unwrap();
    let runtime = runtimes[job["spec"]["runtimeRef"]["name"].as_str().unwrap()];
    let target = &job["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
        [0]["name"];
    assert!(
        runtime["spec"]["template"]["spec"]["replicatedJobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["name"] == *target),
        "{target}"
    );
    // A runtime Trainer does not ship is refused with the names it does ship.
    ok(
        &app.root,
        &[
            "param",
            "set",
            "runtimes",
            "runtimes",
            "torch-distributed pytorch",
        ],
    );
    let err = fails(&app.root, &["show", "default", "-c", "runtimes"]);
    assert!(
        err.contains("unknown runtime \"pytorch\"") && err.contains("torch-distributed"),
        "{err}"
    );
}

/// The archived operators' prototypes make their jobs runnable: the CRD serves the kind
/// and version the job prototypes render (as apiextensions.k8s.io/v1, since v1beta1 CRDs
/// are gone from Kubernetes 1.22), the Deployment runs as a ServiceAccount bound to a
/// ClusterRole over the job kind, and validation then knows the kind.
#[test]
fn legacy_operators_serve_the_jobs_their_prototypes_render() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "chainer-operator", "chainer-operator"],
    );
    ok(
        &app.root,
        &["generate", "chainer-job", "mnist", "--numWorkers=2"],
    );
    let err = fails(
        &app.root,
        &["generate", "caffe2-operator", "caffe2-operator"],
    );
    assert!(err.contains("image"), "upstream published no image: {err}");
    ok(
        &app.root,
        &[
            "generate",
            "caffe2-operator",
            "caffe2-operator",
            "--image=registry.example.com/caffe2-operator:dev",
        ],
    );
    ok(&app.root, &["generate", "caffe2-job", "resnet"]);
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    for (job_kind, plural, operator) in [
        ("ChainerJob", "chainerjobs", "chainer-operator"),
        ("Caffe2Job", "caffe2jobs", "caffe2-operator"),
    ] {
        let job = objs.iter().find(|o| o["kind"] == job_kind).unwrap();
        let crd = objs
            .iter()
            .find(|o| {
                o["kind"] == "CustomResourceDefinition" && o["spec"]["names"]["kind"] == job_kind
            })
            .unwrap_or_else(|| panic!("{operator} installs the {job_kind} CRD"));
        assert_eq!(crd["apiVersion"], "apiextensions.k8s.io/v1");
        assert_eq!(crd["metadata"]["name"], format!("{plural}.kubeflow.org"));
        let (group, version) = job["apiVersion"].as_str().unwrap().split_once('/').unwrap();
        assert_eq!(crd["spec"]["group"], group);
        assert_eq!(crd["spec"]["versions"][0]["name"], version);
        assert_eq!(crd["spec"]["versions"][0]["served"], true);
        let deploy = objs
            .iter()
            .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == operator)
            .unwrap();
        let sa = &deploy["spec"]["template"]["spec"]["serviceAccountName"];
        let binding = objs
            .iter()
            .find(|o| o["kind"] == "ClusterRoleBinding" && o["subjects"][0]["name"] == *sa)
            .unwrap();
        let role = objs
            .iter()
            .find(|o| {
                o["kind"] == "ClusterRole" && o["metadata"]["name"] == binding["roleRef"]["name"]
            })
            .unwrap();
        assert!(
            role["rules"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| { r["apiGroups"][0] == "kubeflow.org" && r["resources"][0] == plural }),
            "{operator} may manage {plural}"
        );
    }
    let run = kf_in(&app.root, &["validate", "default"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("not checked"), "{}", run.stderr);
}

/// The jupyterhub prototype's jupyterhub_config.py, run by Python with the settings the
/// render puts next to it and a stand-in for JupyterHub's `get_config`: the settings
/// that make a hub usable reach the traitlets they are meant for (KubeSpawner's uid and
/// fs_gid as z2jh sets them, the idle culler service and its role with the scopes
/// jupyterhub-idle-culler's README lists, Google's hosted_domain with allow_all).
#[test]
fn jupyterhub_config_sets_homes_culler_and_google_domains() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "jupyterhub",
            "jupyterhub",
            "--authenticator=google",
            "--oauthClientId=id",
            "--oauthClientSecretName=oauth",
            r#"--allowedGroups=["example.com"]"#,
        ],
    );
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    let config = objs.iter().find(|o| o["kind"] == "ConfigMap").unwrap();
    let dir = tempfile::tempdir().unwrap();
    for file in [
        "jupyterhub_config.py",
        "settings.json",
        "ensure_proxy_token.py",
    ] {
        std::fs::write(
            dir.path().join(file),
            config["data"][file].as_str().unwrap(),
        )
        .unwrap();
    }
    let hub = objs
        .iter()
        .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == "jupyterhub-hub")
        .unwrap();
    let pod = &hub["spec"]["template"]["spec"];
    assert_eq!(
        pod["initContainers"][0]["command"][1],
        "/etc/jupyterhub/ensure_proxy_token.py"
    );
    assert!(
        pod["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["persistentVolumeClaim"]["claimName"] == "jupyterhub-hub-db"),
        "the hub database is on a PVC by default"
    );
    let script = r#"
import json, os, sys
class Section(dict):
    def __getattr__(self, k):
        return self.setdefault(k, Section())
    def __setattr__(self, k, v):
        self[k] = v
c = Section()
os.environ.update(CONFIGPROXY_AUTH_TOKEN='t', POD_NAMESPACE='ml', OAUTH_CLIENT_SECRET='s')
exec(open(sys.argv[1]).read(), {'get_config': lambda: c, '__file__': sys.argv[1]})
print(json.dumps(c, default=sorted))
"#;
    let config = dir.path().join("jupyterhub_config.py");
    let Some(out) = python3(&["-c", script, config.to_str().unwrap()], "") else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(c["KubeSpawner"]["uid"], 1000);
    assert_eq!(c["KubeSpawner"]["fs_gid"], 100);
    assert_eq!(
        c["GoogleOAuthenticator"]["hosted_domain"],
        serde_json::json!(["example.com"])
    );
    assert_eq!(c["Authenticator"]["allow_all"], true);
    let service = &c["JupyterHub"]["services"][0];
    assert_eq!(service["name"], "jupyterhub-idle-culler");
    assert!(
        service["command"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "--timeout=3600")
    );
    assert_eq!(
        c["JupyterHub"]["load_roles"][0]["scopes"],
        serde_json::json!([
            "list:users",
            "read:users:activity",
            "read:servers",
            "delete:servers"
        ])
    );
    assert_eq!(
        c["JupyterHub"]["load_roles"][0]["services"][0],
        "jupyterhub-idle-culler"
    );
}

/// Every registry prototype says what must be on the cluster first (`// @requires`), and
/// that list is what `prototype describe` and docs/prototypes/ show.
#[test]
fn every_registry_prototype_states_its_prerequisites() {
    let app = new_app();
    for proto in registry_prototypes() {
        let short = proto.short_name();
        assert!(
            !proto.requires.is_empty(),
            "{short} has no // @requires line"
        );
        let described = ok(&app.root, &["prototype", "describe", short]);
        let page = std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("docs/prototypes/{short}.md")),
        )
        .unwrap();
        for r in &proto.requires {
            assert!(
                described.contains(&format!("  - {r}\n")),
                "{short}: {described}"
            );
            assert!(page.contains(&format!("- {r}\n")), "{short}: docs page");
        }
    }
}

/// TF Serving 2.7+ has no S3 file system and TensorBoard needs tensorflow-io for it, so an
/// s3:// path is copied into the pod (aws-cli init container and a syncing sidecar) and the
/// server reads the local copy; `s3Mode=native` keeps the s3:// path for images that can.
#[test]
fn s3_models_and_logs_are_synced_into_the_pod() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "tf-serving",
            "mnist",
            "--modelBasePath=s3://models/mnist",
            "--s3SecretName=aws",
            "--s3Endpoint=minio.kubeflow:9000",
            "--s3UseHttps=false",
        ],
    );
    ok(
        &app.root,
        &["generate", "tensorboard", "tb", "--logDir=s3://logs/mnist"],
    );
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    let pod = |name: &str| {
        objs.iter()
            .find(|o| o["kind"] == "Deployment" && o["metadata"]["name"] == name)
            .unwrap()["spec"]["template"]["spec"]
            .clone()
    };
    let serving = pod("mnist-v1");
    let server = &serving["containers"][0];
    assert_eq!(server["name"], "tf-serving");
    assert!(
        server["args"]
            .as_array()
            .unwrap()
            .contains(&Value::from("--model_base_path=/mnt/models"))
    );
    assert!(
        !server.to_string().contains("AWS_"),
        "the server gets no S3 settings it cannot use"
    );
    let init = &serving["initContainers"][0];
    let script = init["command"][2].as_str().unwrap();
    assert!(
        script.starts_with("aws s3 sync s3://models/mnist /mnt/s3-staging")
            && script.contains("--endpoint-url http://minio.kubeflow:9000")
            && script.contains("mv \"/mnt/models/.$n.tmp\" \"/mnt/models/$n\""),
        "{script}"
    );
    assert_eq!(init["env"][0]["valueFrom"]["secretKeyRef"]["name"], "aws");
    let sidecar = &serving["containers"][1];
    assert_eq!(sidecar["name"], "s3-sync");
    assert!(
        sidecar["command"][2]
            .as_str()
            .unwrap()
            .starts_with("while true; do sleep 60; aws s3 sync")
    );
    let tb = pod("tb");
    assert!(
        tb["containers"][0]["args"]
            .as_array()
            .unwrap()
            .contains(&Value::from("--logdir=/mnt/logs"))
    );
    assert!(
        tb["initContainers"][0]["command"][2]
            .as_str()
            .unwrap()
            .starts_with("aws s3 sync s3://logs/mnist /mnt/logs")
    );

    ok(&app.root, &["param", "set", "mnist", "s3Mode", "native"]);
    let objs = objects(&ok(
        &app.root,
        &["show", "default", "-c", "mnist", "-o", "json"],
    ));
    let spec =
        &objs.iter().find(|o| o["kind"] == "Deployment").unwrap()["spec"]["template"]["spec"];
    assert!(spec.get("initContainers").is_none());
    assert!(
        spec["containers"][0]["args"]
            .as_array()
            .unwrap()
            .contains(&Value::from("--model_base_path=s3://models/mnist"))
    );
}

/// The argo-workflow serve step applies an InferenceService as the Workflow's
/// ServiceAccount, so that account is bound to a Role over inferenceservices with what
/// `kubectl apply` and the status conditions use; a GPU model gets KServe's GPU build of
/// the tensorflow runtime (tensorflow/serving:<runtimeVersion>).
#[test]
fn argo_workflow_serve_step_has_rbac_and_a_gpu_runtime() {
    let app = new_app();
    ok(&app.root, &["generate", "argo-workflow", "mnist"]);
    ok(
        &app.root,
        &["param", "set", "mnist", "numGpus", "1", "--env", "prod"],
    );
    for env in ["default", "prod"] {
        let objs = objects(&ok(&app.root, &["show", env, "-o", "json"]));
        let wf = objs.iter().find(|o| o["kind"] == "Workflow").unwrap();
        let sa = wf["spec"]["serviceAccountName"].as_str().unwrap();
        let binding = objs.iter().find(|o| o["kind"] == "RoleBinding").unwrap();
        assert_eq!(binding["subjects"][0]["name"], sa);
        let role = objs
            .iter()
            .find(|o| o["kind"] == "Role" && o["metadata"]["name"] == binding["roleRef"]["name"])
            .unwrap();
        let rule = &role["rules"][0];
        assert_eq!(rule["apiGroups"][0], "serving.kserve.io");
        assert_eq!(rule["resources"][0], "inferenceservices");
        for verb in ["get", "create", "patch"] {
            assert!(
                rule["verbs"]
                    .as_array()
                    .unwrap()
                    .contains(&Value::from(verb)),
                "{verb}"
            );
        }
        let serve = wf["spec"]["templates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "serve")
            .unwrap();
        let manifest = serve["resource"]["manifest"].as_str().unwrap();
        assert_eq!(
            manifest.contains("runtimeVersion: \"2.6.2-gpu\""),
            env == "prod",
            "{env}: {manifest}"
        );
    }
    ok(&app.root, &["param", "set", "mnist", "serveKind", "none"]);
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    assert!(
        objs.iter()
            .all(|o| o["kind"] != "Role" && o["kind"] != "RoleBinding")
    );
}

/// Every pod spec under `v` (operators nest them in replica specs of various names).
fn pod_specs(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(m) => {
            if m.contains_key("containers") {
                out.push(v.clone());
            }
            m.values().for_each(|x| pod_specs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| pod_specs(x, out)),
        _ => {}
    }
}

/// The job basics a real training job needs reach every replica of every training-job
/// prototype, through the one shared builder (common/jobs.libsonnet). (train-job's
/// TrainJob has no place for the scheduling ones; tests/ml_prototypes.rs checks the rest.)
#[test]
fn every_training_job_takes_resources_storage_shm_and_scheduling() {
    let app = new_app();
    let jobs: Vec<Prototype> = registry_prototypes()
        .into_iter()
        .filter(|p| {
            p.params.iter().any(|x| x.name == "shmSize")
                && p.params.iter().any(|x| x.name == "priorityClassName")
        })
        .collect();
    assert!(jobs.len() >= 9, "{}", jobs.len());
    for proto in &jobs {
        let short = proto.short_name();
        ok(
            &app.root,
            &[
                "generate",
                short,
                short,
                "--cpu=4",
                "--memory=16Gi",
                "--shmSize=8Gi",
                "--pvcName=data",
                "--serviceAccountName=trainer",
                "--imagePullSecrets=regcred",
                "--priorityClassName=high",
                "--schedulerName=volcano",
                "--queueName=team-a",
            ],
        );
        let objs = objects(&ok(
            &app.root,
            &["show", "default", "-c", short, "-o", "json"],
        ));
        // tf-job, pytorch-job and jax-job also render their example script's ConfigMap.
        let job = objs
            .iter()
            .find(|o| o["kind"] != "ConfigMap")
            .unwrap_or_else(|| panic!("{short}: no job"));
        assert_eq!(
            job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"], "team-a",
            "{short}"
        );
        let mut pods = Vec::new();
        pod_specs(&Value::Object(job.clone()), &mut pods);
        assert!(!pods.is_empty(), "{short}");
        for pod in &pods {
            let c = &pod["containers"][0];
            assert_eq!(c["resources"]["requests"]["cpu"], "4", "{short}");
            assert_eq!(c["resources"]["limits"]["memory"], "16Gi", "{short}");
            let mounts = c["volumeMounts"].as_array().unwrap();
            assert!(
                mounts.iter().any(|m| m["mountPath"] == "/dev/shm"),
                "{short}"
            );
            assert!(
                mounts.iter().any(|m| m["mountPath"] == "/mnt/data"),
                "{short}"
            );
            let vols = pod["volumes"].as_array().unwrap();
            assert!(
                vols.iter()
                    .any(|v| v["emptyDir"]["medium"] == "Memory"
                        && v["emptyDir"]["sizeLimit"] == "8Gi"),
                "{short}"
            );
            assert!(
                vols.iter()
                    .any(|v| v["persistentVolumeClaim"]["claimName"] == "data"),
                "{short}"
            );
            assert_eq!(pod["serviceAccountName"], "trainer", "{short}");
            assert_eq!(pod["imagePullSecrets"][0]["name"], "regcred", "{short}");
            assert_eq!(pod["priorityClassName"], "high", "{short}");
            assert_eq!(pod["schedulerName"], "volcano", "{short}");
        }
    }
}

/// Defaults that run (training-operator v1.9 examples): XGBoost trains on the CPU unless
/// told device=cuda, so kf's XGBoost example is told so on replicas with GPUs and only
/// there; Paddle's default command is its distributed self-check, and a Paddle replica
/// with GPUs gets Paddle's CUDA image while CPU replicas keep the CPU one.
#[test]
fn job_defaults_run_and_gpu_replicas_get_gpu_images() {
    let app = new_app();
    ok(&app.root, &["generate", "xgboost-job", "xgb"]);
    ok(&app.root, &["param", "set", "xgb", "workerGpus", "1"]);
    ok(
        &app.root,
        &["generate", "paddle-job", "pd", "--numWorkers=2"],
    );
    ok(
        &app.root,
        &["param", "set", "pd", "numGpus", "1", "--env", "prod"],
    );
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    let xgb = objs.iter().find(|o| o["kind"] == "XGBoostJob").unwrap();
    for (replica, on_gpu) in [("Master", false), ("Worker", true)] {
        let c = &xgb["spec"]["xgbReplicaSpecs"][replica]["template"]["spec"]["containers"][0];
        assert_eq!(c["command"][1], "/opt/kf-example/train.py", "{replica}");
        let cuda = c["args"]
            .as_array()
            .is_some_and(|a| a.contains(&Value::from("--device=cuda")));
        assert_eq!(cuda, on_gpu, "{replica}: {c}");
        assert_eq!(
            !c["resources"]["limits"]["nvidia.com/gpu"].is_null(),
            on_gpu,
            "{replica}"
        );
    }
    for (env, gpu_image) in [("default", false), ("prod", true)] {
        let objs = objects(&ok(&app.root, &["show", env, "-c", "pd", "-o", "json"]));
        let mut pods = Vec::new();
        pod_specs(&Value::Object(objs[0].clone()), &mut pods);
        for pod in &pods {
            let c = &pod["containers"][0];
            assert_eq!(c["command"][2], "paddle.distributed.launch");
            let image = c["image"].as_str().unwrap();
            assert_eq!(image.contains("-gpu-cuda"), gpu_image, "{env}: {image}");
            assert_eq!(
                !c["resources"]["limits"]["nvidia.com/gpu"].is_null(),
                gpu_image,
                "{env}"
            );
        }
    }
}

/// ksonnet's mpi-job-simple took the job's total GPUs and the v1alpha1 operator split
/// them per node; MPIJob v2beta1 has no such field, so kf splits them: 16 GPUs on 8-GPU
/// nodes are 2 workers of 8 with 8 slots each. The default image runs as root, so the
/// launcher gets OpenMPI's two run-as-root variables.
#[test]
fn mpi_job_total_gpus_split_into_workers_and_root_is_allowed() {
    let app = new_app();
    ok(&app.root, &["generate", "mpi-job", "hvd", "--totalGpus=16"]);
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    let spec = &objs[0]["spec"];
    assert_eq!(spec["slotsPerWorker"], 8);
    let worker = &spec["mpiReplicaSpecs"]["Worker"];
    assert_eq!(worker["replicas"], 2);
    assert_eq!(
        worker["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"],
        8
    );
    let env = spec["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["env"]
        .as_array()
        .unwrap()
        .clone();
    for var in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] {
        assert!(
            env.iter().any(|e| e["name"] == var && e["value"] == "1"),
            "{var}"
        );
    }
    ok(&app.root, &["param", "set", "hvd", "totalGpus", "4"]);
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    assert_eq!(objs[0]["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"], 1);
    assert_eq!(objs[0]["spec"]["slotsPerWorker"], 4);
    ok(&app.root, &["param", "set", "hvd", "totalGpus", "12"]);
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("not a multiple of it"), "{err}");
}

/// ksonnet's tf-serving canary: two versions of a model behind one Service, split by a
/// weighted VirtualService whose subsets are a DestinationRule's, each selecting the pods
/// of one version by the `version` label its Deployment puts on them.
#[test]
fn tf_serving_traffic_rule_splits_between_version_deployments() {
    let app = new_app();
    for (version, create_service) in [("v1", "false"), ("v2", "false")] {
        ok(
            &app.root,
            &[
                "generate",
                "tf-serving",
                &format!("mnist-{version}"),
                "--modelName=mnist",
                "--modelBasePath=gs://models/mnist",
                &format!("--versionName={version}"),
                &format!("--createService={create_service}"),
            ],
        );
    }
    ok(
        &app.root,
        &[
            "generate",
            "tf-serving-service",
            "mnist",
            "--istioRoute=true",
            "--trafficRule=v1:90,v2:10",
        ],
    );
    let objs = objects(&ok(&app.root, &["show", "default", "-o", "json"]));
    let rule = objs
        .iter()
        .find(|o| o["kind"] == "DestinationRule")
        .unwrap();
    let vs = objs.iter().find(|o| o["kind"] == "VirtualService").unwrap();
    let route = vs["spec"]["http"][0]["route"].as_array().unwrap();
    assert_eq!(route.len(), 2);
    assert_eq!(route[0]["weight"], 90);
    assert_eq!(route[0]["destination"]["port"]["number"], 8501);
    for r in route {
        let subset = r["destination"]["subset"].as_str().unwrap();
        assert_eq!(r["destination"]["host"], rule["spec"]["host"]);
        let selector = rule["spec"]["subsets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == subset)
            .unwrap()["labels"]
            .clone();
        assert!(
            objs.iter().any(|o| o["kind"] == "Deployment"
                && o["spec"]["template"]["metadata"]["labels"]["version"] == selector["version"]),
            "a Deployment serves subset {subset}"
        );
    }
    ok(
        &app.root,
        &["param", "set", "mnist", "trafficRule", "v1:90,v2:20"],
    );
    let err = fails(&app.root, &["show", "default", "-c", "mnist"]);
    assert!(err.contains("add up to 110, not 100"), "{err}");
}
