//! Items of the ksonnet checklist (docs/dev/ksonnet-checklist.md) not covered by the
//! other suites: offline init, `prototype use`, values files, `param delete`, output order.

mod support;

use support::*;

#[test]
fn init_and_show_need_no_cluster_or_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let vars = [
        ("KUBECONFIG", "/nonexistent/kubeconfig"),
        ("HOME", home.to_str().unwrap()),
        ("HTTPS_PROXY", "http://127.0.0.1:9"),
        ("HTTP_PROXY", "http://127.0.0.1:9"),
    ];
    ok_with_env(dir.path(), &["init", "offline"], &vars);
    let root = dir.path().join("offline");
    ok_with_env(&root, &["generate", "namespace", "team"], &vars);
    let out = ok_with_env(&root, &["show", "default"], &vars);
    assert!(
        out.contains("kind: Namespace") && out.contains("name: team"),
        "{out}"
    );
}

#[test]
fn prototype_use_is_generate() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "prototype",
            "use",
            "single-port-service",
            "api",
            "--targetLabelSelector",
            r#"{"app":"api"}"#,
        ],
    );
    let source = read(app.root.join("components/api.jsonnet"));
    assert!(source.contains("params.targetLabelSelector"), "{source}");
    let out = ok(&app.root, &["show", "default"]);
    assert!(
        out.contains("kind: Service") && out.contains("app: api"),
        "{out}"
    );
}

#[test]
fn values_file_supplies_typed_params_and_flags_win() {
    let app = new_app();
    write(
        app.root.join("values.yaml"),
        "image: nginx:1.25\nreplicas: 3\nservicePort: 8080\n",
    );
    ok(
        &app.root,
        &[
            "generate",
            "deployed-service",
            "web",
            "--values-file",
            "values.yaml",
            "--servicePort=9090",
        ],
    );
    let params = read(app.root.join("components/params.libsonnet"));
    assert!(params.contains("replicas: 3,"), "{params}");
    assert!(params.contains("image: \"nginx:1.25\""), "{params}");
    assert!(params.contains("servicePort: 9090,"), "flags win: {params}");

    write(app.root.join("bad.yaml"), "replicas: three\nimage: x\n");
    let err = fails(
        &app.root,
        &[
            "generate",
            "deployed-service",
            "web2",
            "--values-file",
            "bad.yaml",
        ],
    );
    assert!(err.contains("replicas") && err.contains("number"), "{err}");
    assert!(!app.root.join("components/web2.jsonnet").exists());
}

#[test]
fn param_delete_is_unset() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let before = read(app.root.join("environments/prod/params.libsonnet"));
    ok(
        &app.root,
        &["param", "set", "ns", "name", "prod-ns", "--env", "prod"],
    );
    ok(
        &app.root,
        &["param", "delete", "ns", "name", "--env", "prod"],
    );
    assert_eq!(
        read(app.root.join("environments/prod/params.libsonnet")),
        before
    );
}

#[test]
fn objects_come_out_namespaces_first_then_by_kind_order_then_name() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "b-web", "--image=nginx"],
    );
    ok(&app.root, &["generate", "configMap", "a-config"]);
    ok(&app.root, &["generate", "namespace", "z-team"]);
    ok(
        &app.root,
        &["generate", "deployed-service", "a-web", "--image=nginx"],
    );
    let out = ok(&app.root, &["show", "default", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let kinds_and_names: Vec<(String, String)> = list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["kind"].as_str().unwrap().to_string(),
                v["metadata"]["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("Namespace", "z-team"),
        ("ConfigMap", "a-config"),
        ("Service", "a-web"),
        ("Service", "b-web"),
        ("Deployment", "a-web"),
        ("Deployment", "b-web"),
    ]
    .iter()
    .map(|(k, n)| (k.to_string(), n.to_string()))
    .collect();
    assert_eq!(kinds_and_names, expected);
}

#[test]
fn demo_renders_an_ml_app_with_gpus_in_prod() {
    let dir = tempfile::tempdir().unwrap();
    let keep = dir.path().join("demo-app");
    let run = kf_in(dir.path(), &["demo", "--keep", keep.to_str().unwrap()]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let out = run.stdout;
    // The closing lines say what was rendered and what to try next, on stderr so that
    // stdout stays a YAML stream.
    assert!(
        run.stderr.contains("Rendered environment 'prod'")
            && run
                .stderr
                .contains("7 objects (2 ConfigMap, 2 Deployment, 2 Service, 1 TFJob)")
            && run
                .stderr
                .contains("(components mnist-train, model-config, mnist, model-ui, with")
            && run.stderr.contains(&format!("Next: cd {}", keep.display())),
        "{}",
        run.stderr
    );
    assert!(out.starts_with("---\n"), "{out}");
    for kind in [
        "kind: TFJob",
        "kind: Deployment",
        "kind: Service",
        "kind: ConfigMap",
    ] {
        assert!(out.contains(kind), "{kind} in:\n{out}");
    }
    assert!(
        out.contains("nvidia.com/gpu: 2") && out.contains("nvidia-tesla-t4"),
        "{out}"
    );
    assert!(
        out.contains("image: tensorflow/serving:2.18.0-gpu"),
        "{out}"
    );
    assert!(out.contains("namespace: ml-prod"), "{out}");
    // The kept app is a normal app: its dev env has no GPUs.
    let dev = ok(&keep, &["show", "dev"]);
    assert!(!dev.contains("nvidia.com/gpu"), "{dev}");
    assert!(keep.join("vendor/kubeflow/tf-training").is_dir());
}
