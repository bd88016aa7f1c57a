//! Queues and gangs (issue 48 §1, §2): Kueue's queue and priority on every workload kf
//! renders, the labels `kueue.x-k8s.io/queue-name` and `kueue.x-k8s.io/priority-class`
//! (Kueue v0.19, pkg/controller/constants/constants.go), set per environment, on the
//! object Kueue's integration for that kind reads (pkg/controller/jobs/*); the kueue
//! package's objects; and gang scheduling of the training jobs.

mod support;

use serde_json::{Value, json};
use support::*;

/// A GPU flavor of L4 nodes and team-a's LocalQueue (in each env's namespace) onto the
/// ClusterQueue team-a, which each test makes with its own quota.
const L4_FLAVOR: &[&str] = &[
    "generate",
    "kueue-resource-flavor",
    "gpu-l4",
    "--nodeLabels=cloud.google.com/gke-accelerator=nvidia-l4",
];
const TEAM_A_QUEUE: &[&str] = &[
    "generate",
    "kueue-local-queue",
    "team-a-queue",
    "--name=team-a",
    "--clusterQueue=team-a",
];

/// `kf param set COMPONENT KEY VALUE`, in `env` when one is given.
fn set(app: &TempApp, component: &str, key: &str, value: &str, env: Option<&str>) {
    let mut args = vec!["param", "set", component, key, value];
    if let Some(env) = env {
        args.extend(["--env", env]);
    }
    ok(&app.root, &args);
}

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
    // Seldon v1.17 copies a predictor's labels to its Deployments and their pods.
    (
        "seldon-serve",
        &[],
        "/spec/predictors/0/labels",
        "SeldonDeployment",
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
            set(&app, prototype, key, value, Some("prod"));
        }
    }
    let (dev, prod) = (
        rendered_objects(&app, "default"),
        rendered_objects(&app, "prod"),
    );
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
        if *prototype == "argo-workflow" {
            // The serve step's InferenceService, applied by Argo: its predictor's pods too.
            let workflow = find(&prod);
            let manifest = workflow["spec"]["templates"]
                .as_array()
                .unwrap()
                .iter()
                .find_map(|t| t["resource"]["manifest"].as_str())
                .expect("the serve step's manifest");
            let isvc: Value = serde_saphyr::from_str(manifest).unwrap();
            assert_eq!(
                isvc["spec"]["predictor"]["labels"]["kueue.x-k8s.io/queue-name"],
                "team-a"
            );
        }
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

/// A team's quota as the kueue package's README builds it: a GPU flavor, a ClusterQueue
/// in a cohort with GPU quota and a borrowing limit, a LocalQueue in each environment's
/// namespace, a WorkloadPriorityClass; valid against Kueue v0.19's CRDs (v1beta2), prod
/// with its own quota.
#[test]
fn a_teams_quota_renders_as_kueues_objects_per_environment() {
    let app = new_app();
    for args in [
        L4_FLAVOR,
        &[
            "param",
            "set",
            "gpu-l4",
            "nodeTaints",
            r#"[{"key":"nvidia.com/gpu","effect":"NoSchedule"}]"#,
        ],
        &[
            "generate",
            "kueue-cluster-queue",
            "team-a",
            "--cohort=ml",
            r#"--flavors=[{"name":"gpu-l4","cpu":64,"memory":"256Gi","gpus":8,"borrowingLimit":{"gpus":4}},{"name":"default-flavor","cpu":32,"memory":"64Gi"}]"#,
        ],
        TEAM_A_QUEUE,
        &[
            "generate",
            "kueue-priority-class",
            "high",
            "--value=10000",
            "--description=production training",
        ],
    ] {
        ok(&app.root, args);
    }
    let prod_quota = r#"[{"name":"gpu-l4","cpu":256,"memory":"1Ti","gpus":32}]"#;
    set(&app, "team-a", "flavors", prod_quota, Some("prod"));
    for env in ["default", "prod"] {
        ok(&app.root, &["validate", env]);
    }
    let of =
        |items: &[Value], kind: &str| items.iter().find(|o| o["kind"] == kind).unwrap().clone();
    let dev = rendered_objects(&app, "default");
    for kind in [
        "ResourceFlavor",
        "ClusterQueue",
        "WorkloadPriorityClass",
        "LocalQueue",
    ] {
        assert_eq!(
            of(&dev, kind)["apiVersion"],
            "kueue.x-k8s.io/v1beta2",
            "{kind}"
        );
    }
    for cluster_scoped in ["ResourceFlavor", "ClusterQueue", "WorkloadPriorityClass"] {
        assert!(
            of(&dev, cluster_scoped)["metadata"]
                .get("namespace")
                .is_none(),
            "{cluster_scoped}"
        );
    }
    let flavor = of(&dev, "ResourceFlavor");
    assert_eq!(
        flavor["spec"]["nodeLabels"]["cloud.google.com/gke-accelerator"],
        "nvidia-l4"
    );
    assert_eq!(flavor["spec"]["nodeTaints"][0]["key"], "nvidia.com/gpu");
    let queue = of(&dev, "ClusterQueue");
    assert_eq!(queue["spec"]["cohortName"], "ml");
    assert_eq!(
        queue["spec"]["namespaceSelector"],
        json!({}),
        "every namespace, not none"
    );
    let group = &queue["spec"]["resourceGroups"][0];
    assert_eq!(
        group["coveredResources"],
        json!(["cpu", "memory", "nvidia.com/gpu"])
    );
    assert_eq!(
        group["flavors"][0]["resources"][2],
        json!({"name": "nvidia.com/gpu", "nominalQuota": "8", "borrowingLimit": "4"})
    );
    // Every flavor lists the group's resources, in order (a CPU pool gives 0 GPUs).
    assert_eq!(group["flavors"][1]["resources"][2]["nominalQuota"], "0");
    assert_eq!(of(&dev, "WorkloadPriorityClass")["value"], 10000);
    assert_eq!(
        of(&dev, "WorkloadPriorityClass")["description"],
        "production training"
    );
    let local = of(&dev, "LocalQueue");
    assert_eq!(local["metadata"]["namespace"], "ml-dev");
    assert_eq!(local["spec"]["clusterQueue"], "team-a");
    let prod = rendered_objects(&app, "prod");
    assert_eq!(of(&prod, "LocalQueue")["metadata"]["namespace"], "ml-prod");
    let prod_group = &of(&prod, "ClusterQueue")["spec"]["resourceGroups"][0];
    assert_eq!(
        prod_group["flavors"][0]["resources"][2]["nominalQuota"],
        "32"
    );
    // A bad quantity is the CRD's error, with the object and the path.
    let bad_quota = r#"[{"name":"gpu-l4","cpu":64,"memory":"256Gi","gpus":"eight"}]"#;
    set(&app, "team-a", "flavors", bad_quota, None);
    let err = fails(&app.root, &["validate", "default"]);
    assert!(
        err.contains("ClusterQueue/team-a") && err.contains("nominalQuota"),
        "{err}"
    );
}

/// gangScheduler gives each training job runPolicy.schedulingPolicy, which the
/// operators turn into a PodGroup (training-operator v1.9 common_types.go, mpi-operator
/// v0.8 v2beta1/types.go), with minAvailable every pod of the job, and its pods the gang
/// scheduler's name; per environment.
#[test]
fn gang_scheduling_is_one_param_per_environment_on_every_training_job() {
    let app = new_app();
    let jobs: &[(&str, &str)] = &[
        ("tf-job", "TFJob"),
        ("pytorch-job", "PyTorchJob"),
        ("mpi-job", "MPIJob"),
        ("xgboost-job", "XGBoostJob"),
        ("paddle-job", "PaddleJob"),
        ("jax-job", "JAXJob"),
    ];
    for (prototype, _) in jobs {
        ok(
            &app.root,
            &["generate", prototype, prototype, "--numWorkers=3"],
        );
        set(&app, prototype, "gangScheduler", "volcano", Some("prod"));
    }
    set(&app, "pytorch-job", "gangQueue", "research", Some("prod"));
    set(
        &app,
        "pytorch-job",
        "gangScheduleTimeoutSeconds",
        "600",
        Some("prod"),
    );
    set(&app, "mpi-job", "gangMinAvailable", "2", Some("prod"));
    let (dev, prod) = (
        rendered_objects(&app, "default"),
        rendered_objects(&app, "prod"),
    );
    for (_, kind) in jobs {
        let job = |items: &[Value]| items.iter().find(|o| o["kind"] == *kind).unwrap().clone();
        let dev_job = job(&dev);
        assert!(
            dev_job["spec"]["runPolicy"]
                .get("schedulingPolicy")
                .is_none(),
            "{kind}"
        );
        let prod_job = job(&prod);
        let policy = &prod_job["spec"]["runPolicy"]["schedulingPolicy"];
        let specs = prod_job["spec"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(k, _)| k.ends_with("ReplicaSpecs"))
            .unwrap()
            .1
            .clone();
        let total: i64 = specs
            .as_object()
            .unwrap()
            .values()
            .map(|s| s["replicas"].as_i64().unwrap())
            .sum();
        assert!(total >= 3, "{kind}: {total} pods");
        // The default gang is every pod of the job; mpi-job's prod sets its own.
        let want_min = if *kind == "MPIJob" { 2 } else { total };
        assert_eq!(policy["minAvailable"], want_min, "{kind}: {policy}");
        for (t, spec) in specs.as_object().unwrap() {
            assert_eq!(
                spec["template"]["spec"]["schedulerName"], "volcano",
                "{kind} {t}"
            );
        }
    }
    let pytorch = prod.iter().find(|o| o["kind"] == "PyTorchJob").unwrap();
    assert_eq!(
        pytorch["spec"]["runPolicy"]["schedulingPolicy"],
        json!({"minAvailable": 4, "queue": "research", "scheduleTimeoutSeconds": 600})
    );
    ok(&app.root, &["validate", "prod"]);
    // Another scheduler beside the gang's would keep the gang from forming.
    set(
        &app,
        "tf-job",
        "schedulerName",
        "default-scheduler",
        Some("prod"),
    );
    let err = fails(&app.root, &["show", "prod", "-c", "tf-job"]);
    assert!(
        err.contains("schedulerName \"default-scheduler\" and gangScheduler \"volcano\" differ"),
        "{err}"
    );
}

/// A queued job whose GPU node selector every flavor of its queue contradicts would wait
/// forever: Kueue admits only to a flavor the pods' node selector allows. kf validate
/// says so when the queue's objects are in the render, and not when they are not.
#[test]
fn validate_refuses_a_queued_job_no_flavor_of_its_queue_admits() {
    let app = new_app();
    for args in [
        L4_FLAVOR,
        &[
            "generate",
            "kueue-cluster-queue",
            "team-a",
            r#"--flavors=[{"name":"gpu-l4","cpu":64,"memory":"256Gi","gpus":8}]"#,
        ],
        TEAM_A_QUEUE,
        &[
            "generate",
            "pytorch-job",
            "bert",
            "--numGpus=1",
            "--queueName=team-a",
            "--gpuNodeSelector=cloud.google.com/gke-accelerator=nvidia-tesla-t4",
        ],
    ] {
        ok(&app.root, args);
    }
    let err = fails(&app.root, &["validate", "default"]);
    assert!(
        err.contains("PyTorchJob/bert")
            && err.contains("queue team-a (ClusterQueue team-a) can never admit it: flavor gpu-l4 sets cloud.google.com/gke-accelerator=nvidia-l4, the pods select cloud.google.com/gke-accelerator=nvidia-tesla-t4"),
        "{err}"
    );
    // The same label and value as the flavor: admitted.
    set(
        &app,
        "bert",
        "gpuNodeSelector",
        "cloud.google.com/gke-accelerator=nvidia-l4",
        None,
    );
    ok(&app.root, &["validate", "default"]);
    // The queue's flavors not in the render: nothing to say.
    set(
        &app,
        "bert",
        "gpuNodeSelector",
        "cloud.google.com/gke-accelerator=nvidia-tesla-t4",
        None,
    );
    ok(&app.root, &["validate", "default", "-c", "bert"]);
}
