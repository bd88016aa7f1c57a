//! `kf generate`, `kf prototype`, `kf param` and `kf component`.

mod support;
use support::*;

#[test]
fn generate_writes_component_with_ksonnet_locals_and_params() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "deployed-service",
            "web",
            "--image=nginx:1.27",
            "--replicas",
            "2",
        ],
    );
    let comp = read(app.root.join("components/web.jsonnet"));
    assert!(comp.starts_with("local env = std.extVar(\"__ksonnet/environments\");\nlocal params = std.extVar(\"__ksonnet/params\").components.web;\n"), "{comp}");
    assert!(!comp.contains("param://"), "{comp}");
    assert!(comp.contains("params.image"));
    let params = read(app.root.join("components/params.libsonnet"));
    assert!(params.contains("    web: {\n      containerPort: 80,\n      image: \"nginx:1.27\",\n      name: \"web\",\n      replicas: 2,\n"), "{params}");
}

#[test]
fn generate_rejects_bad_input_and_changes_nothing() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "team"]);
    let before = snapshot(&app.root);
    let cases: &[(&[&str], &str)] = &[
        (&["generate", "service", "x"], "ambiguous"),
        (&["generate", "no-such-proto", "x"], "no prototype matches"),
        (&["generate", "deployed-service", "x"], "needs --image"),
        (
            &[
                "generate",
                "deployed-service",
                "x",
                "--image=a",
                "--replicas=two",
            ],
            "not a valid number",
        ),
        (
            &[
                "generate",
                "deployed-service",
                "x",
                "--image=a",
                "--replcas=2",
            ],
            "did you mean 'replicas'",
        ),
        (&["generate", "namespace", "team"], "already exists"),
        (&["generate", "namespace", "../evil"], "path separator"),
        (
            &["generate", "namespace", "bad name"],
            "invalid component name",
        ),
        (
            &["generate", "configMap", "cm", "--data={not json"],
            "not a valid object",
        ),
    ];
    for (args, want) in cases {
        let err = fails(&app.root, args);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert_eq!(snapshot(&app.root), before);
}

#[test]
fn prototype_list_describe_search_and_preview() {
    let app = new_app();
    let list = ok(&app.root, &["prototype", "list"]);
    for p in [
        "configMap",
        "deployed-service",
        "namespace",
        "single-port-deployment",
        "single-port-service",
    ] {
        assert!(list.contains(&format!("io.ksonnet.pkg.{p}")), "{list}");
    }
    assert!(list.starts_with("NAME"));
    let d = ok(&app.root, &["prototype", "describe", "deployed-service"]);
    assert!(d.contains("PROTOTYPE NAME:\nio.ksonnet.pkg.deployed-service"));
    assert!(
        d.contains("--replicas=<replicas>") && d.contains("[default: 1, type: number]"),
        "{d}"
    );
    let s = ok(&app.root, &["prototype", "search", "service"]);
    for p in [
        "deployed-service",
        "single-port-service",
        "tf-serving-service",
    ] {
        assert!(s.contains(&format!("io.ksonnet.pkg.{p}")), "{s}");
    }
    assert!(
        s.lines()
            .skip(2)
            .all(|l| l.to_lowercase().contains("service")),
        "{s}"
    );
    assert!(!s.contains("io.ksonnet.pkg.namespace"), "{s}");
    let p = ok(
        &app.root,
        &[
            "prototype",
            "preview",
            "single-port-deployment",
            "--name=api",
            "--image=busybox",
        ],
    );
    assert!(
        p.contains("image: \"busybox\"") && p.contains("params.image"),
        "{p}"
    );
    assert!(!app.root.join("components/api.jsonnet").exists());
}

#[test]
fn param_set_types_values_like_ksonnet_without_its_bugs() {
    let app = new_app();
    ok(&app.root, &["generate", "configMap", "cm"]);
    let cases = [
        ("i", "42", "i: 42,"),
        ("f", "1.5", "f: 1.5,"),
        ("b", "TRUE", "b: true,"),
        ("s", "hello", "s: \"hello\","),
        ("v", "1.10.2", "v: \"1.10.2\","),
        ("arr", "[1,\"a\"]", "arr: [1, \"a\"],"),
        ("obj", "{\"a\":{\"b\":1}}", "obj: { a: { b: 1 } },"),
        ("mode", "0777", "mode: \"0777\","),
    ];
    for (k, v, want) in cases {
        ok(&app.root, &["param", "set", "cm", k, v]);
        let text = read(app.root.join("components/params.libsonnet"));
        assert!(text.contains(want), "{k}={v}: {text}");
    }
    ok(
        &app.root,
        &[
            "param",
            "set",
            "cm",
            "tag",
            "1.10",
            "--as-string",
            "--env",
            "prod",
        ],
    );
    assert!(read(app.root.join("environments/prod/params.libsonnet")).contains("tag: \"1.10\""));
    let before = snapshot(&app.root);
    let err = fails(&app.root, &["param", "set", "cm", "x", "{\"a\":"]);
    assert!(err.contains("not valid JSON"), "{err}");
    assert!(
        fails(&app.root, &["param", "set", "nope", "x", "1"]).contains("unknown component 'nope'")
    );
    assert!(fails(&app.root, &["param", "set", "cm", "a..b", "1"]).contains("invalid param key"));
    assert!(
        fails(&app.root, &["param", "set", "cm", "x", "1", "--env", "qa"])
            .contains("unknown environment")
    );
    assert_eq!(snapshot(&app.root), before);
}

const HAND_EDITED: &str = r#"// Hand-written params: keep my comments!
local base = 8080;
{
  global: {},
  components: {
    # a hash comment
    web:   {   image : 'nginx:1.25',   // pinned
      port: base + 1,   /* an expression */
      "odd key": "x",
    },
    other: { replicas: 1 },
  },
}
"#;

#[test]
fn param_edits_keep_the_rest_of_the_file_byte_identical() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "web"]);
    ok(&app.root, &["generate", "namespace", "other"]);
    let path = app.root.join("components/params.libsonnet");
    write(&path, HAND_EDITED);

    ok(&app.root, &["param", "set", "web", "image", "nginx:1.27"]);
    assert_eq!(
        read(&path),
        HAND_EDITED.replace("'nginx:1.25'", "'nginx:1.27'")
    );

    ok(&app.root, &["param", "set", "other", "replicas", "3"]);
    ok(&app.root, &["param", "set", "other", "replicas", "1"]);
    ok(&app.root, &["param", "set", "web", "image", "nginx:1.25"]);
    assert_eq!(read(&path), HAND_EDITED);

    ok(&app.root, &["param", "set", "web", "newKey", "v"]);
    let with_new = read(&path);
    assert!(
        with_new.contains("      \"odd key\": \"x\",\n      newKey: \"v\",\n    },"),
        "{with_new}"
    );
    ok(&app.root, &["param", "unset", "web", "newKey"]);
    assert_eq!(read(&path), HAND_EDITED);

    ok(&app.root, &["param", "set", "other", "extra", "2"]);
    assert!(read(&path).contains("other: { replicas: 1, extra: 2 },"));
    ok(&app.root, &["param", "unset", "other", "extra"]);
    assert!(read(&path).contains("other: { replicas: 1, },"));
    // The expression value is never evaluated away or rewritten.
    assert!(read(&path).contains("port: base + 1,   /* an expression */"));
    let shown = ok(&app.root, &["param", "list", "web"]);
    assert!(shown.contains("web       port    8081"), "{shown}");
}

#[test]
fn env_param_set_then_unset_restores_env_file_bytes() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "web"]);
    let path = app.root.join("environments/prod/params.libsonnet");
    let original = read(&path);
    ok(
        &app.root,
        &[
            "param",
            "set",
            "web",
            "resources.limits.cpu",
            "2",
            "--env",
            "prod",
        ],
    );
    let edited = read(&path);
    assert!(
        edited
            .contains("    web+: {\n      resources+: {\n        limits+: {\n          cpu: 2,\n"),
        "{edited}"
    );
    ok(
        &app.root,
        &[
            "param",
            "unset",
            "web",
            "resources.limits.cpu",
            "--env",
            "prod",
        ],
    );
    assert_eq!(read(&path), original);
    let err = fails(
        &app.root,
        &["param", "unset", "web", "replicas", "--env", "prod"],
    );
    assert!(err.contains("is not set"), "{err}");
}

#[test]
fn param_set_on_env_changes_only_that_env_output() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "single-port-deployment",
            "api",
            "--image=busybox",
        ],
    );
    let dev_before = ok(&app.root, &["show", "default"]);
    ok(
        &app.root,
        &["param", "set", "api", "replicas", "5", "--env", "prod"],
    );
    assert_eq!(ok(&app.root, &["show", "default"]), dev_before);
    let prod = ok(&app.root, &["show", "prod"]);
    assert!(prod.contains("replicas: 5"), "{prod}");
    assert!(dev_before.contains("replicas: 1"));
}

#[test]
fn globals_apply_to_every_component() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "single-port-deployment", "a", "--image=x"],
    );
    ok(
        &app.root,
        &["generate", "single-port-deployment", "b", "--image=x"],
    );
    ok(&app.root, &["param", "set", "replicas", "4"]);
    assert_eq!(
        ok(&app.root, &["show", "default"])
            .matches("replicas: 4")
            .count(),
        2
    );
    ok(
        &app.root,
        &["param", "set", "replicas", "7", "--env", "prod"],
    );
    assert!(read(app.root.join("environments/prod/globals.libsonnet")).contains("replicas: 7"));
    assert_eq!(
        ok(&app.root, &["show", "prod"])
            .matches("replicas: 7")
            .count(),
        2
    );
}

#[test]
fn param_list_and_diff_print_ksonnet_tables() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "single-port-deployment",
            "api",
            "--image=busybox",
        ],
    );
    ok(
        &app.root,
        &["param", "set", "api", "replicas", "3", "--env", "prod"],
    );
    ok(
        &app.root,
        &["param", "set", "api", "debug", "true", "--env", "prod"],
    );
    let list = ok(&app.root, &["param", "list"]);
    assert_eq!(
        list,
        "COMPONENT PARAM         VALUE\n========= =====         =====\napi       containerPort 80\napi       image         'busybox'\napi       name          'api'\napi       replicas      1\n"
    );
    let prod = ok(&app.root, &["param", "list", "--env", "prod", "-o", "json"]);
    // ksonnet's -o json: {"kind": <table>, "data": [{<column>: <cell as text>}]}.
    let doc: serde_json::Value = serde_json::from_str(&prod).unwrap();
    assert_eq!(doc["kind"], "params");
    assert!(
        doc["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["component"] == "api" && r["param"] == "replicas" && r["value"] == "3"),
        "{prod}"
    );
    let diff = ok(&app.root, &["param", "diff", "default", "prod"]);
    let lines: Vec<&str> = diff.lines().collect();
    // ksonnet 0.13.1's headers (ENV1/ENV2, whatever the environments are called).
    assert_eq!(lines[0], "COMPONENT PARAM    ENV1 ENV2");
    assert_eq!(lines[2], "api       replicas 1    3");
    assert_eq!(lines[3], "api       debug         true");
}

#[test]
fn component_list_and_rm_remove_params_everywhere() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "a"]);
    ok(&app.root, &["generate", "namespace", "b"]);
    ok(&app.root, &["param", "set", "a", "x", "1", "--env", "prod"]);
    // ksonnet 0.13.1 prints the five columns by default.
    assert_eq!(
        ok(&app.root, &["component", "list"]),
        "COMPONENT TYPE    APIVERSION KIND NAME\n========= ====    ========== ==== ====\na         jsonnet\nb         jsonnet\n"
    );
    ok(&app.root, &["component", "rm", "a"]);
    assert!(!app.root.join("components/a.jsonnet").exists());
    assert!(!read(app.root.join("components/params.libsonnet")).contains("a: {"));
    assert!(!read(app.root.join("environments/prod/params.libsonnet")).contains("a+:"));
    assert!(ok(&app.root, &["show", "prod"]).contains("name: b"));
    assert!(fails(&app.root, &["component", "rm", "a"]).contains("unknown component 'a'"));
}

#[test]
fn import_turns_yaml_documents_into_components() {
    let app = new_app();
    write(
        app.root.join("../manifests/all.yaml"),
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n",
    );
    let out = ok(&app.root, &["import", "-f", "../manifests/all.yaml"]);
    assert!(
        out.contains("service-web") && out.contains("deployment-web"),
        "{out}"
    );
    let wide = ok(&app.root, &["component", "list", "-o", "wide"]);
    assert!(
        wide.contains("deployment-web yaml apps/v1    Deployment web"),
        "{wide}"
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "deployment-web",
            "spec.replicas",
            "4",
            "--env",
            "prod",
        ],
    );
    let prod = ok(&app.root, &["show", "prod", "-c", "deployment-web"]);
    assert!(
        prod.contains("replicas: 4") && prod.contains("ksonnet.io/component: deployment-web"),
        "{prod}"
    );
    assert!(ok(&app.root, &["show", "default", "-c", "deployment-web"]).contains("replicas: 1"));
    // Importing again gets a new, predictable name.
    assert!(ok(&app.root, &["import", "-f", "../manifests/all.yaml"]).contains("service-web-2"));
    write(app.root.join("../bad.txt"), "x");
    assert!(fails(&app.root, &["import", "-f", "../bad.txt"]).contains("cannot import"));
}

/// `prototype describe` pads each parameter block to its own widest flag, as ksonnet did.
#[test]
fn prototype_describe_pads_each_block_to_its_own_widest_flag() {
    let app = new_app();
    let out = ok(&app.root, &["prototype", "describe", "deployed-service"]);
    assert!(
        out.contains("\n  --name=<name>   Name") && out.contains("\n  --image=<image> Container"),
        "{out}"
    );
    assert!(
        out.contains("\n  --replicas=<replicas>           How many"),
        "{out}"
    );
}
