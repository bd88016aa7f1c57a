//! The defects a review of the training and serving prototypes found (issue 48 §5), each
//! with the upstream rule that makes it one: renders the operators would refuse, or
//! accept and never run. Each test failed on the registry before its fix.

mod support;

use serde_json::Value;
use support::*;

fn generate(app: &TempApp, args: &[&str]) {
    let mut all = vec!["generate"];
    all.extend_from_slice(args);
    ok(&app.root, &all);
}

fn set(app: &TempApp, component: &str, key: &str, value: &str) {
    ok(&app.root, &["param", "set", component, key, value]);
}

/// The objects of `component` in `default`, or what kf said when it refused.
fn shown(app: &TempApp, component: &str) -> Result<Vec<Value>, String> {
    let run = kf_in(
        &app.root,
        &["show", "default", "-c", component, "-o", "json"],
    );
    if run.status != 0 {
        return Err(run.stderr);
    }
    let list: Value = serde_json::from_str(&run.stdout).unwrap();
    Ok(list["items"].as_array().unwrap().clone())
}

fn job<'a>(items: &'a [Value], kind: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {items:?}"))
}

/// training-operator v1.9 sets MASTER_ADDR and RANK only when the Master spec exists
/// (pkg/controller.v1/pytorch/envvar.go): Workers alone wait forever.
#[test]
fn a_pytorch_job_without_a_master_must_be_elastic() {
    let app = new_app();
    generate(&app, &["pytorch-job", "pt"]);
    set(&app, "pt", "numMasters", "0");
    let err = shown(&app, "pt").unwrap_err();
    assert!(
        err.contains("numMasters: 0 without elastic") && err.contains("MASTER_ADDR"),
        "{err}"
    );
    set(&app, "pt", "elastic", "true");
    let items = shown(&app, "pt").unwrap();
    let specs = &job(&items, "PyTorchJob")["spec"]["pytorchReplicaSpecs"];
    assert!(specs.get("Master").is_none(), "{specs}");
    assert!(job(&items, "PyTorchJob")["spec"]["elasticPolicy"].is_object());
}

/// Unset, the operator defaults nprocPerNode to "auto", which torchrun turns into the
/// node's CPU count on a pod without GPUs; kf sets it from the GPUs, else 1 (Trainer
/// v2.3's torch plugin does the same).
#[test]
fn pytorch_processes_per_pod_follow_its_gpus() {
    let app = new_app();
    generate(&app, &["pytorch-job", "pt"]);
    let nproc = |app: &TempApp| {
        job(&shown(app, "pt").unwrap(), "PyTorchJob")["spec"]["nprocPerNode"].clone()
    };
    assert_eq!(nproc(&app), "1");
    set(&app, "pt", "numGpus", "4");
    assert_eq!(nproc(&app), "4");
    set(&app, "pt", "nProcPerNode", "2");
    assert_eq!(nproc(&app), "2", "the user's own value stays");
}

/// seldon-serve stored a user's --image and rendered Seldon's sklearn server on the iris
/// example anyway.
#[test]
fn a_seldon_image_is_served_never_dropped() {
    let app = new_app();
    generate(
        &app,
        &["seldon-serve", "s", "--image=registry.example.com/iris:1"],
    );
    let predictor = |app: &TempApp| {
        let items = shown(app, "s").unwrap();
        job(&items, "SeldonDeployment")["spec"]["predictors"][0].clone()
    };
    let image = |p: &Value| p["componentSpecs"][0]["spec"]["containers"][0]["image"].clone();
    // With the prototype's defaults (sklearn on Seldon's iris), the image is the model.
    let own = predictor(&app);
    assert_eq!(image(&own), "registry.example.com/iris:1");
    assert!(own["graph"].get("implementation").is_none(), "{own}");
    assert!(own["graph"].get("modelUri").is_none(), "{own}");
    // With a model of the user's, the prepackaged server runs from the image.
    set(&app, "s", "modelUri", "gs://models.example.com/iris");
    let served = predictor(&app);
    assert_eq!(image(&served), "registry.example.com/iris:1");
    assert_eq!(served["graph"]["implementation"], "SKLEARN_SERVER");
    // A server of the user's choice with no model says what is missing, and why.
    set(&app, "s", "implementation", "XGBOOST_SERVER");
    set(&app, "s", "modelUri", "null");
    let err = shown(&app, "s").unwrap_err();
    assert!(
        err.contains(
            "image \"registry.example.com/iris:1\" is set but implementation is XGBOOST_SERVER"
        ) && err.contains("kf param set s implementation null"),
        "{err}"
    );
}

/// mpi-operator v0.8 accepts OnFailure and Never only (validRestartPolicies in
/// pkg/apis/kubeflow/validation/validation.go).
#[test]
fn an_mpi_job_takes_only_the_restart_policies_mpi_operator_accepts() {
    let app = new_app();
    generate(&app, &["mpi-job", "mpi"]);
    for policy in ["ExitCode", "Always"] {
        set(&app, "mpi", "restartPolicy", policy);
        let err = shown(&app, "mpi").unwrap_err();
        assert!(
            err.contains(&format!(
                "restartPolicy: \"{policy}\" is not one of OnFailure, Never"
            )),
            "{err}"
        );
    }
    set(&app, "mpi", "restartPolicy", "Never");
    let items = shown(&app, "mpi").unwrap();
    let specs = &job(&items, "MPIJob")["spec"]["mpiReplicaSpecs"];
    assert_eq!(specs["Worker"]["restartPolicy"], "Never");
    assert_eq!(specs["Launcher"]["restartPolicy"], "Never");
}

/// Horovod's stock image is its CUDA build; a job that asks for no GPU runs its CPU build
/// (and a job with GPUs one build on every replica, so mpirun and orted match).
#[test]
fn an_mpi_job_without_gpus_runs_horovods_cpu_build() {
    let app = new_app();
    generate(&app, &["mpi-job", "mpi"]);
    let images = |app: &TempApp| {
        let items = shown(app, "mpi").unwrap();
        let specs = job(&items, "MPIJob")["spec"]["mpiReplicaSpecs"].clone();
        let image = |t: &str| {
            specs[t]["template"]["spec"]["containers"][0]["image"]
                .as_str()
                .unwrap()
                .to_string()
        };
        (image("Launcher"), image("Worker"))
    };
    assert_eq!(
        images(&app),
        (
            "horovod/horovod-cpu:0.28.1".into(),
            "horovod/horovod-cpu:0.28.1".into()
        )
    );
    set(&app, "mpi", "numGpus", "1");
    assert_eq!(
        images(&app),
        (
            "horovod/horovod:0.28.1".into(),
            "horovod/horovod:0.28.1".into()
        ),
        "the launcher keeps the workers' build"
    );
    // An image of the user's own is kept on every replica.
    set(&app, "mpi", "image", "registry.example.com/mpi:1");
    assert_eq!(
        images(&app),
        (
            "registry.example.com/mpi:1".into(),
            "registry.example.com/mpi:1".into()
        )
    );
}

/// Names the operators refuse: a leading digit (training-operator v1.9's webhooks check
/// NameIsDNS1035Label; Trainer's TrainJob CRD has the same CEL rule) and an MPIJob whose
/// last worker's host name, <name>-worker-<n>, passes 63 characters.
#[test]
fn names_the_operators_refuse_are_refused_with_the_rule() {
    let app = new_app();
    for (prototype, kind) in [
        ("pytorch-job", "PyTorchJob"),
        ("tf-job", "TFJob"),
        ("mpi-job", "MPIJob"),
        ("train-job", "TrainJob"),
        ("xgboost-job", "XGBoostJob"),
    ] {
        // Set by hand (--force skips the checks of `param set`): the render refuses it.
        let component = format!("c-{prototype}");
        generate(&app, &[prototype, &component]);
        ok(
            &app.root,
            &["param", "set", &component, "name", "2024-run", "--force"],
        );
        let err = shown(&app, &component).unwrap_err();
        assert!(
            err.contains(&format!(
                "{kind} \"2024-run\": the name is not a DNS-1035 label (it starts with \"2\""
            )) && err.contains("starting with a letter"),
            "{prototype}: {err}"
        );
    }
    let long = format!("m{}", "x".repeat(53));
    generate(&app, &["mpi-job", "long", &format!("--name={long}")]);
    set(&app, "long", "numWorkers", "11");
    let err = shown(&app, "long").unwrap_err();
    assert!(
        err.contains(&format!(
            "its last worker's host name \"{long}-worker-10\" is not a DNS-1035 label"
        )) && err.contains("shorten the name to at most 53 characters"),
        "{err}"
    );
    set(&app, "long", "numWorkers", "10");
    let items = shown(&app, "long").unwrap();
    assert_eq!(job(&items, "MPIJob")["metadata"]["name"], long.as_str());
}

/// The same names are refused before they are written: by `generate` (the name param,
/// from --name or the component's name) and by `param set name`, from each prototype's
/// `@nameRule`, naming the operator's rule.
#[test]
fn generate_and_param_set_refuse_a_name_the_operator_would() {
    let app = new_app();
    let before = snapshot(&app.root);
    let err = fails(
        &app.root,
        &["generate", "pytorch-job", "pt", "--name=2024-run"],
    );
    assert!(
        err.contains("name '2024-run' is not a DNS-1035 label (it does not start with a lower-case letter), and training-operator v1.9's PyTorchJob webhook"),
        "{err}"
    );
    let err = fails(&app.root, &["generate", "mpi-job", "7up"]);
    assert!(
        err.contains("name '7up' is not a DNS-1035 label")
            && err.contains("mpi-operator v0.8's validation"),
        "{err}"
    );
    assert_eq!(snapshot(&app.root), before, "nothing written");
    generate(&app, &["train-job", "tj"]);
    let err = fails(&app.root, &["param", "set", "tj", "name", "9lives"]);
    assert!(
        err.contains("component 'tj': name '9lives' is not a DNS-1035 label")
            && err.contains("Trainer v2.3's TrainJob CRD"),
        "{err}"
    );
    // Prototypes without the rule take the DNS-1123 names they took before.
    generate(
        &app,
        &[
            "deployed-service",
            "web",
            "--image=nginx",
            "--name=2024-web",
        ],
    );
}
