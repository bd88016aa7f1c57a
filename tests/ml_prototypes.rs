//! What a generated training job or model server runs, read off the render: the user's
//! image, command and args win over kf's stock ones. kf's defaults (a stock image, a GPU
//! build of it, an example command) are written into every component's params by
//! `kf generate`, so the render must tell kf's defaults from the user's choices.

mod support;

use serde_json::Value;
use support::*;

/// A prototype's default for `param`, as its header declares it.
fn default_of(prototype: &str, param: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/kubeflow");
    for pkg in std::fs::read_dir(root).unwrap().flatten() {
        let path = pkg.path().join(format!("prototypes/{prototype}.jsonnet"));
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let prefix = format!("// @optionalParam {param} ");
        let line = text
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("{prototype} declares no {param}"));
        return line.split_whitespace().nth(4).unwrap().to_string();
    }
    panic!("no prototype {prototype}")
}

/// Every container-like object (one with an `image`) in `v`, with whether it asks for
/// GPUs: Pod containers, Argo steps' `container`s, replica templates.
fn containers(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Object(o) => {
            if o.get("image").is_some_and(Value::is_string) {
                out.push(v.clone());
            }
            o.values().for_each(|c| containers(c, out));
        }
        Value::Array(a) => a.iter().for_each(|c| containers(c, out)),
        _ => {}
    }
}

fn asks_for_gpus(container: &Value) -> bool {
    container["resources"]["limits"]
        .as_object()
        .is_some_and(|l| l.contains_key("nvidia.com/gpu"))
}

/// The rendered objects of one component in `default`.
fn render(app: &TempApp, component: &str) -> Vec<Value> {
    let out = ok(
        &app.root,
        &["show", "default", "-c", component, "-o", "json"],
    );
    let list: Value = serde_json::from_str(&out).unwrap();
    list["items"].as_array().unwrap().clone()
}

/// The images of the containers that ask for GPUs.
fn gpu_images(app: &TempApp, component: &str) -> Vec<String> {
    let mut found = Vec::new();
    containers(&Value::Array(render(app, component)), &mut found);
    let images: Vec<String> = found
        .iter()
        .filter(|c| asks_for_gpus(c))
        .map(|c| c["image"].as_str().unwrap().to_string())
        .collect();
    assert!(
        !images.is_empty(),
        "{component}: no container asks for GPUs"
    );
    images
}

/// tf-job, jax-job, paddle-job, tf-serving and argo-workflow default to kf's stock image
/// and a GPU build of it. `tf-job --image=my/tf-train:1` with GPUs rendered kf's GPU
/// image on every GPU replica, the user's code gone: kf's GPU image now goes only with
/// kf's image, and a gpuImage the user gives always wins.
#[test]
fn gpu_replicas_run_the_users_image_and_kfs_gpu_image_only_with_kfs_image() {
    // (prototype, its image param, what else it requires)
    let cases: [(&str, &str, &[&str]); 5] = [
        ("tf-job", "image", &[]),
        ("jax-job", "image", &[]),
        ("paddle-job", "image", &[]),
        ("tf-serving", "image", &["--modelBasePath=gs://models/m"]),
        ("argo-workflow", "trainImage", &[]),
    ];
    let app = new_app();
    for (proto, image_param, required) in cases {
        let stock_gpu = default_of(proto, "gpuImage");
        let generate = |name: &str, extra: &[String]| {
            let mut args = vec![
                "generate".to_string(),
                proto.to_string(),
                name.to_string(),
                "--numGpus=1".to_string(),
            ];
            args.extend(required.iter().map(|s| s.to_string()));
            args.extend_from_slice(extra);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&app.root, &args);
        };
        let stock = format!("{proto}-stock");
        generate(&stock, &[]);
        assert!(
            gpu_images(&app, &stock).iter().all(|i| *i == stock_gpu),
            "{proto}: kf's image with GPUs runs kf's GPU build"
        );
        let own = format!("{proto}-own");
        generate(
            &own,
            &[format!("--{image_param}=registry.example.com/own:1")],
        );
        assert_eq!(
            gpu_images(&app, &own)
                .iter()
                .filter(|i| *i != "registry.example.com/own:1")
                .count(),
            0,
            "{proto}: the user's image runs on GPU replicas too"
        );
        let both = format!("{proto}-both");
        generate(
            &both,
            &[
                format!("--{image_param}=registry.example.com/own:1"),
                "--gpuImage=registry.example.com/own-gpu:1".to_string(),
            ],
        );
        assert!(
            gpu_images(&app, &both)
                .iter()
                .all(|i| i == "registry.example.com/own-gpu:1"),
            "{proto}: a gpuImage the user gives wins"
        );
    }
}

/// kf's example command (tf-job, pytorch-job, jax-job) runs kf's example in kf's image.
/// The getting-started example `--args='["python","/opt/mnist.py"]'` rendered kf's
/// example command with the user's program as its arguments; a component given its own
/// args or image now runs them, without kf's script or its ConfigMap.
#[test]
fn the_example_command_goes_when_the_user_gives_args_or_an_image() {
    let app = new_app();
    for proto in ["tf-job", "pytorch-job", "jax-job"] {
        let workers = |name: &str| -> Vec<Value> {
            let objects = render(&app, name);
            assert_eq!(
                objects.iter().filter(|o| o["kind"] == "ConfigMap").count(),
                usize::from(name.ends_with("-stock")),
                "{name}: kf's example script comes with kf's example only: {objects:#?}"
            );
            let mut found = Vec::new();
            containers(&Value::Array(objects), &mut found);
            found
        };
        let stock = format!("{proto}-stock");
        ok(&app.root, &["generate", proto, &stock]);
        for c in workers(&stock) {
            let command = c["command"].to_string();
            assert!(command.contains("/opt/kf-example/train.py"), "{proto}: {c}");
        }

        let with_args = format!("{proto}-args");
        ok(
            &app.root,
            &[
                "generate",
                proto,
                &with_args,
                r#"--args=["python","/opt/mnist.py"]"#,
            ],
        );
        for c in workers(&with_args) {
            assert!(c.get("command").is_none(), "{proto}: {c}");
            assert_eq!(c["args"], serde_json::json!(["python", "/opt/mnist.py"]));
        }

        let with_image = format!("{proto}-image");
        ok(
            &app.root,
            &[
                "generate",
                proto,
                &with_image,
                "--image=registry.example.com/train:1",
            ],
        );
        for c in workers(&with_image) {
            assert!(c.get("command").is_none(), "{proto}: {c}");
            assert_eq!(c["image"], "registry.example.com/train:1");
        }

        // A command the user gives is theirs, whatever the image.
        let own = format!("{proto}-own");
        ok(
            &app.root,
            &[
                "generate",
                proto,
                &own,
                "--image=registry.example.com/train:1",
                r#"--command=["python","/opt/train.py"]"#,
            ],
        );
        for c in workers(&own) {
            assert_eq!(c["command"], serde_json::json!(["python", "/opt/train.py"]));
        }
    }
}

/// Seldon's TENSORFLOW_SERVER runs TensorFlow Serving in a container of its own,
/// `tfserving`, and re-images the container named like the graph node as its proxy
/// (seldondeployment_prepackaged_servers.go, Seldon Core 1.17.1): the GPU, and a GPU build
/// of TF Serving, go on `tfserving`. Under protocol `tensorflow`, and for every other
/// server, the node's own container is the server.
#[test]
fn seldon_gives_the_gpu_to_the_container_that_serves() {
    let app = new_app();
    let gpu_containers = |name: &str, extra: &[&str]| -> Vec<(String, String)> {
        let mut args = vec!["generate", "seldon-serve", name, "--numGpus=1"];
        args.extend_from_slice(extra);
        ok(&app.root, &args);
        let objects = render(&app, name);
        let specs = &objects[0]["spec"]["predictors"][0]["componentSpecs"][0]["spec"];
        specs["containers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| asks_for_gpus(c))
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_string(),
                    c["image"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let on = |container: &str, image: &str| (container.to_string(), image.to_string());
    let tf = ["--implementation=TENSORFLOW_SERVER", "--modelUri=gs://m/tf"];
    assert_eq!(
        gpu_containers("tf", &tf),
        [on("tfserving", "tensorflow/serving:2.1.0-gpu")]
    );
    let mut own = tf.to_vec();
    own.push("--gpuImage=registry.example.com/serving-gpu:1");
    assert_eq!(
        gpu_containers("tf-own", &own),
        [on("tfserving", "registry.example.com/serving-gpu:1")]
    );
    let mut tf_protocol = tf.to_vec();
    tf_protocol.push("--protocol=tensorflow");
    assert_eq!(
        gpu_containers("tf-protocol", &tf_protocol),
        [on("classifier", "tensorflow/serving:2.1.0-gpu")]
    );
    assert_eq!(gpu_containers("sk", &[]), [on("classifier", "")]);
}

/// A Caffe2Job's rendezvous is `spec.backendSpecs` (kubeflow/caffe2-operator
/// pkg/apis/caffe2/v1alpha1/types.go; kf wrote `spec.Backend`, which the operator never
/// read). The operator picks redis for more than one replica and hands the pods the
/// Redis host it was given: kf refuses to render that backend without one.
#[test]
fn caffe2_jobs_name_their_backend_as_the_operator_reads_it() {
    let app = new_app();
    let backend = |name: &str, extra: &[&str]| -> Value {
        let mut args = vec!["generate", "caffe2-job", name];
        args.extend_from_slice(extra);
        ok(&app.root, &args);
        let objects = render(&app, name);
        assert!(objects[0]["spec"].get("Backend").is_none());
        objects[0]["spec"]["backendSpecs"].clone()
    };
    assert_eq!(
        backend("one", &[]),
        serde_json::json!({"backendType": "none"})
    );
    assert_eq!(
        backend(
            "redis",
            &[
                "--numReplicas=2",
                "--redisHost=redis-service",
                "--backend=redis"
            ]
        ),
        serde_json::json!({"backendType": "redis", "redisHost": "redis-service", "redisPort": 6379})
    );
    assert_eq!(
        backend(
            "nfs",
            &["--numReplicas=2", "--backend=nfs", "--nfsPath=/share/c2"]
        ),
        serde_json::json!({"backendType": "nfs", "nfsPath": "/share/c2"})
    );
    ok(
        &app.root,
        &["generate", "caffe2-job", "hostless", "--numReplicas=2"],
    );
    let run = kf_in(&app.root, &["show", "default", "-c", "hostless"]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("redisHost:"), "{}", run.stderr);
}

/// Trainer v2.3's `numProcPerNode` is an int32 (trainjob_types.go): the v1 PyTorchJob's
/// `gpu`/`auto`/`cpu` strings that kf's README offered fail `kf validate`. `param set`
/// refuses them now, and a forced one fails the render naming the param.
#[test]
fn train_job_takes_a_whole_number_of_processes_per_node() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "train-job",
            "ft",
            "--image=registry.example.com/ft:1",
        ],
    );
    let refused = kf_in(&app.root, &["param", "set", "ft", "numProcPerNode", "gpu"]);
    assert_ne!(refused.status, 0, "{}", refused.stdout);
    ok(&app.root, &["param", "set", "ft", "numProcPerNode", "4"]);
    let job = &render(&app, "ft")[0];
    assert_eq!(job["spec"]["trainer"]["numProcPerNode"], 4);
    ok(
        &app.root,
        &[
            "param",
            "set",
            "ft",
            "numProcPerNode",
            "gpu",
            "--force",
            "--as-string",
        ],
    );
    let run = kf_in(&app.root, &["show", "default", "-c", "ft"]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("numProcPerNode: \"gpu\"") && run.stderr.contains("whole number"),
        "{}",
        run.stderr
    );
    let validate = kf_in(&app.root, &["validate", "default"]);
    assert_eq!(validate.status, 1, "{}", validate.stderr);
}

/// The job basics every v1 job kind takes, on a TrainJob: cpu and memory per node in
/// `trainer.resourcesPerNode`, and what the trainer section cannot hold (a data PVC,
/// /dev/shm, the service account, pull secrets) in one runtimePatches pod patch for the
/// runtime's `node` job and container (Trainer v2.3's PodSpecPatch) — all of it valid
/// against the TrainJob CRD.
#[test]
fn train_job_takes_the_job_basics_of_every_job_kind() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "train-job",
            "ft",
            "--image=registry.example.com/ft:1",
            "--cpu=4",
            "--memory=16Gi",
            "--pvcName=datasets",
            "--shmSize=8Gi",
            "--serviceAccountName=trainer",
            "--imagePullSecrets=regcred",
            "--numGpus=2",
        ],
    );
    let job = &render(&app, "ft")[0];
    let per_node = &job["spec"]["trainer"]["resourcesPerNode"];
    assert_eq!(per_node["requests"]["cpu"], "4");
    assert_eq!(per_node["limits"]["memory"], "16Gi");
    assert_eq!(per_node["limits"]["nvidia.com/gpu"], 2);
    let patches = job["spec"]["runtimePatches"].as_array().unwrap();
    assert_eq!(patches.len(), 1, "{job:#}");
    assert_eq!(patches[0]["manager"], "kf.dev/kf");
    let target = &patches[0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"][0];
    assert_eq!(target["name"], "node");
    let pod = &target["template"]["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], "trainer");
    assert_eq!(
        pod["imagePullSecrets"],
        serde_json::json!([{"name": "regcred"}])
    );
    assert_eq!(pod["containers"][0]["name"], "node");
    let mounts: Vec<&str> = pod["containers"][0]["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["mountPath"].as_str().unwrap())
        .collect();
    assert_eq!(mounts, ["/mnt/data", "/dev/shm"]);
    assert_eq!(
        pod["volumes"][0]["persistentVolumeClaim"]["claimName"],
        "datasets"
    );
    assert!(
        pod["tolerations"].is_array(),
        "the GPU placement shares the patch: {pod}"
    );
    let validate = kf_in(&app.root, &["validate", "default"]);
    assert_eq!(validate.status, 0, "{}", validate.stderr);
}

/// An MXJob with defaults trains: its workers run MXNet's MNIST example of the default
/// image as training-operator v1.8's e2e test does (test_e2e_mxjob.py), on their GPUs
/// when they have some; the scheduler and servers keep the image's entrypoint, and a
/// command of the user's replaces the example.
#[test]
fn mxnet_job_defaults_train_and_gpu_workers_use_their_gpus() {
    let app = new_app();
    ok(&app.root, &["generate", "mxnet-job", "mx"]);
    ok(&app.root, &["param", "set", "mx", "workerGpus", "2"]);
    let job = &render(&app, "mx")[0];
    let specs = &job["spec"]["mxReplicaSpecs"];
    let worker = &specs["Worker"]["template"]["spec"]["containers"][0];
    assert_eq!(
        worker["command"],
        serde_json::json!(["/usr/local/bin/python3"])
    );
    let args: Vec<&str> = worker["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        args[0],
        "/mxnet/mxnet/example/image-classification/train_mnist.py"
    );
    assert_eq!(&args[args.len() - 2..], ["--gpus", "0,1"]);
    for other in ["Scheduler", "Server"] {
        let c = &specs[other]["template"]["spec"]["containers"][0];
        assert!(
            c.get("command").is_none() && c.get("args").is_none(),
            "{other}: {c}"
        );
    }
    ok(
        &app.root,
        &[
            "param",
            "set",
            "mx",
            "command",
            r#"["python","/opt/train.py"]"#,
        ],
    );
    let job = &render(&app, "mx")[0];
    let worker = &job["spec"]["mxReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0];
    assert_eq!(
        worker["command"],
        serde_json::json!(["python", "/opt/train.py"])
    );
    assert!(worker.get("args").is_none(), "{worker}");
}

/// An MPIJob with defaults trains with Horovod and gets past SSH in the default image:
/// the launcher's mpirun starts Horovod's synthetic benchmark on every slot, and the
/// workers' sshd runs with StrictModes off, which the operator's own images set and
/// horovod/horovod does not (mpi-operator build/base/Dockerfile; mpi-operator#424).
#[test]
fn mpi_job_defaults_run_horovod_past_ssh() {
    let app = new_app();
    let containers = |name: &str| -> (Value, Value) {
        let job = &render(&app, name)[0];
        let specs = &job["spec"]["mpiReplicaSpecs"];
        (
            specs["Launcher"]["template"]["spec"]["containers"][0].clone(),
            specs["Worker"]["template"]["spec"]["containers"][0].clone(),
        )
    };
    let words = |v: &Value| -> Vec<String> {
        v.as_array()
            .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    ok(&app.root, &["generate", "mpi-job", "hvd", "--numWorkers=2"]);
    let (launcher, worker) = containers("hvd");
    let command = words(&launcher["command"]);
    assert_eq!(&command[..3], ["mpirun", "-np", "2"], "{command:?}");
    assert!(
        command
            .iter()
            .any(|w| w.ends_with("pytorch_synthetic_benchmark.py"))
    );
    assert_eq!(command.last().unwrap(), "--no-cuda");
    assert_eq!(
        words(&worker["command"]),
        ["/usr/sbin/sshd", "-De", "-o", "StrictModes=no"]
    );

    ok(&app.root, &["param", "set", "hvd", "numGpus", "2"]);
    let (launcher, _) = containers("hvd");
    let command = words(&launcher["command"]);
    assert_eq!(&command[..3], ["mpirun", "-np", "4"], "two slots a worker");
    assert!(!command.contains(&"--no-cuda".to_string()));

    // The user's own launcher command, or own image, replace kf's benchmark.
    ok(
        &app.root,
        &[
            "generate",
            "mpi-job",
            "own",
            "--image=registry.example.com/mpi:1",
        ],
    );
    let (launcher, worker) = containers("own");
    assert!(launcher.get("command").is_none(), "{launcher}");
    assert_eq!(words(&worker["command"])[0], "/usr/sbin/sshd");
    ok(
        &app.root,
        &[
            "generate",
            "mpi-job",
            "cmd",
            "--command=mpirun -np 2 python /train.py",
            "--workerCommand=/start-sshd.sh",
        ],
    );
    let (launcher, worker) = containers("cmd");
    assert_eq!(words(&launcher["command"])[4], "/train.py");
    assert_eq!(words(&worker["command"]), ["/start-sshd.sh"]);
}

/// argo-workflow's defaults train and serve: the train step runs kf's example (mounted
/// from a ConfigMap) in the stock TensorFlow image and writes to a PVC the component
/// makes, which the InferenceService of the serve step reads (a placeholder bucket and
/// a script nobody mounted made the Workflow fail). The user's image, or modelDir, win.
#[test]
fn argo_workflow_defaults_train_to_a_pvc_the_serve_step_reads() {
    let app = new_app();
    ok(&app.root, &["generate", "argo-workflow", "pipe"]);
    let objs = render(&app, "pipe");
    let kinds: Vec<&str> = objs.iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "ConfigMap",
            "PersistentVolumeClaim",
            "Role",
            "RoleBinding",
            "Workflow"
        ]
    );
    assert_eq!(objs[0]["metadata"]["name"], "pipe-example");
    assert!(
        objs[0]["data"]["train.py"]
            .as_str()
            .unwrap()
            .contains("tf.saved_model.save")
    );
    assert_eq!(objs[1]["metadata"]["name"], "pipe-model");
    assert_eq!(objs[1]["spec"]["resources"]["requests"]["storage"], "1Gi");
    let spec = &objs[4]["spec"];
    let train = spec["templates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "train")
        .unwrap();
    let c = &train["container"];
    assert_eq!(c["image"], "tensorflow/tensorflow:2.18.0");
    assert_eq!(
        c["command"],
        serde_json::json!(["python", "/opt/kf-example/train.py"])
    );
    let model_dir = c["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "MODEL_DIR")
        .unwrap();
    assert_eq!(model_dir["value"], "/mnt/model/model");
    let volumes = spec["volumes"].to_string();
    assert!(volumes.contains(r#""claimName":"pipe-model""#), "{volumes}");
    assert!(volumes.contains(r#""name":"pipe-example""#), "{volumes}");
    let serve = spec["templates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "serve")
        .unwrap();
    assert!(
        serve["resource"]["manifest"]
            .as_str()
            .unwrap()
            .contains(r#"storageUri: "pvc://pipe-model/model""#),
        "{serve}"
    );

    ok(
        &app.root,
        &[
            "generate",
            "argo-workflow",
            "own",
            "--modelDir=gs://my-bucket/models/mnist",
            "--trainImage=gcr.io/my/mnist-train:1",
        ],
    );
    let objs = render(&app, "own");
    let kinds: Vec<&str> = objs.iter().map(|o| o["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Role", "RoleBinding", "Workflow"]);
    let train = &objs[2]["spec"]["templates"][1];
    assert_eq!(train["name"], "train");
    assert!(train["container"].get("command").is_none(), "{train}");
    assert_eq!(train["container"]["image"], "gcr.io/my/mnist-train:1");
}

/// A TrainJob with defaults trains: Trainer v2.3's torch-distributed runtime runs no
/// command of its own, so kf's pytorch-job example runs under torchrun, which reads the
/// PET_* settings the torch plugin gives the trainer container (kubeflow/trainer v2.3.0
/// pkg/runtime/framework/plugins/torch/torch.go); the script is mounted from a ConfigMap
/// through the runtimePatches pod patch. Another runtime, image or args: no example.
#[test]
fn train_job_defaults_run_kfs_example_under_torchrun() {
    let app = new_app();
    ok(&app.root, &["generate", "train-job", "tj"]);
    let objs = render(&app, "tj");
    assert_eq!(objs[0]["kind"], "ConfigMap");
    assert_eq!(objs[0]["metadata"]["name"], "tj-example");
    assert!(
        objs[0]["data"]["train.py"]
            .as_str()
            .unwrap()
            .contains("DistributedDataParallel")
    );
    let job = &objs[1];
    assert_eq!(
        job["spec"]["trainer"]["command"],
        serde_json::json!(["torchrun", "/opt/kf-example/train.py"])
    );
    let pod = &job["spec"]["runtimePatches"][0]["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]
        [0]["template"]["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["name"], "node");
    assert_eq!(
        pod["containers"][0]["volumeMounts"][0]["mountPath"],
        "/opt/kf-example"
    );
    assert_eq!(pod["volumes"][0]["configMap"]["name"], "tj-example");

    for (name, flag) in [
        ("own-image", "--image=registry.example.com/train:1"),
        ("other-runtime", "--runtimeRef=deepspeed-distributed"),
        ("own-args", "--args=--epochs 3"),
    ] {
        ok(&app.root, &["generate", "train-job", name, flag]);
        let objs = render(&app, name);
        assert_eq!(objs.len(), 1, "{name}");
        assert!(
            objs[0]["spec"]["trainer"].get("command").is_none(),
            "{name}: {}",
            objs[0]["spec"]
        );
        assert!(objs[0]["spec"].get("runtimePatches").is_none(), "{name}");
    }
}

/// A training job or model server, and what the operator (or server) that runs it
/// requires; each prototype's `@checkedAgainst` lines cite the upstream source.
struct Target {
    prototype: &'static str,
    package: &'static str,
    /// Flags `kf generate` needs besides the name.
    required: &'static [&'static str],
    /// The container the operator configures (its default container name); `None` when
    /// it takes the pod's first container, whatever its name.
    container: Option<&'static str>,
    /// Pods (by a part of their path in the object) whose container runs the image's own
    /// entrypoint by design: MXNet's scheduler and servers (training-operator v1.8.1's
    /// e2e test gives them no command), TF Serving's model server.
    entrypoint: &'static [&'static str],
}

const TARGETS: &[Target] = &[
    Target {
        prototype: "tf-job",
        package: "tf-training",
        required: &[],
        container: Some("tensorflow"),
        entrypoint: &[],
    },
    Target {
        prototype: "pytorch-job",
        package: "pytorch-job",
        required: &[],
        container: Some("pytorch"),
        entrypoint: &[],
    },
    Target {
        prototype: "xgboost-job",
        package: "xgboost-job",
        required: &[],
        container: Some("xgboost"),
        entrypoint: &[],
    },
    Target {
        prototype: "paddle-job",
        package: "paddle-job",
        required: &[],
        container: Some("paddle"),
        entrypoint: &[],
    },
    Target {
        prototype: "jax-job",
        package: "jax-job",
        required: &[],
        container: Some("jax"),
        entrypoint: &[],
    },
    Target {
        prototype: "mxnet-job",
        package: "mxnet-job",
        required: &[],
        container: Some("mxnet"),
        entrypoint: &["Scheduler", "Server"],
    },
    Target {
        prototype: "mpi-job",
        package: "mpi-job",
        required: &[],
        container: None,
        entrypoint: &[],
    },
    Target {
        prototype: "caffe2-job",
        package: "caffe2-job",
        required: &[],
        container: Some("caffe2"),
        entrypoint: &[],
    },
    Target {
        prototype: "chainer-job",
        package: "chainer-job",
        required: &[],
        container: Some("chainer"),
        entrypoint: &[],
    },
    Target {
        prototype: "train-job",
        package: "trainer",
        required: &[],
        container: Some("node"),
        entrypoint: &[],
    },
    Target {
        prototype: "tf-serving",
        package: "tf-serving",
        required: &["--modelBasePath=gs://example-models/mnist"],
        container: Some("tf-serving"),
        entrypoint: &["template"],
    },
    Target {
        prototype: "kserve",
        package: "kserve",
        required: &["--storageUri=gs://example-models/mnist"],
        container: None,
        entrypoint: &["predictor"],
    },
];

/// The workloads of a rendered component, each as (where, the container that trains or
/// serves): every pod's containers, a TrainJob's trainer (which Trainer applies to the
/// runtime's `node` container) and an InferenceService's model (KServe picks the runtime).
fn workloads(objs: &[Value]) -> Vec<(String, Value)> {
    fn walk(v: &Value, path: &str, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(o) => {
                if let Some(cs) = o.get("containers").and_then(Value::as_array)
                    && cs.iter().any(|c| c.get("image").is_some())
                {
                    for c in cs {
                        out.push((path.to_string(), c.clone()));
                    }
                }
                for (k, c) in o {
                    walk(c, &format!("{path}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().for_each(|c| walk(c, path, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for obj in objs {
        let kind = obj["kind"].as_str().unwrap_or_default();
        match kind {
            "TrainJob" => {
                let trainer = obj["spec"].get("trainer").cloned().unwrap_or_default();
                let mut c = serde_json::json!({"name": "node"});
                for k in ["image", "command", "args"] {
                    if let Some(v) = trainer.get(k) {
                        c[k] = v.clone();
                    }
                }
                if let Some(r) = trainer.get("resourcesPerNode") {
                    c["resources"] = r.clone();
                }
                out.push(("TrainJob/trainer".into(), c));
            }
            "InferenceService" => {
                out.push((
                    "predictor".into(),
                    obj["spec"]["predictor"]["model"].clone(),
                ));
            }
            "ConfigMap" | "Service" | "PersistentVolumeClaim" | "Role" | "RoleBinding" => {}
            _ => walk(&obj["spec"], kind, &mut out),
        }
    }
    out
}

/// What every rendering of `target` must show: the operator's container in every pod, a
/// command (or an entrypoint that runs by design), GPUs only on that container, and the
/// image the user gave, if any, in every workload.
fn check_workloads(target: &Target, what: &str, objs: &[Value], image: Option<&str>) {
    let found = workloads(objs);
    assert!(!found.is_empty(), "{what}: nothing runs: {objs:?}");
    for (path, c) in &found {
        if let Some(name) = target.container {
            assert_eq!(
                c["name"], name,
                "{what}: {path}: the operator configures container {name}"
            );
        }
        let runs = c.get("command").is_some() || c.get("args").is_some();
        let entrypoint = target.entrypoint.iter().any(|p| path.contains(p))
            || (image.is_some() && c.get("command").is_none());
        assert!(runs || entrypoint, "{what}: {path}: no command runs in {c}");
        if let Some(image) = image
            && (c.get("image").is_some() || path.starts_with("TrainJob"))
        {
            assert_eq!(
                c["image"], image,
                "{what}: {path}: the user's image is replaced"
            );
        }
    }
}

/// `kf generate <prototype> …` lines of a package README, continuations joined, split as
/// a shell would (quotes only: the examples use no other shell syntax).
fn readme_generates(package: &str, prototype: &str) -> Vec<Vec<String>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/kubeflow");
    let text = read(root.join(package).join("README.md")).replace("\\\n", " ");
    let prefix = format!("kf generate {prototype} ");
    text.lines()
        .filter(|l| l.starts_with(&prefix))
        .map(|l| {
            let line = l.split(" # ").next().unwrap();
            assert!(
                !line.contains('$') && !line.contains('`'),
                "{package}: {line}"
            );
            let (mut words, mut word, mut quote) = (Vec::new(), String::new(), None);
            for ch in line.chars() {
                match (quote, ch) {
                    (None, '"' | '\'') => quote = Some(ch),
                    (Some(q), _) if ch == q => quote = None,
                    (None, c) if c.is_whitespace() => {
                        if !word.is_empty() {
                            words.push(std::mem::take(&mut word));
                        }
                    }
                    _ => word.push(ch),
                }
            }
            words.push(word);
            words
        })
        .collect()
}

/// The "Done when" of the ML prototypes: for every job kind and model server, its
/// defaults, its defaults with a GPU, an image of the user's, and each `kf generate` of
/// it in its package README as written, render what its operator runs.
#[test]
fn every_job_and_server_runs_its_defaults_gpus_images_and_readme_examples() {
    let app = new_app();
    let generate = |name: &str, target: &Target, extra: &[&str]| {
        let mut args = vec!["generate", target.prototype, name];
        args.extend(target.required);
        args.extend(extra);
        ok(&app.root, &args);
        render(&app, name)
    };
    for (i, target) in TARGETS.iter().enumerate() {
        let what = target.prototype;
        // Its page says which upstream release and files it was checked against.
        let page = read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("docs/prototypes/{what}.md")),
        );
        assert!(
            page.contains("## Checked against\n\n- "),
            "docs/prototypes/{what}.md names no upstream release it was checked against"
        );
        let objs = generate(&format!("d{i}"), target, &[]);
        check_workloads(target, &format!("{what} defaults"), &objs, None);

        ok(
            &app.root,
            &["param", "set", &format!("d{i}"), "numGpus", "1"],
        );
        let objs = render(&app, &format!("d{i}"));
        check_workloads(target, &format!("{what} with a GPU"), &objs, None);
        let gpu: Vec<String> = workloads(&objs)
            .iter()
            .filter(|(_, c)| asks_for_gpus(c))
            .map(|(p, c)| format!("{p}:{}", c["name"].as_str().unwrap_or("model")))
            .collect();
        assert!(!gpu.is_empty(), "{what}: numGpus 1 gave no workload a GPU");

        if target.prototype != "kserve" {
            let own = "registry.example.com/ml/own:1";
            let objs = generate(
                &format!("i{i}"),
                target,
                &["--image=registry.example.com/ml/own:1", "--numGpus=1"],
            );
            check_workloads(target, &format!("{what} --image"), &objs, Some(own));
        }

        let examples = readme_generates(target.package, target.prototype);
        assert!(
            !examples.is_empty(),
            "{}: its README has no kf generate {what}",
            target.package
        );
        for words in examples {
            let fresh = new_app();
            let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            ok(&fresh.root, &args);
            let out = ok(
                &fresh.root,
                &["show", "default", "-c", args[2], "-o", "json"],
            );
            let list: Value = serde_json::from_str(&out).unwrap();
            let image = args.iter().find_map(|a| a.strip_prefix("--image="));
            check_workloads(
                target,
                &words.join(" "),
                list["items"].as_array().unwrap(),
                image,
            );
        }
    }
}

/// tf-serving's minAvailable puts a PodDisruptionBudget (policy/v1) over the version's
/// serving pods, so node drains and cluster upgrades keep that many replicas answering;
/// a number, a percentage, and a bad value with the param's name.
#[test]
fn tf_serving_keeps_min_available_replicas_serving_through_drains() {
    let app = new_app();
    ok(&app.root, &["pkg", "install", "kubeflow/common"]);
    ok(&app.root, &["pkg", "install", "kubeflow/tf-serving"]);
    ok(
        &app.root,
        &[
            "generate",
            "tf-serving",
            "mnist",
            "--modelBasePath=gs://models/mnist",
            "--replicas=3",
            "--minAvailable=2",
        ],
    );
    let objs = render(&app, "mnist");
    let deployment = objs.iter().find(|o| o["kind"] == "Deployment").unwrap();
    let budget = objs
        .iter()
        .find(|o| o["kind"] == "PodDisruptionBudget")
        .expect("a budget");
    assert_eq!(budget["apiVersion"], "policy/v1");
    assert_eq!(budget["metadata"]["name"], deployment["metadata"]["name"]);
    assert_eq!(budget["spec"]["minAvailable"], 2);
    assert_eq!(budget["spec"]["selector"], deployment["spec"]["selector"]);
    assert!(ok(&app.root, &["validate", "default"]).contains("are valid"));
    ok(&app.root, &["param", "set", "mnist", "minAvailable", "50%"]);
    let objs = render(&app, "mnist");
    let budget = objs
        .iter()
        .find(|o| o["kind"] == "PodDisruptionBudget")
        .unwrap();
    assert_eq!(budget["spec"]["minAvailable"], "50%");
    ok(
        &app.root,
        &["param", "set", "mnist", "minAvailable", "150%"],
    );
    let err = fails(&app.root, &["show", "default", "-c", "mnist"]);
    assert!(err.contains("minAvailable: 150% is over 100%"), "{err}");
    // Without it, no budget.
    ok(
        &app.root,
        &[
            "generate",
            "tf-serving",
            "plain",
            "--modelBasePath=gs://models/plain",
        ],
    );
    assert!(
        render(&app, "plain")
            .iter()
            .all(|o| o["kind"] != "PodDisruptionBudget")
    );
}
