//! The LLM prototypes (issue 48 §3): llm-serve on KServe v0.20.0's Hugging Face runtime
//! with vLLM, rendered as the runtime reads it (config/runtimes/kserve-huggingfaceserver.yaml,
//! python/huggingfaceserver/huggingfaceserver/__main__.py), valid against KServe's CRDs.

mod support;

use serde_json::{Value, json};
use support::*;

#[test]
fn llm_serve_runs_a_small_open_model_on_one_gpu_by_default() {
    let app = new_app();
    ok(&app.root, &["generate", "kserve-runtimes", "runtimes"]);
    ok(&app.root, &["generate", "llm-serve", "chat"]);
    ok(&app.root, &["validate", "default"]);
    let items = rendered_objects(&app, "default");
    // The runtime it names comes with kserve-runtimes, as upstream declares it.
    let runtime = items
        .iter()
        .find(|o| {
            o["kind"] == "ClusterServingRuntime"
                && o["metadata"]["name"] == "kserve-huggingfaceserver"
        })
        .expect("kserve-huggingfaceserver");
    assert_eq!(
        runtime["metadata"]["annotations"]["serving.kserve.io/server-type"],
        "huggingfaceserver"
    );
    let container = &runtime["spec"]["containers"][0];
    assert_eq!(container["image"], "kserve/huggingfaceserver:v0.20.0");
    assert_eq!(container["args"], json!(["--model_name={{.Name}}"]));
    assert_eq!(
        runtime["spec"]["supportedModelFormats"][0]["name"],
        "huggingface"
    );
    assert_eq!(
        runtime["spec"]["volumes"][0]["emptyDir"]["medium"],
        "Memory"
    );

    let isvc = items
        .iter()
        .find(|o| o["kind"] == "InferenceService")
        .unwrap();
    assert_eq!(
        isvc["metadata"]["annotations"]["serving.kserve.io/deploymentMode"],
        "RawDeployment"
    );
    let model = &isvc["spec"]["predictor"]["model"];
    assert_eq!(model["modelFormat"]["name"], "huggingface");
    assert_eq!(model["runtime"], "kserve-huggingfaceserver");
    assert_eq!(
        model["args"],
        json!([
            "--model_name=chat",
            "--backend=vllm",
            "--model_id=Qwen/Qwen2.5-0.5B-Instruct"
        ])
    );
    assert!(
        model.get("storageUri").is_none(),
        "the server downloads a Hub model itself"
    );
    assert_eq!(model["resources"]["limits"]["nvidia.com/gpu"], 1);
    assert_eq!(model["resources"]["requests"]["memory"], "16Gi");
    assert!(
        isvc["spec"]["predictor"]["tolerations"].is_array(),
        "tolerates the GPU taint"
    );
}

#[test]
fn llm_serve_shards_over_its_gpus_reads_gated_and_stored_models_and_joins_a_queue() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "llm-serve",
            "llama",
            "--model=hf://meta-llama/Llama-3.1-8B-Instruct",
            "--hfTokenSecret=hf-token",
            "--maxModelLen=8192",
        ],
    );
    for (key, value) in [
        ("numGpus", "4"),
        ("queueName", "team-a"),
        ("maxReplicas", "3"),
    ] {
        ok(
            &app.root,
            &["param", "set", "llama", key, value, "--env", "prod"],
        );
    }
    ok(&app.root, &["validate", "prod"]);
    let prod = rendered_objects(&app, "prod");
    let predictor = &prod
        .iter()
        .find(|o| o["kind"] == "InferenceService")
        .unwrap()["spec"]["predictor"];
    let args = predictor["model"]["args"].as_array().unwrap();
    for want in [
        "--model_id=meta-llama/Llama-3.1-8B-Instruct",
        "--max_model_len=8192",
        "--tensor-parallel-size=4",
    ] {
        assert!(args.contains(&json!(want)), "{want}: {args:?}");
    }
    assert_eq!(
        predictor["model"]["env"][0],
        json!({"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN"}}})
    );
    assert_eq!(
        predictor["model"]["resources"]["limits"]["nvidia.com/gpu"],
        4
    );
    assert_eq!(predictor["maxReplicas"], 3);
    assert_eq!(predictor["labels"]["kueue.x-k8s.io/queue-name"], "team-a");

    // A model on a PVC goes through the storage initializer, into /mnt/models.
    ok(
        &app.root,
        &[
            "param",
            "set",
            "llama",
            "model",
            "pvc://models/llama-3.1-8b",
        ],
    );
    let dev = rendered_objects(&app, "default");
    let model = &dev
        .iter()
        .find(|o| o["kind"] == "InferenceService")
        .unwrap()["spec"]["predictor"]["model"];
    assert_eq!(model["storageUri"], "pvc://models/llama-3.1-8b");
    assert!(
        !model["args"].to_string().contains("--model_id"),
        "{}",
        model["args"]
    );

    // More shards than GPUs is refused.
    ok(
        &app.root,
        &[
            "param",
            "set",
            "llama",
            "tensorParallelSize",
            "8",
            "--env",
            "prod",
        ],
    );
    let err = fails(&app.root, &["show", "prod"]);
    assert!(
        err.contains("tensorParallelSize: 8 is more than the 4 GPUs of a replica"),
        "{err}"
    );
}

/// Upstream's object with what kf adds on purpose taken out: the tag kf pins on Trainer's
/// own images (upstream's kustomization sets it) and kf's labels.
fn without_kf_additions(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| k.as_str() != "ksonnet.io/component" && k.as_str() != "app")
                .map(|(k, v)| {
                    let v = match (k.as_str(), v.as_str()) {
                        ("image", Some(i)) if i.starts_with("ghcr.io/kubeflow/trainer/") => {
                            json!(i.rsplit_once(':').map_or(i, |(name, _)| name))
                        }
                        _ => without_kf_additions(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_kf_additions).collect()),
        other => other.clone(),
    }
}

/// training-runtimes carries Trainer v2.3.0's three torchtune runtimes as upstream ships
/// them (tests/fixtures/trainer-v2.3.0, unedited copies), field for field.
#[test]
fn the_torchtune_runtimes_are_trainers_own() {
    let app = new_app();
    ok(&app.root, &["generate", "training-runtimes", "runtimes"]);
    let items = rendered_objects(&app, "default");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/trainer-v2.3.0/torchtune");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let upstream: Value = serde_saphyr::from_str(&read(entry.unwrap().path())).unwrap();
        let name = upstream["metadata"]["name"].as_str().unwrap();
        let mine = items
            .iter()
            .find(|o| o["kind"] == "ClusterTrainingRuntime" && o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not rendered"));
        assert_eq!(
            without_kf_additions(mine),
            without_kf_additions(&upstream),
            "{name}"
        );
        assert!(
            mine.to_string()
                .contains("ghcr.io/kubeflow/trainer/torchtune-trainer:v2.3.0")
        );
        seen += 1;
    }
    assert_eq!(seen, 3);
}

#[test]
fn llm_finetune_trains_lora_on_one_gpu_by_default_and_refuses_what_trainer_would() {
    let app = new_app();
    ok(&app.root, &["generate", "training-runtimes", "runtimes"]);
    ok(&app.root, &["generate", "llm-finetune", "tune"]);
    ok(&app.root, &["validate", "default"]);
    let job = |app: &TempApp, env: &str| {
        rendered_objects(app, env)
            .into_iter()
            .find(|o| o["kind"] == "TrainJob")
            .unwrap()
    };
    let spec = job(&app, "default")["spec"].clone();
    assert_eq!(spec["runtimeRef"]["name"], "torchtune-qwen2.5-1.5b");
    assert_eq!(spec["runtimeRef"]["kind"], "ClusterTrainingRuntime");
    assert_eq!(
        spec["initializer"]["model"]["storageUri"],
        "hf://Qwen/Qwen2.5-1.5B-Instruct"
    );
    assert_eq!(
        spec["initializer"]["dataset"]["storageUri"],
        "hf://tatsu-lab/alpaca"
    );
    // One node, one GPU, LoRA's args: Trainer's single-device LoRA recipe.
    assert_eq!(spec["trainer"]["numNodes"], 1);
    assert_eq!(
        spec["trainer"]["resourcesPerNode"]["limits"]["nvidia.com/gpu"],
        1
    );
    assert_eq!(
        spec["trainer"]["args"],
        json!(["model.lora_attn_modules=[q_proj,v_proj]"])
    );

    // A gated Llama with a token, QLoRA, in prod's queue.
    for (key, value) in [
        ("runtime", "torchtune-llama3.2-1b"),
        ("hfTokenSecret", "hf-token"),
        ("method", "qlora"),
        ("queueName", "team-a"),
        ("epochs", "2"),
    ] {
        ok(
            &app.root,
            &["param", "set", "tune", key, value, "--env", "prod"],
        );
    }
    ok(&app.root, &["validate", "prod"]);
    let prod = job(&app, "prod");
    assert_eq!(
        prod["spec"]["initializer"]["model"]["storageUri"],
        "hf://meta-llama/Llama-3.2-1B-Instruct"
    );
    assert_eq!(
        prod["spec"]["initializer"]["model"]["secretRef"]["name"],
        "hf-token"
    );
    assert_eq!(
        prod["spec"]["trainer"]["args"],
        json!([
            "model.lora_attn_modules=[q_proj,v_proj]",
            "model.quantize_base=True",
            "epochs=2"
        ])
    );
    assert_eq!(
        prod["metadata"]["labels"]["kueue.x-k8s.io/queue-name"],
        "team-a"
    );

    // What Trainer's torchtune plugin refuses, kf refuses first, with the reason.
    for (key, value, said) in [
        ("numGpus", "2", "qlora on Llama 3.2 needs numGpus 1"),
        (
            "runtime",
            "torchtune-qwen2.5-1.5b",
            "qlora is not supported for Qwen2.5 1.5B",
        ),
        ("numNodes", "2", "on one node"),
        (
            "extraArgs",
            "output_dir=/tmp/x",
            "output_dir=/tmp/x is set by the runtime",
        ),
        ("runtime", "torch-distributed", "not a torchtune runtime"),
    ] {
        ok(
            &app.root,
            &["param", "set", "tune", key, value, "--env", "prod"],
        );
        let err = fails(&app.root, &["show", "prod", "-c", "tune"]);
        assert!(err.contains(said), "{key}={value}: {err}");
        ok(&app.root, &["param", "unset", "tune", key, "--env", "prod"]);
    }
}
