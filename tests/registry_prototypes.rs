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
        _ => match kind {
            ParamType::Number | ParamType::NumberOrString => "1".into(),
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
                && matches!(p.kind, ParamType::Number | ParamType::NumberOrString)
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
                    // A string where the prototype declares a number: past the check.
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
    "CustomResourceDefinition",
    "MutatingWebhookConfiguration",
    "Namespace",
    "ValidatingWebhookConfiguration",
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

#[test]
fn every_registry_prototype_renders_validates_and_matches_its_golden_files() {
    let protos = registry_prototypes();
    assert!(!protos.is_empty(), "the built-in registry has prototypes");
    let app = registry_app(&protos);
    let mut validator = Validator::with_builtin_crds();
    let crds = embedded_crds();
    let mut failures = Vec::new();
    for proto in &protos {
        let short = proto.short_name();
        let gpus = gpu_params(proto);
        for env in ["default", "prod"] {
            let out = ok(&app.root, &["show", env, "-c", short, "-o", "json"]);
            let objs = objects(&out);
            if objs.is_empty() {
                failures.push(format!("{short} ({env}): renders no objects"));
            }
            let namespace = if env == "prod" { "ml-prod" } else { "ml-dev" };
            for obj in &objs {
                if let Some(problem) = namespace_problem(obj, namespace) {
                    failures.push(format!("{short} ({env}): {problem}"));
                }
                let schemaless = obj
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| SCHEMALESS_KINDS.contains(&k));
                match validator.validate(obj) {
                    None => {}
                    Some(Finding::Unchecked(_)) if schemaless => {}
                    Some(Finding::Error(e)) | Some(Finding::Unchecked(e)) => {
                        failures.push(format!("{short} ({env}): {e}"))
                    }
                }
                // A CRD a package renders is the file it embeds, unchanged (and that file
                // is upstream's, which .ci/check-schemas.py checks).
                if obj["kind"] == "CustomResourceDefinition" {
                    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
                    match crds.get(name) {
                        Some(embedded) if embedded["spec"] == obj["spec"] => {}
                        Some(_) => failures.push(format!(
                            "{short}: CRD {name} differs from the file its package embeds"
                        )),
                        // Written here (e.g. Argo's smaller CRDs): checked by the round trip.
                        None => {}
                    }
                }
            }
            let gpu_objects = objs.iter().filter(|o| has_gpu_fields(o)).count();
            if env == "default" && gpu_objects > 0 {
                failures.push(format!("{short}: GPU fields with 0 GPUs (defaults)"));
            }
            if env == "prod" && !gpus.is_empty() && gpu_objects == 0 {
                failures.push(format!(
                    "{short}: {gpus:?} = \"2\" in prod, but no GPU limit or selector"
                ));
            }
            golden(&format!("registry/{short}.{env}.yaml"), &to_yaml(&objs));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));

    // kf's own validator knows every schema the registry needs (the two archived
    // operators' CRDs have none).
    for env in ["default", "prod"] {
        let run = kf_in(&app.root, &["validate", env]);
        assert_eq!(run.status, 0, "{}", run.stderr);
        for line in run.stderr.lines() {
            assert!(
                line.contains("ChainerJob") || line.contains("Caffe2Job"),
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
        err.contains("numGpus: 'two' is not a valid number")
            && err.contains("io.ksonnet.pkg.pytorch-job"),
        "{err}"
    );
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
}
