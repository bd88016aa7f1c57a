//! ksonnet apps byte for byte (issue 49), each behaviour from a minimal app, with the
//! ksonnet 0.13.1 or go-jsonnet 0.11.2 source that made it:
//! - the env's main.jsonnet adds objects under keys that name no component
//!   (ksonnet pkg/pipeline/pipeline.go:232-272 renders every visible key of its result;
//!   pkg/env/env.go:185-203 wraps an array in a v1 List);
//! - the text std's manifest functions write is go-jsonnet 0.11.2's
//!   (std/std.jsonnet:837-968 at v0.11.2), down to the bytes of a ConfigMap and the
//!   base64 of a Secret;
//! - ksonnet's pipeline kept empty objects, lists and nulls (nothing between the
//!   evaluation and ghodss/yaml drops them); only `std.prune` in the app's source did.

mod support;

use serde_json::{Value, json};
use support::*;

fn object<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in {objects:#?}"))
}

fn component_label(o: &Value) -> &str {
    o["metadata"]["labels"]["ksonnet.io/component"]
        .as_str()
        .unwrap_or_default()
}

/// An app whose component `web` is one Deployment (an object env patches can reach).
fn app_with_web() -> TempApp {
    let app = new_app();
    write(
        app.root.join("components/web.jsonnet"),
        r#"{ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" },
  spec: { replicas: 1, selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx" }] } } } }
"#,
    );
    write(
        app.root.join("components/params.libsonnet"),
        "{ global: {}, components: { web: {} } }\n",
    );
    app
}

#[test]
fn keys_of_the_env_main_that_name_no_component_are_objects_of_the_env() {
    let app = app_with_web();
    write(
        app.root.join("environments/prod/extra.jsonnet"),
        r#"{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "extra-cm" }, data: { a: "1" } }"#,
    );
    write(
        app.root.join("environments/prod/main.jsonnet"),
        r#"local base = import "base.libsonnet";
base + {
  web+: { spec+: { replicas: 3 } },
  extra: import "extra.jsonnet",
  inline: { apiVersion: "v1", kind: "Secret", metadata: { name: "inline-secret" } },
  arr: [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa1" } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa2", labels: { x: "y" } } },
  ],
  lst: { apiVersion: "v1", kind: "List", items: [{ apiVersion: "v1", kind: "Service", metadata: { name: "svc1" } }] },
  hidden:: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "never" } },
}
"#,
    );
    let objects = rendered_objects(&app, "prod");
    let web = object(&objects, "Deployment", "web");
    assert_eq!(web["spec"]["replicas"], 3);
    for (kind, name, key) in [
        ("ConfigMap", "extra-cm", "extra"),
        ("Secret", "inline-secret", "inline"),
        ("ServiceAccount", "sa1", "arr"),
        ("ServiceAccount", "sa2", "arr"),
        ("Service", "svc1", "lst"),
    ] {
        let o = object(&objects, kind, name);
        assert_eq!(component_label(o), key, "{o}");
    }
    assert_eq!(
        object(&objects, "ServiceAccount", "sa2")["metadata"]["labels"]["x"],
        "y"
    );
    assert!(!objects.iter().any(|o| o["metadata"]["name"] == "never"));
    // web's Deployment and the five the env adds: nothing twice.
    assert_eq!(objects.len(), 6, "{objects:#?}");
    // The other env, whose main.jsonnet adds nothing, renders the component alone.
    assert_eq!(rendered_objects(&app, "default").len(), 1);
    // -c selects components: the env's own objects are not among them.
    let only_web = ok(&app.root, &["show", "prod", "-c", "web", "-o", "name"]);
    assert!(!only_web.contains("extra-cm"), "{only_web}");

    // A key whose value is no object stops the render, naming the file and the key.
    write(
        app.root.join("environments/prod/main.jsonnet"),
        "local base = import \"base.libsonnet\";\nbase + { note: \"text\" }\n",
    );
    let err = fails(&app.root, &["show", "prod"]);
    assert!(
        err.contains("component 'note'")
            && err.contains("environments/prod/main.jsonnet (a key that names no component)"),
        "{err}"
    );
}

/// A ConfigMap of a dashboard and a Secret of a config, made with std's manifest
/// functions: the data is the text go-jsonnet 0.11.2 wrote (recorded with it; the
/// differential test holds the rest), so moving the app from ks to kf changes no live
/// object.
#[test]
fn manifested_text_in_config_maps_and_secrets_is_go_jsonnet_0_11_2s() {
    let app = new_app();
    write(
        app.root.join("components/dash.jsonnet"),
        r#"local dashboard = { title: "GPU ~ load", targets: [{ expr: 'rate(x{job=~"a|b"}[5m])' }], empty: [] };
local config = { server: { port: 8080, tags: ["a", "b"] }, script: "set -e\nrun\n" };
[
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "dash" },
    data: { "dash.json": std.manifestJsonEx(dashboard, "  "), "config.yaml": std.manifestYamlDoc(config) } },
  { apiVersion: "v1", kind: "Secret", metadata: { name: "conf" },
    data: { "config.yaml": std.base64(std.manifestYamlDoc(config)) } },
]
"#,
    );
    write(
        app.root.join("components/params.libsonnet"),
        "{ global: {}, components: { dash: {} } }\n",
    );
    let objects = rendered_objects(&app, "default");
    let data = &object(&objects, "ConfigMap", "dash")["data"];
    assert_eq!(
        data["dash.json"],
        "{\n  \"empty\": [\n\n  ],\n  \"targets\": [\n    {\n      \"expr\": \"rate(x{job=\\u007e\\\"a|b\\\"}[5m])\"\n    }\n  ],\n  \"title\": \"GPU \\u007e load\"\n}"
    );
    let yaml = "\"script\": |\n  set -e\n  run\n\"server\": \n  \"port\": 8080\n  \"tags\": \n  - \"a\"\n  - \"b\"";
    assert_eq!(data["config.yaml"], yaml);
    let secret = &object(&objects, "Secret", "conf")["data"]["config.yaml"];
    let decoded = std::process::Command::new("base64")
        .arg("-d")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(secret.as_str().unwrap().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&decoded.stdout), yaml);
}

/// A library written for today's Jsonnet asks for today's text with an argument
/// ksonnet's engine did not take: it gets it.
#[test]
fn a_later_jsonnets_arguments_get_todays_text() {
    let app = new_app();
    write(
        app.root.join("components/cm.jsonnet"),
        r#"{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" },
  data: { a: std.manifestYamlDoc({ k: ["x"], t: "~" }, indent_array_in_object=true, quote_keys=false) } }
"#,
    );
    write(
        app.root.join("components/params.libsonnet"),
        "{ global: {}, components: { cm: {} } }\n",
    );
    let objects = rendered_objects(&app, "default");
    assert_eq!(
        object(&objects, "ConfigMap", "cm")["data"]["a"],
        "k:\n  - \"x\"\nt: \"~\""
    );
}

#[test]
fn empty_objects_lists_and_nulls_are_kept_as_ksonnet_kept_them() {
    let app = new_app();
    write(
        app.root.join("components/pod.jsonnet"),
        r#"local volumes = [{ name: "grafana-storage", emptyDir: {} }];
[
  { apiVersion: "v1", kind: "Pod", metadata: { name: "kept", annotations: { "sidecar.istio.io/inject": null } },
    spec: { containers: [{ name: "c", image: "i", args: [] }], volumes: volumes } },
  std.prune({ apiVersion: "v1", kind: "Pod", metadata: { name: "pruned" },
    spec: { containers: [{ name: "c", image: "i", args: [] }], volumes: volumes } }),
]
"#,
    );
    write(
        app.root.join("components/params.libsonnet"),
        "{ global: {}, components: { pod: {} } }\n",
    );
    let objects = rendered_objects(&app, "default");
    let kept = object(&objects, "Pod", "kept");
    assert_eq!(
        kept["spec"]["volumes"][0],
        json!({"name": "grafana-storage", "emptyDir": {}})
    );
    assert_eq!(kept["spec"]["containers"][0]["args"], json!([]));
    assert!(kept["metadata"]["annotations"]["sidecar.istio.io/inject"].is_null());
    let pruned = object(&objects, "Pod", "pruned");
    assert_eq!(
        pruned["spec"]["volumes"][0],
        json!({"name": "grafana-storage"})
    );
}
