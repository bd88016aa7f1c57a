//! `kf init` and `kf env`: the ksonnet app layout, environments and the current env.

mod support;
use support::*;

#[test]
fn init_writes_the_ksonnet_layout() {
    let dir = tempfile::tempdir().unwrap();
    ok(
        dir.path(),
        &[
            "init",
            "my-app",
            "--env",
            "dev",
            "--namespace",
            "ml",
            "--server",
            "https://k8s.example.com",
        ],
    );
    let root = dir.path().join("my-app");
    for f in [
        "app.yaml",
        ".gitignore",
        "components/params.libsonnet",
        "environments/base.libsonnet",
        "environments/dev/main.jsonnet",
        "environments/dev/params.libsonnet",
        "environments/dev/globals.libsonnet",
    ] {
        assert!(root.join(f).is_file(), "{f} missing");
    }
    assert!(root.join("lib").is_dir() && root.join("vendor").is_dir());
    let app: serde_json::Value = serde_saphyr::from_str(&read(root.join("app.yaml"))).unwrap();
    assert_eq!(app["apiVersion"], "0.3.0");
    assert_eq!(app["kind"], "ksonnet.io/app");
    assert_eq!(app["name"], "my-app");
    assert_eq!(app["environments"]["dev"]["destination"]["namespace"], "ml");
    assert_eq!(
        app["environments"]["dev"]["destination"]["server"],
        "https://k8s.example.com"
    );
    assert_eq!(app["environments"]["dev"]["path"], "dev");
    assert!(read(root.join(".gitignore")).contains("/lib"));
}

#[test]
fn init_into_an_existing_folder_fails_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path().join("taken/keep.txt"), "mine");
    let before = snapshot(dir.path());
    let err = fails(dir.path(), &["init", "taken"]);
    assert!(err.contains("already exists"), "{err}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn init_with_api_spec_file_records_its_version() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path().join("swagger.json"),
        r##"{"swagger":"2.0","info":{"title":"Kubernetes","version":"v1.11.5"},
            "paths":{"/api/v1/namespaces/{namespace}/configmaps":{"post":{
                "parameters":[{"name":"body","in":"body","schema":{"$ref":"#/definitions/io.k8s.api.core.v1.ConfigMap"}}],
                "x-kubernetes-group-version-kind":{"group":"","kind":"ConfigMap","version":"v1"}}}},
            "definitions":{"io.k8s.api.core.v1.ConfigMap":{"properties":{
                "apiVersion":{"type":"string"},"kind":{"type":"string"},
                "data":{"type":"object","additionalProperties":{"type":"string"}}},
              "x-kubernetes-group-version-kind":[{"group":"","kind":"ConfigMap","version":"v1"}]}}}"##,
    );
    let err = fails(
        dir.path(),
        &["init", "bad", "--api-spec", "file:missing.json"],
    );
    assert!(err.contains("missing.json"), "{err}");
    assert!(!dir.path().join("bad").exists());
    ok(
        dir.path(),
        &["init", "a", "--api-spec", "file:swagger.json"],
    );
    let app = read(dir.path().join("a/app.yaml"));
    assert!(app.contains("k8sVersion: v1.11.5"), "{app}");
    assert!(
        dir.path()
            .join("a/lib/ksonnet-lib/v1.11.5/swagger.json")
            .is_file()
    );
    let k8s = read(dir.path().join("a/lib/ksonnet-lib/v1.11.5/k8s.libsonnet"));
    assert!(k8s.contains("kubernetesVersion: \"1.11.5\""), "{k8s}");
    let core = read(
        dir.path()
            .join("a/lib/ksonnet-lib/v1.11.5/k8s/core.v1.libsonnet"),
    );
    // Each type's setters are a file of their own, imported by the group's file.
    let lits = read(
        dir.path()
            .join("a/lib/ksonnet-lib/v1.11.5/k8s/core.v1.lits.configMap.libsonnet"),
    );
    assert!(
        core.contains("configMap::")
            && core.contains("core.v1.lits.configMap.libsonnet")
            && lits.contains("withDataMixin"),
        "{core}\n{lits}"
    );
    assert!(
        dir.path()
            .join("a/lib/ksonnet-lib/v1.11.5/k.libsonnet")
            .is_file()
    );
}

#[test]
fn commands_find_the_app_from_a_subfolder_and_with_dir() {
    let app = new_app();
    let sub = app.root.join("components");
    assert!(ok(&sub, &["env", "list"]).contains("prod"));
    let elsewhere = tempfile::tempdir().unwrap();
    assert!(
        ok(
            elsewhere.path(),
            &["--dir", app.root.to_str().unwrap(), "env", "list"]
        )
        .contains("prod")
    );
    let err = fails(elsewhere.path(), &["env", "list"]);
    assert!(err.contains("no ksonnet app"), "{err}");
}

#[test]
fn env_list_prints_ksonnet_table_and_json() {
    let app = new_app();
    let table = ok(&app.root, &["env", "list"]);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(
        lines[0],
        "NAME    OVERRIDE KUBERNETES-VERSION NAMESPACE SERVER"
    );
    assert_eq!(
        lines[1],
        "====    ======== ================== ========= ======"
    );
    assert_eq!(
        lines[2],
        "default          v1.33.0            ml-dev    https://dev.example.com"
    );
    assert_eq!(
        lines[3],
        "prod             v1.33.0            ml-prod   https://prod.example.com"
    );
    let json: serde_json::Value =
        serde_json::from_str(&ok(&app.root, &["env", "list", "-o", "json"])).unwrap();
    assert_eq!(json["kind"], "environments");
    assert_eq!(json["data"][1]["name"], "prod");
    assert_eq!(json["data"][1]["namespace"], "ml-prod");
}

#[test]
fn env_add_existing_or_bad_name_fails_without_changes() {
    let app = new_app();
    let before = snapshot(&app.root);
    assert!(fails(&app.root, &["env", "add", "prod"]).contains("already exists"));
    assert!(fails(&app.root, &["env", "add", "../escape"]).contains("invalid environment name"));
    assert!(fails(&app.root, &["env", "add", "a b"]).contains("invalid environment name"));
    assert_eq!(snapshot(&app.root), before);
}

/// What the API server would refuse is refused when set, not when applied, and an app.yaml
/// that holds it (edited by hand) fails `kf validate` at its line.
#[test]
fn namespaces_and_servers_the_api_server_would_refuse_are_refused_when_set() {
    let app = new_app();
    let before = snapshot(&app.root);
    let err = fails(&app.root, &["env", "set", "prod", "--namespace", "ML_Prod"]);
    assert!(
        err.contains("namespace 'ML_Prod' is not a DNS-1123 label"),
        "{err}"
    );
    assert!(
        err.contains("app.yaml") && err.contains("nothing was changed"),
        "{err}"
    );
    let err = fails(
        &app.root,
        &["env", "add", "staging", "--server", "prod.example.com"],
    );
    assert!(
        err.contains("has no scheme") && err.contains("'https://prod.example.com'"),
        "{err}"
    );
    let err = fails(&app.root, &["env", "add", "staging", "--namespace=x-"]);
    assert!(
        err.contains("start and end with a letter or digit"),
        "{err}"
    );
    assert_eq!(snapshot(&app.root), before);
    let dir = tempfile::tempdir().unwrap();
    let err = fails(dir.path(), &["init", "a", "--server", "ftp://h"]);
    assert!(err.contains("scheme 'ftp'"), "{err}");
    assert!(!dir.path().join("a").exists());

    let text = read(app.root.join("app.yaml"));
    let edited = text.replacen("namespace: ml-prod", "namespace: Bad_ml-prod", 1);
    assert_ne!(edited, text);
    std::fs::write(app.root.join("app.yaml"), &edited).unwrap();
    let line = edited.lines().position(|l| l.contains("Bad_")).unwrap() + 1;
    let err = fails(&app.root, &["validate", "prod"]);
    assert!(
        err.contains(&format!("app.yaml:{line}: namespace 'Bad_")),
        "{err}"
    );
    assert!(err.contains("kf env set prod --namespace"), "{err}");
}

#[test]
fn nested_env_names_live_in_nested_folders() {
    let app = new_app();
    ok(
        &app.root,
        &["env", "add", "us-west/prod", "--namespace", "west"],
    );
    assert!(
        app.root
            .join("environments/us-west/prod/main.jsonnet")
            .is_file()
    );
    ok(&app.root, &["generate", "namespace", "team"]);
    let out = ok(&app.root, &["show", "us-west/prod"]);
    assert!(out.contains("kind: Namespace"));
    ok(&app.root, &["env", "rm", "us-west/prod"]);
    assert!(!app.root.join("environments/us-west").exists());
}

#[test]
fn env_set_renames_and_moves_the_folder() {
    let app = new_app();
    ok(&app.root, &["env", "current", "--set", "prod"]);
    ok(
        &app.root,
        &[
            "env",
            "set",
            "prod",
            "--name",
            "production",
            "--namespace",
            "ml-p",
        ],
    );
    assert!(
        app.root
            .join("environments/production/params.libsonnet")
            .is_file()
    );
    assert!(!app.root.join("environments/prod").exists());
    assert_eq!(ok(&app.root, &["env", "current"]).trim(), "production");
    let described = ok(&app.root, &["env", "describe", "production"]);
    assert!(described.contains("namespace: ml-p"), "{described}");
    assert!(fails(&app.root, &["env", "set", "production"]).contains("nothing to change"));
}

#[test]
fn env_rm_removes_entry_folder_and_current_marker() {
    let app = new_app();
    ok(&app.root, &["env", "current", "--set", "prod"]);
    ok(&app.root, &["env", "rm", "prod"]);
    assert!(!app.root.join("environments/prod").exists());
    assert!(!read(app.root.join("app.yaml")).contains("prod"));
    assert!(!app.root.join(".ks_environment").exists());
    let err = fails(&app.root, &["env", "rm", "prood"]);
    assert!(err.contains("unknown environment 'prood'"), "{err}");
}

#[test]
fn env_current_set_unknown_fails_with_suggestion() {
    let app = new_app();
    let err = fails(&app.root, &["env", "current", "--set", "prd"]);
    assert!(err.contains("did you mean 'prod'"), "{err}");
    assert!(fails(&app.root, &["env", "current"]).contains("no current environment"));
}

#[test]
fn override_file_environments_are_listed_and_rendered() {
    let app = new_app();
    ok(
        &app.root,
        &["env", "add", "local", "-o", "--namespace", "mine"],
    );
    assert!(read(app.root.join("app.override.yaml")).contains("local"));
    assert!(!read(app.root.join("app.yaml")).contains("local"));
    let table = ok(&app.root, &["env", "list"]);
    let line = table.lines().find(|l| l.starts_with("local")).unwrap();
    assert!(line.contains(" * "), "{line}");
    ok(&app.root, &["generate", "namespace", "ns"]);
    assert!(ok(&app.root, &["show", "local"]).contains("name: ns"));
}

#[test]
fn app_yaml_problems_are_clear_errors() {
    let app = new_app();
    write(
        app.root.join("app.yaml"),
        "apiVersion: 0.3.0\nkind: [unclosed\n",
    );
    let err = fails(&app.root, &["env", "list"]);
    assert!(
        err.contains("app.yaml") && err.contains("not a valid app file"),
        "{err}"
    );
    write(
        app.root.join("app.yaml"),
        "apiVersion: 9.9.9\nkind: ksonnet.io/app\nname: x\n",
    );
    let err = fails(&app.root, &["env", "list"]);
    assert!(err.contains("unknown apiVersion '9.9.9'"), "{err}");
}

/// An edit of a ksonnet-written app.yaml changes only what it must: comments, key order
/// and the bare `0.3.0`/`0.0.1` ksonnet wrote stay as they were.
#[test]
fn env_add_on_a_ksonnet_app_yaml_adds_one_block_and_keeps_the_rest() {
    let app = new_app();
    let original = "# shop: owned by the ML platform team\napiVersion: 0.3.0\nkind: ksonnet.io/app\nname: shop\nversion: 0.0.1\nenvironments:\n  default:\n    destination:\n      namespace: ml-dev # dev cluster\n      server: https://dev.example.com\n    k8sVersion: v1.10.3\n    path: default\n";
    write(app.root.join("app.yaml"), original);
    ok(
        &app.root,
        &["env", "add", "stage", "--namespace", "ml-stage"],
    );
    let after = read(app.root.join("app.yaml"));
    let added = "  stage:\n    destination:\n      namespace: ml-stage\n      server: https://dev.example.com\n    k8sVersion: v1.10.3\n    path: stage\n";
    assert_eq!(after, format!("{original}{added}"));
    ok(&app.root, &["env", "rm", "stage"]);
    assert_eq!(read(app.root.join("app.yaml")), original);
}

/// A bare key in app.yaml (`libraries:`, `registries:`, an env's `targets:`, a
/// destination's `namespace:`) is null in YAML and empty to ksonnet; kf refused the whole
/// app ("expected mapping start"). Found in a real ksonnet app (issue 26, item 1).
#[test]
fn bare_keys_in_app_yaml_are_empty() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "configMap", "cfg", "--data={\"a\":\"1\"}"],
    );
    let spec = read(app.root.join("app.yaml"));
    let id = spec
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap()
        .to_string();
    write(
        app.root.join("app.yaml"),
        &format!(
            "apiVersion: 0.3.0\nenvironments:\n  default:\n    destination:\n      namespace: ml-dev\n      server: https://dev.example.com\n    k8sVersion:\n    path: default\n    targets:\n  prod:\n    destination:\n      namespace:\n      server: https://prod.example.com\n    path: prod\nid: {id}\nkind: ksonnet.io/app\nlibraries:\nname: app\nregistries:\nversion: 0.0.1\n"
        ),
    );
    let out = ok(&app.root, &["show", "default", "-o", "json"]);
    assert!(out.contains("\"name\": \"cfg\""), "{out}");
    let envs = ok(&app.root, &["env", "list", "-o", "json"]);
    assert!(envs.contains("\"prod\""), "{envs}");
    ok(&app.root, &["registry", "list"]);
}

/// A YAML component named by the server (`generateName` only) lists that prefix as its
/// NAME, as ksonnet 0.13.1 did (pkg/schema/properties.go); kf's column was empty
/// (issue 26, item 6).
#[test]
fn component_list_names_a_generate_name_object_by_its_prefix() {
    let app = new_app();
    write(
        app.root.join("components/job.yaml"),
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: train-\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: busybox\n",
    );
    let out = ok(&app.root, &["component", "list", "-o", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let row = &doc["data"][0];
    assert_eq!(row["component"], "job", "{out}");
    assert_eq!(row["kind"], "Job");
    assert_eq!(row["name"], "train-", "{out}");
}
