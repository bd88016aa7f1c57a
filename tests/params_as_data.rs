//! Module params read as data (kf::params::literal) render and edit exactly as when the
//! engine evaluates them: the same app, once with its params.libsonnet as ksonnet wrote it
//! (a plain literal) and once with a `local` in front that makes kf evaluate it, gives the
//! same `kf show` and the same `param set` result.

mod support;
use support::*;

/// A ksonnet-shaped params file with the value forms real apps hold: numbers written as
/// integers, doubles and exponents, negative numbers, escapes, both quotes, nested
/// objects and arrays, comments and trailing commas.
const PARAMS: &str = r#"{
  global: {
    // User-defined global parameters; accessible to all component and environments, Ex:
    // replicas: 4,
  },
  components: {
    // Component-level parameters, defined initially from 'ks prototype use ...'
    web: {
      name: "web",
      image: 'nginx:1.27',
      replicas: 2,
      cpu: 0.5,
      memoryMi: 1.28e2,
      offset: -3,
      note: "line one\nline \"two\"\t\u00e9",
      labels: { tier: "front", 'app.kubernetes.io/part-of': "shop", },
      args: ["--port", 8080, true, null, [1, 2.50]],
    },
  },
}
"#;

const COMPONENT: &str = r#"local env = std.extVar("__ksonnet/environments");
local params = std.extVar("__ksonnet/params").components.web;
{
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: params.name, namespace: env.namespace, labels: params.labels },
  data: { params: std.manifestJsonEx(params, "  ") },
}
"#;

fn app_with(params: &str) -> TempApp {
    let app = new_app();
    write(app.root.join("components/web.jsonnet"), COMPONENT);
    write(app.root.join("components/params.libsonnet"), params);
    app
}

#[test]
fn a_plain_params_file_renders_as_the_evaluated_one_does() {
    let plain = app_with(PARAMS);
    let evaluated = app_with(&format!("local unused = 0;\n{PARAMS}"));
    for env in ["default", "prod"] {
        let a = ok(&plain.root, &["show", env]);
        let b = ok(&evaluated.root, &["show", env]);
        assert_eq!(a, b, "show {env}");
        assert!(a.contains("\"memoryMi\": 128"), "{a}");
        assert!(a.contains("\"cpu\": 0.5"), "{a}");
    }
    let a = ok(&plain.root, &["param", "list", "web", "-o", "json"]);
    let b = ok(&evaluated.root, &["param", "list", "web", "-o", "json"]);
    assert_eq!(a, b);
}

#[test]
fn param_set_and_unset_on_a_plain_file_write_what_they_do_on_an_evaluated_one() {
    let plain = app_with(PARAMS);
    let evaluated = app_with(&format!("local unused = 0;\n{PARAMS}"));
    for app in [&plain, &evaluated] {
        ok(&app.root, &["param", "set", "web", "replicas", "5"]);
        ok(&app.root, &["param", "set", "web", "labels.tier", "back"]);
        ok(&app.root, &["param", "unset", "web", "offset"]);
    }
    let after_plain = read(plain.root.join("components/params.libsonnet"));
    let after_evaluated = read(evaluated.root.join("components/params.libsonnet"));
    assert_eq!(format!("local unused = 0;\n{after_plain}"), after_evaluated);
    assert!(after_plain.contains("replicas: 5"), "{after_plain}");
    assert!(!after_plain.contains("offset"), "{after_plain}");
    assert_eq!(
        ok(&plain.root, &["show", "default"]),
        ok(&evaluated.root, &["show", "default"])
    );
}

/// A duplicate field is an error in Jsonnet; the reader must not take the last one.
#[test]
fn a_duplicate_field_is_still_an_error() {
    let app = app_with(&PARAMS.replace("replicas: 2,", "replicas: 2,\n      replicas: 3,"));
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("params.libsonnet"), "{err}");
    let err = fails(&app.root, &["param", "set", "web", "image", "nginx:1.28"]);
    assert!(err.contains("params.libsonnet"), "{err}");
    assert!(
        read(app.root.join("components/params.libsonnet")).contains("nginx:1.27"),
        "nothing written"
    );
}
