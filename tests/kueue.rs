//! Kueue's queue and priority on every workload kf renders (issue 48 §1): the labels
//! `kueue.x-k8s.io/queue-name` and `kueue.x-k8s.io/priority-class` (Kueue v0.19,
//! pkg/controller/constants/constants.go), set per environment, on the object Kueue's
//! integration for that kind reads (pkg/controller/jobs/*).

mod support;

use serde_json::{Value, json};
use support::*;

/// (prototype, extra generate args, where the labels must be: a JSON pointer into the
/// workload object, and that object's kind).
const WORKLOADS: &[(&str, &[&str], &str, &str)] = &[
    ("tf-job", &[], "/metadata/labels", "TFJob"),
    ("pytorch-job", &[], "/metadata/labels", "PyTorchJob"),
    ("mpi-job", &[], "/metadata/labels", "MPIJob"),
    ("xgboost-job", &[], "/metadata/labels", "XGBoostJob"),
    ("paddle-job", &[], "/metadata/labels", "PaddleJob"),
    ("jax-job", &[], "/metadata/labels", "JAXJob"),
    ("train-job", &[], "/metadata/labels", "TrainJob"),
    // The Deployment; Kueue's deployment webhook copies them to the pods.
    (
        "tf-serving",
        &["--modelBasePath=gs://models/mnist"],
        "/metadata/labels",
        "Deployment",
    ),
    // KServe puts a component's labels on its pods (Kueue's pod integration).
    (
        "kserve",
        &["--storageUri=gs://models/mnist"],
        "/spec/predictor/labels",
        "InferenceService",
    ),
    // Argo puts a template's metadata on its pod.
    (
        "argo-workflow",
        &[],
        "/spec/templates/1/metadata/labels",
        "Workflow",
    ),
];

#[test]
fn every_workload_carries_its_envs_queue_and_priority_where_kueue_reads_them() {
    let app = new_app();
    for (prototype, extra, _, _) in WORKLOADS {
        let mut args = vec!["generate", prototype, prototype];
        args.extend_from_slice(extra);
        ok(&app.root, &args);
        for (key, value) in [("queueName", "team-a"), ("workloadPriorityClass", "high")] {
            ok(
                &app.root,
                &["param", "set", prototype, key, value, "--env", "prod"],
            );
        }
    }
    let objects = |env: &str| -> Vec<Value> {
        let out = ok(&app.root, &["show", env, "-o", "json"]);
        serde_json::from_str::<Value>(&out).unwrap()["items"]
            .as_array()
            .unwrap()
            .clone()
    };
    let (dev, prod) = (objects("default"), objects("prod"));
    // The labels are where each CRD's schema allows them (KServe's predictor `labels`).
    ok(&app.root, &["validate", "prod"]);
    for (prototype, _, pointer, kind) in WORKLOADS {
        let find = |items: &[Value]| {
            items
                .iter()
                .find(|o| o["kind"] == *kind && o["metadata"]["labels"]["app"] == *prototype)
                .unwrap_or_else(|| panic!("{prototype}: no {kind}"))
                .clone()
        };
        let labels = find(&prod).pointer(pointer).cloned().unwrap_or(Value::Null);
        assert_eq!(
            labels["kueue.x-k8s.io/queue-name"], "team-a",
            "{prototype}: {labels}"
        );
        assert_eq!(
            labels["kueue.x-k8s.io/priority-class"], "high",
            "{prototype}: {labels}"
        );
        // Only prod names a queue.
        let text = find(&dev).to_string();
        assert!(!text.contains("kueue.x-k8s.io"), "{prototype}: {text}");
        if *kind == "Deployment" {
            // Never in the selector: it is immutable, and a new queue would break it.
            let deployment = find(&prod);
            let selector = &deployment["spec"]["selector"]["matchLabels"];
            assert!(!selector.to_string().contains("kueue"), "{selector}");
            assert_eq!(
                deployment["spec"]["template"]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"],
                json!("team-a")
            );
        }
    }
}
