//! The LLM prototypes (issue 48 §3): llm-serve on KServe v0.20.0's Hugging Face runtime
//! with vLLM, rendered as the runtime reads it (config/runtimes/kserve-huggingfaceserver.yaml,
//! python/huggingfaceserver/huggingfaceserver/__main__.py), valid against KServe's CRDs.

mod support;

use serde_json::{Value, json};
use support::*;

fn objects(app: &TempApp, env: &str) -> Vec<Value> {
    let out = ok(&app.root, &["show", env, "-o", "json"]);
    serde_json::from_str::<Value>(&out).unwrap()["items"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn llm_serve_runs_a_small_open_model_on_one_gpu_by_default() {
    let app = new_app();
    ok(&app.root, &["generate", "kserve-runtimes", "runtimes"]);
    ok(&app.root, &["generate", "llm-serve", "chat"]);
    ok(&app.root, &["validate", "default"]);
    let items = objects(&app, "default");
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
    let prod = objects(&app, "prod");
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
    let dev = objects(&app, "default");
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
