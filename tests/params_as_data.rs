//! Params read as data (kf::params::literal) render and edit exactly as when the
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

/// The env's params.libsonnet is evaluated with the module params as
/// `__ksonnet/params`; its entries are read later, by components that see the env params
/// under the same name. An entry that reads `std.extVar` only when it is evaluated must
/// still get the module params (kf keeps the env params in an engine of their own).
#[test]
fn env_params_read_lazily_still_see_the_module_params() {
    let app = app_with(PARAMS);
    write(
        app.root.join("environments/prod/params.libsonnet"),
        r#"{
  components: {
    web: std.extVar("__ksonnet/params").components.web + { replicas: 9 },
  },
}
"#,
    );
    let out = ok(&app.root, &["show", "prod"]);
    assert!(out.contains("\"replicas\": 9"), "{out}");
    assert!(out.contains("\"image\": \"nginx:1.27\""), "{out}");
}

/// An env params entry that fails is reported with its file and line when a component
/// reads it; a render that does not read it (`-c` of another component) is not stopped.
#[test]
fn a_failing_env_params_entry_fails_the_component_that_reads_it() {
    let app = app_with(PARAMS);
    write(
        app.root.join("components/other.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } }\n",
    );
    write(
        app.root.join("environments/prod/params.libsonnet"),
        r#"local params = std.extVar("__ksonnet/params");
params + {
  components+: {
    web+: { replicas: error "replicas for prod are not decided yet" },
  },
}
"#,
    );
    let err = fails(&app.root, &["show", "prod"]);
    assert!(
        err.contains("replicas for prod are not decided yet"),
        "{err}"
    );
    assert!(
        err.contains("environments/prod/params.libsonnet:4"),
        "{err}"
    );
    let out = ok(&app.root, &["show", "prod", "-c", "other"]);
    assert!(out.contains("name: other"), "{out}");
}

/// Entries are built only when read (kf::render's module params): with `global`, a YAML
/// component patched by its entry, a block only other components read, and a nested
/// module with params of its own, every render — whole or `-c` one component — and
/// `param list` are the same whether the files are read as data or evaluated.
#[test]
fn entries_read_when_needed_render_as_evaluated_ones_do() {
    const ROOT: &str = r#"{
  global: { team: "ml", },
  components: {
    shared: { registry: "gcr.io/acme" },
    web: { name: "web", team: "web-team", replicas: 2 },
    cm: { data: { b: "2" } },
  },
}
"#;
    const NESTED: &str = r#"{
  global: {},
  components: { job: { name: "train", gpus: 4 } },
}
"#;
    const WEB: &str = r#"local p = std.extVar("__ksonnet/params").components;
{
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: p.web.name },
  data: { team: p.web.team, replicas: std.toString(p.web.replicas), image: p.shared.registry + "/web" },
}
"#;
    const JOB: &str = r#"local p = std.extVar("__ksonnet/params").components.job;
{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: p.name }, data: { gpus: std.toString(p.gpus) } }
"#;
    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: \"1\"\n";
    let make = |prefix: &str| {
        let app = new_app();
        write(app.root.join("components/web.jsonnet"), WEB);
        write(app.root.join("components/cm.yaml"), CM);
        write(
            app.root.join("components/params.libsonnet"),
            &format!("{prefix}{ROOT}"),
        );
        write(app.root.join("components/ml/job.jsonnet"), JOB);
        write(
            app.root.join("components/ml/params.libsonnet"),
            &format!("{prefix}{NESTED}"),
        );
        for env in ["default", "prod"] {
            ok(
                &app.root,
                &["env", "targets", env, "--module", "/", "--module", "ml"],
            );
        }
        app
    };
    let plain = make("");
    let evaluated = make("local unused = 0;\n");
    let mut runs: Vec<Vec<&str>> = vec![vec!["show", "default"], vec!["show", "prod"]];
    for c in ["web", "cm", "ml.job"] {
        runs.push(vec!["show", "prod", "-c", c]);
    }
    runs.push(vec!["param", "list", "-o", "json"]);
    runs.push(vec!["param", "list", "--env", "prod", "-o", "json"]);
    for args in &runs {
        assert_eq!(ok(&plain.root, args), ok(&evaluated.root, args), "{args:?}");
    }
    let web = ok(&plain.root, &["show", "prod", "-c", "web"]);
    // global wins over the entry's own key; the shared block is read by web.
    assert!(web.contains("team: ml"), "{web}");
    assert!(web.contains("image: gcr.io/acme/web"), "{web}");
    let cm = ok(&plain.root, &["show", "prod", "-c", "cm"]);
    assert!(cm.contains("a: '1'") || cm.contains("a: \"1\""), "{cm}");
    assert!(cm.contains("b: '2'") || cm.contains("b: \"2\""), "{cm}");
    let job = ok(&plain.root, &["show", "prod", "-c", "ml.job"]);
    assert!(
        job.contains("gpus: '4'") || job.contains("gpus: \"4\""),
        "{job}"
    );
}

/// A `components` that is not an object is the same error read as data or evaluated.
#[test]
fn components_that_is_not_an_object_is_an_error_either_way() {
    for prefix in ["", "local unused = 0;\n"] {
        let app = app_with(&format!("{prefix}{{ global: {{}}, components: [1] }}"));
        let err = fails(&app.root, &["show", "default"]);
        assert!(
            err.contains("components/params.libsonnet")
                && err.contains("`components` must be an object"),
            "{prefix}: {err}"
        );
    }
}
