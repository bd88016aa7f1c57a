//! tf-job, pytorch-job, jax-job and xgboost-job train something by default: their default command runs
//! kf's example script (registry/kubeflow/<package>/example/train.py), which the job
//! mounts from a ConfigMap. The environment variables each script reads are the ones the
//! training-operator sets (kubeflow/training-operator v1.9: TF_CONFIG for TFJob; torchrun's
//! PET_* for PyTorchJob, docs/proposals and pkg/controller.v1/pytorch/envvar.go;
//! COORDINATOR_ADDRESS, COORDINATOR_PORT, NUM_PROCESSES and PROCESS_ID for JAXJob, as its
//! examples/jax/cpu-demo/train.py reads them; MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK
//! for XGBoostJob, pkg/controller.v1/xgboost/xgboost.go).

mod support;

use serde_json::{Map, Value};
use support::*;

const SCRIPT_DIR: &str = "/opt/kf-example";

struct Case {
    prototype: &'static str,
    package: &'static str,
    kind: &'static str,
    replicas_field: &'static str,
    command: &'static [&'static str],
}

const CASES: [Case; 4] = [
    Case {
        prototype: "tf-job",
        package: "tf-training",
        kind: "TFJob",
        replicas_field: "tfReplicaSpecs",
        command: &["python", "/opt/kf-example/train.py"],
    },
    Case {
        prototype: "pytorch-job",
        package: "pytorch-job",
        kind: "PyTorchJob",
        replicas_field: "pytorchReplicaSpecs",
        // torchrun turns the operator's PET_* settings into each process's RANK etc.
        command: &[
            "python",
            "-m",
            "torch.distributed.run",
            "/opt/kf-example/train.py",
        ],
    },
    Case {
        prototype: "jax-job",
        package: "jax-job",
        kind: "JAXJob",
        replicas_field: "jaxReplicaSpecs",
        command: &["python3", "/opt/kf-example/train.py"],
    },
    Case {
        prototype: "xgboost-job",
        package: "xgboost-job",
        kind: "XGBoostJob",
        replicas_field: "xgbReplicaSpecs",
        command: &["python", "/opt/kf-example/train.py"],
    },
];

fn objects(json: &str) -> Vec<Map<String, Value>> {
    let list: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
    list["items"]
        .as_array()
        .expect("a v1 List")
        .iter()
        .map(|o| o.as_object().expect("an object").clone())
        .collect()
}

fn find<'a>(objs: &'a [Map<String, Value>], kind: &str) -> Option<&'a Map<String, Value>> {
    objs.iter().find(|o| o["kind"] == kind)
}

fn script(package: &str) -> String {
    read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("registry/kubeflow")
            .join(package)
            .join("example/train.py"),
    )
}

#[test]
fn the_default_command_runs_the_example_mounted_from_a_configmap() {
    let app = new_app();
    for case in CASES {
        ok(&app.root, &["generate", case.prototype, "job"]);
        let objs = objects(&ok(&app.root, &["show", "prod", "-o", "json"]));
        let cm = find(&objs, "ConfigMap").unwrap_or_else(|| panic!("{}: no ConfigMap", case.kind));
        assert_eq!(cm["metadata"]["name"], "job-example", "{}", case.kind);
        assert_eq!(cm["metadata"]["namespace"], "ml-prod", "{}", case.kind);
        assert_eq!(
            cm["data"]["train.py"].as_str(),
            Some(script(case.package).as_str()),
            "{}: the ConfigMap carries the package's script",
            case.kind
        );
        let job = find(&objs, case.kind).unwrap();
        let specs = job["spec"][case.replicas_field].as_object().unwrap();
        assert!(!specs.is_empty());
        for (replica_type, spec) in specs {
            let pod = &spec["template"]["spec"];
            let volume = pod["volumes"]
                .as_array()
                .and_then(|v| v.iter().find(|v| v["name"] == "kf-example"))
                .unwrap_or_else(|| panic!("{} {replica_type}: no kf-example volume", case.kind));
            assert_eq!(volume["configMap"]["name"], "job-example");
            let container = &pod["containers"][0];
            let command: Vec<&str> = container["command"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(command, case.command, "{} {replica_type}", case.kind);
            let mount = container["volumeMounts"]
                .as_array()
                .and_then(|m| m.iter().find(|m| m["name"] == "kf-example"))
                .unwrap_or_else(|| panic!("{} {replica_type}: script not mounted", case.kind));
            assert_eq!(mount["mountPath"], SCRIPT_DIR);
            assert_eq!(mount["readOnly"], true);
        }
        ok(&app.root, &["validate", "prod"]);
        ok(&app.root, &["component", "rm", "job"]);
    }
}

#[test]
fn a_command_of_ones_own_mounts_nothing() {
    let app = new_app();
    for case in CASES {
        ok(
            &app.root,
            &[
                "generate",
                case.prototype,
                "job",
                "--image=registry.example.com/ml/train:1.0",
                "--command=python /app/train.py --epochs 3",
            ],
        );
        let objs = objects(&ok(&app.root, &["show", "prod", "-o", "json"]));
        assert!(find(&objs, "ConfigMap").is_none(), "{}", case.kind);
        let rendered = serde_json::to_string(&objs).unwrap();
        assert!(
            !rendered.contains("kf-example"),
            "{}: {rendered}",
            case.kind
        );
        ok(&app.root, &["component", "rm", "job"]);
    }
}

#[test]
fn tf_job_example_refuses_parameter_servers_at_render_time() {
    let app = new_app();
    ok(&app.root, &["generate", "tf-job", "job", "--numPs=1"]);
    let err = fails(&app.root, &["show", "prod"]);
    assert!(err.contains("numPs"), "{err}");
    assert!(err.contains("all-reduce"), "{err}");
}

#[test]
fn jax_gpu_workers_get_a_cuda_build_of_jax() {
    let app = new_app();
    ok(&app.root, &["generate", "jax-job", "job"]);
    ok(
        &app.root,
        &["param", "set", "job", "numGpus", "1", "--env", "prod"],
    );
    let image = |env: &str| {
        let objs = objects(&ok(&app.root, &["show", env, "-o", "json"]));
        find(&objs, "JAXJob").unwrap()["spec"]["jaxReplicaSpecs"]["Worker"]["template"]["spec"]
            ["containers"][0]["image"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(image("default"), "docker.io/kubeflow/jaxjob-simple:latest");
    assert_eq!(image("prod"), "nvcr.io/nvidia/jax:25.10-py3");
}

/// The scripts are Python that parses (the machine's python3, when there is one; running
/// them needs TensorFlow, PyTorch, JAX or XGBoost, which CI does not install).
#[test]
fn the_example_scripts_compile() {
    // argo-workflow's train step runs one too (registry/kubeflow/argo/example/train.py).
    let packages = CASES.iter().map(|c| c.package).chain(["argo"]);
    for package in packages {
        let source = script(package);
        let compile = "import sys; compile(sys.stdin.read(), 'train.py', 'exec')";
        let Some(out) = python3(&["-c", compile], &source) else {
            return;
        };
        assert!(
            out.status.success(),
            "{package}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
