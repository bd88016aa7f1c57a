//! `kf show`: ksonnet's render pipeline, errors that point at the user's file, goldens.

mod support;
use support::*;

fn generic_app() -> TempApp {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "deployed-service",
            "web",
            "--image=nginx:1.27",
            "--servicePort=8080",
        ],
    );
    ok(
        &app.root,
        &[
            "generate",
            "single-port-deployment",
            "worker",
            "--image=busybox:1.36",
        ],
    );
    ok(
        &app.root,
        &[
            "generate",
            "single-port-service",
            "worker-svc",
            "--targetLabelSelector={\"app\":\"worker\"}",
        ],
    );
    ok(
        &app.root,
        &[
            "generate",
            "configMap",
            "settings",
            "--data={\"MODE\":\"fast\"}",
        ],
    );
    ok(&app.root, &["generate", "namespace", "ml-team"]);
    ok(
        &app.root,
        &["param", "set", "web", "replicas", "3", "--env", "prod"],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "worker-svc",
            "serviceType",
            "NodePort",
            "--env",
            "prod",
        ],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "settings",
            "data.MODE",
            "safe",
            "--env",
            "prod",
        ],
    );
    app
}

#[test]
fn generic_prototypes_render_golden_in_two_environments() {
    let app = generic_app();
    golden("generic-default.yaml", &ok(&app.root, &["show", "default"]));
    golden(
        "generic-prod.yaml",
        &ok(&app.root, &["show", "--env", "prod"]),
    );
    golden(
        "generic-prod.json",
        &ok(&app.root, &["show", "prod", "-o", "json"]),
    );
}

#[test]
fn show_output_is_byte_identical_across_runs() {
    let app = generic_app();
    let first = ok(&app.root, &["show", "prod"]);
    for _ in 0..3 {
        assert_eq!(ok(&app.root, &["show", "prod"]), first);
    }
}

/// `-o json` is one v1 List even for one object: what `jq '.items[]'` reads.
#[test]
fn show_json_is_always_one_list() {
    let app = generic_app();
    let out = ok(&app.root, &["show", "default", "-c", "web", "-o", "json"]);
    assert!(
        out.starts_with("{\n  \"apiVersion\": \"v1\",\n  \"items\": ["),
        "{out}"
    );
    let one = tempfile::tempdir().unwrap();
    ok(one.path(), &["init", "a"]);
    let root = one.path().join("a");
    ok(&root, &["generate", "namespace", "ns"]);
    let list: serde_json::Value =
        serde_json::from_str(&ok(&root, &["show", "default", "-o", "json"])).unwrap();
    assert_eq!(list["kind"], "List");
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(list["items"][0]["kind"], "Namespace");
}

#[test]
fn env_comes_from_positional_flag_or_current_file() {
    let app = generic_app();
    let prod = ok(&app.root, &["show", "prod"]);
    assert_eq!(ok(&app.root, &["show", "--env", "prod"]), prod);
    assert!(fails(&app.root, &["show"]).contains("no environment given"));
    ok(&app.root, &["env", "current", "--set", "prod"]);
    assert_eq!(ok(&app.root, &["show"]), prod);
    assert!(fails(&app.root, &["show", "default", "--env", "prod"]).contains("given twice"));
    let err = fails(&app.root, &["show", "prd"]);
    assert!(
        err.contains("unknown environment 'prd' (did you mean 'prod'?); `kf env list` shows them"),
        "{err}"
    );
}

/// jrsonnet added a `parse imported` frame at the place of a syntax error, which the
/// line above it already names (for a component, with a span ending at `0:0`): the error
/// names that place once, and the import's own line.
#[test]
fn a_file_that_does_not_parse_is_shown_where_it_is_imported() {
    let app = new_app();
    write(app.root.join("components/broken.libsonnet"), "{ a: \n");
    write(
        app.root.join("components/web.jsonnet"),
        "local b = import 'broken.libsonnet';\nb\n",
    );
    write(app.root.join("components/bad.jsonnet"), "{ a: ");
    write(
        app.root.join("components/params.libsonnet"),
        "{ global: {}, components: { web: {}, bad: {} } }\n",
    );
    let err = fails(&app.root, &["show", "default", "-c", "web"]);
    assert!(err.contains("components/web.jsonnet:1:11"), "{err}");
    assert_eq!(
        err.matches("components/broken.libsonnet:").count(),
        1,
        "{err}"
    );
    assert!(!err.contains("parse imported"), "{err}");
    let err = fails(&app.root, &["show", "default", "-c", "bad"]);
    assert!(
        !err.contains("parse imported") && !err.contains("-0:0"),
        "{err}"
    );
    assert_eq!(err.matches("components/bad.jsonnet:").count(), 1, "{err}");
}

#[test]
fn every_object_is_labelled_and_arrays_are_flattened() {
    let app = generic_app();
    let out = ok(&app.root, &["show", "default", "-c", "web", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&list["apiVersion"], &list["kind"]),
        (&"v1".into(), &"List".into())
    );
    let docs = list["items"].as_array().unwrap();
    assert_eq!(docs.len(), 2);
    let kinds: Vec<&str> = docs.iter().map(|d| d["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["Service", "Deployment"]);
    for d in docs {
        assert_eq!(d["metadata"]["labels"]["ksonnet.io/component"], "web");
    }
}

#[test]
fn selected_components_render_alone_and_broken_ones_are_reported_by_name() {
    let app = generic_app();
    write(
        app.root.join("components/broken.jsonnet"),
        "local p = std.extVar('__ksonnet/params');\n{\n  apiVersion: 'v1',\n  kind: 'ConfigMap',\n  metadata: { name: p.components.nothere.name },\n}\n",
    );
    write(
        app.root.join("components/also-broken.jsonnet"),
        "{\n  kind: error 'boom here',\n}\n",
    );
    // -c never evaluates the broken components.
    assert!(ok(&app.root, &["show", "default", "-c", "settings"]).contains("kind: ConfigMap"));
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'broken': components/broken.jsonnet"),
        "{err}"
    );
    assert!(err.contains("component 'also-broken'"), "{err}");
    assert!(err.contains("components/also-broken.jsonnet:2"), "{err}");
    assert!(err.contains("boom here"), "{err}");
    assert!(err.contains("2 components failed"), "{err}");
    assert!(
        fails(&app.root, &["show", "default", "-c", "nosuch"])
            .contains("unknown component 'nosuch'")
    );
}

#[test]
fn non_objects_and_objects_without_kind_are_errors() {
    let app = new_app();
    write(app.root.join("components/num.jsonnet"), "42\n");
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'num'") && err.contains("rendered a number"),
        "{err}"
    );
    write(
        app.root.join("components/num.jsonnet"),
        "{ apiVersion: 'v1', metadata: { name: 'x' } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("has no string `kind`"), "{err}");
}

/// A component's list is made JSON an item at a time (src/render/worker.rs); it renders
/// what the same objects render as a `List` object, which is made JSON whole, and its
/// errors still name the item and the file.
#[test]
fn a_list_renders_item_by_item_as_a_list_object_does() {
    let app = new_app();
    let items = "[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c%d' % i }, data: { i: std.toString(i) } } for i in std.range(1, 30)]";
    write(
        app.root.join("components/many.jsonnet"),
        &format!("{items}\n"),
    );
    let as_array: Vec<String> = ["yaml", "json"]
        .iter()
        .map(|o| ok(&app.root, &["show", "default", "-o", o]))
        .collect();
    write(
        app.root.join("components/many.jsonnet"),
        &format!("{{ apiVersion: 'v1', kind: 'List', items: {items} }}\n"),
    );
    for (o, expected) in ["yaml", "json"].iter().zip(&as_array) {
        assert_eq!(
            &ok(&app.root, &["show", "default", "-o", o]),
            expected,
            "-o {o}"
        );
    }
    assert!(as_array[0].contains("name: c30"), "{}", as_array[0]);

    write(
        app.root.join("components/many.jsonnet"),
        "[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, 'text']\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("components/many.jsonnet") && err.contains("item 1 is a string"),
        "{err}"
    );
    write(
        app.root.join("components/many.jsonnet"),
        "[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } },\n error 'boom in two']\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("boom in two") && err.contains("components/many.jsonnet:2"),
        "{err}"
    );
}

/// Objects nested in objects and arrays (Tanka's shape) are made JSON one object at a
/// time too; they render what the same value renders made JSON whole (read back through
/// `std.parseJson`, which kf keeps as JSON), and a wrong leaf is named by its path.
#[test]
fn nested_objects_render_piece_by_piece_as_the_whole_value_does() {
    let app = new_app();
    let value = "{
  b: { deployment: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'b' } },
       none: null,
       more: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'b%d' % i } } for i in [2, 1]] },
  a: { list: { apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-list' } }] },
       hidden:: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hidden' } } },
  'A-upper': { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'upper' } },
}";
    write(
        app.root.join("components/nested.jsonnet"),
        &format!("{value}\n"),
    );
    let pieces: Vec<String> = ["yaml", "json"]
        .iter()
        .map(|o| ok(&app.root, &["show", "default", "-o", o]))
        .collect();
    write(
        app.root.join("components/nested.jsonnet"),
        &format!("std.parseJson(std.manifestJson({value}))\n"),
    );
    for (o, expected) in ["yaml", "json"].iter().zip(&pieces) {
        assert_eq!(
            &ok(&app.root, &["show", "default", "-o", o]),
            expected,
            "-o {o}"
        );
    }
    for name in [
        "name: b\n",
        "name: b1",
        "name: b2",
        "name: in-list",
        "name: upper",
    ] {
        assert!(pieces[0].contains(name), "{name}: {}", pieces[0]);
    }
    assert!(!pieces[0].contains("hidden"), "{}", pieces[0]);

    write(
        app.root.join("components/nested.jsonnet"),
        "{ a: { ok: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, bad: [1, 'text'] } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("components/nested.jsonnet") && err.contains("a number at .a.bad[0]"),
        "{err}"
    );
    write(
        app.root.join("components/nested.jsonnet"),
        "{ a: { ok: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } },\n b: error 'boom nested' } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("boom nested") && err.contains("components/nested.jsonnet:2"),
        "{err}"
    );
}

#[test]
fn params_syntax_error_points_at_file_and_line() {
    let app = generic_app();
    let path = app.root.join("environments/prod/params.libsonnet");
    let text = read(&path).replace("components+: {", "components+: {\n    web+: { replicas: },");
    write(&path, &text);
    let err = fails(&app.root, &["show", "prod"]);
    assert!(
        err.contains("environments/prod/params.libsonnet:5"),
        "{err}"
    );
    // Editing a broken file is refused with the same location, and the file is left alone.
    let err = fails(
        &app.root,
        &["param", "set", "web", "replicas", "2", "--env", "prod"],
    );
    assert!(err.contains("environments/prod/params.libsonnet"), "{err}");
    assert_eq!(read(&path), text);
}

#[test]
fn env_main_patches_rendered_components() {
    let app = generic_app();
    let main = app.root.join("environments/prod/main.jsonnet");
    let text = read(&main).replace(
        "base + {",
        "base + {\n  settings+: { metadata+: { annotations: { patched: 'yes' } } },",
    );
    write(&main, &text);
    let out = ok(&app.root, &["show", "prod", "-c", "settings"]);
    assert!(out.contains("patched: \"yes\""), "{out}");
    assert!(!ok(&app.root, &["show", "default", "-c", "settings"]).contains("patched"));
}

#[test]
fn ext_vars_tlas_and_jpaths_reach_components() {
    let app = new_app();
    write(
        app.root.join("../libs/shared.libsonnet"),
        "{ team: 'vision' }\n",
    );
    write(
        app.root.join("components/cm.jsonnet"),
        "function(suffix='x') {\n  apiVersion: 'v1', kind: 'ConfigMap',\n  metadata: { name: 'cm-' + suffix, labels: { team: (import 'shared.libsonnet').team } },\n  data: { tag: std.extVar('tag'), file: std.extVar('notes'), code: std.toString(std.extVar('n') + 1) },\n}\n",
    );
    write(app.root.join("notes.txt"), "hello");
    let out = ok(
        &app.root,
        &[
            "show",
            "default",
            "-V",
            "tag=v2",
            "--ext-str-file",
            "notes=notes.txt",
            "--ext-code",
            "n=41",
            "-A",
            "suffix=prod",
            "-J",
            "../libs",
        ],
    );
    for want in [
        "name: cm-prod",
        "tag: v2",
        "file: hello",
        "code: \"42\"",
        "team: vision",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    assert!(
        fails(&app.root, &["show", "default", "-V", "novalue"]).contains("takes <name>=<value>")
    );
}

/// JSONNET_PATH's folders are searched after every -J, the first of them winning; an
/// import found nowhere names its place, every folder searched and how to add one.
#[test]
fn jsonnet_path_comes_after_jpaths_and_a_missing_import_lists_the_folders() {
    let app = new_app();
    write(app.root.join("../a/x.libsonnet"), "{ from: 'a' }\n");
    write(app.root.join("../b/x.libsonnet"), "{ from: 'b' }\n");
    write(app.root.join("../b/only-b.libsonnet"), "{ b: 'yes' }\n");
    write(
        app.root.join("components/cm.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' },\n  data: { x: (import 'x.libsonnet').from, b: (import 'only-b.libsonnet').b } }\n",
    );
    let show = |args: &[&str], path: &str| {
        let run = kf_in_with_env(&app.root, args, &[("JSONNET_PATH", path)]);
        assert_eq!(run.status, 0, "{}", run.stderr);
        run.stdout
    };
    let out = show(&["show", "default", "-J", "../a"], "../b");
    assert!(out.contains("x: a") && out.contains("b: \"yes\""), "{out}");
    let out = show(&["show", "default"], "../b:../a");
    assert!(out.contains("x: b"), "{out}");
    let out = show(&["show", "default"], "../a:../b");
    assert!(out.contains("x: a"), "{out}");

    let err = fails(&app.root, &["show", "default"]);
    for want in [
        "components/cm.jsonnet:2",
        "import 'only-b.libsonnet' is in none of the folders kf searched",
        "components/",
        "vendor/",
        "lib/",
        "-J DIR or JSONNET_PATH",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
}

#[test]
fn an_imported_file_that_is_not_utf8_is_named_with_its_line_and_the_import() {
    let app = new_app();
    std::fs::write(
        app.root.join("components/latin1.libsonnet"),
        b"{\n  name: 'caf\xe9',\n}\n",
    )
    .unwrap();
    write(
        app.root.join("components/cm.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' },\n  data: import 'latin1.libsonnet' }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    for want in [
        "components/latin1.libsonnet:2: not UTF-8 text",
        "save the file as UTF-8",
        "components/cm.jsonnet:2",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    assert!(!err.contains("SourceFile"), "{err}");
}

#[test]
fn yaml_1_1_lookalike_strings_come_out_quoted() {
    let app = new_app();
    ok(&app.root, &["generate", "configMap", "tricky"]);
    for (k, v) in [
        ("a", "yes"),
        ("b", "no"),
        ("c", "on"),
        ("d", "y"),
        ("e", "~"),
        ("f", "0777"),
        ("g", "1.10"),
        ("h", "off"),
        ("i", "n"),
    ] {
        ok(
            &app.root,
            &[
                "param",
                "set",
                "tricky",
                &format!("data.{k}"),
                v,
                "--as-string",
            ],
        );
    }
    let out = ok(&app.root, &["show", "default"]);
    for v in ["yes", "no", "on", "y", "~", "0777", "1.10", "off", "n"] {
        let quoted = out.contains(&format!(": \"{v}\"")) || out.contains(&format!(": '{v}'"));
        assert!(quoted, "{v} must be quoted: {out}");
    }
    // Read back by a YAML 1.1 parser (PyYAML, which kubectl's decoder agrees with).
    let check = std::process::Command::new("python3")
        .args(["-c", "import sys, yaml\ndocs=[d for d in yaml.safe_load_all(sys.stdin) if d]\nd=docs[0]['data']\nassert d == {'a':'yes','b':'no','c':'on','d':'y','e':'~','f':'0777','g':'1.10','h':'off','i':'n'}, d\nprint('ok')"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(out.as_bytes())?;
            c.wait_with_output()
        })
        .expect("python3 with PyYAML (installed by .ci/run)");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn jsonnet_runtime_errors_name_the_users_file_and_line() {
    let app = new_app();
    write(
        app.root.join("components/bad.jsonnet"),
        "local x = 1;\n\n{ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: x.field } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("components/bad.jsonnet:3"), "{err}");
    write(
        app.root.join("components/bad.jsonnet"),
        "import 'missing.libsonnet'\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("components/bad.jsonnet") && err.contains("missing.libsonnet"),
        "{err}"
    );
}

/// An app laid out by hand exactly as ksonnet 0.13 wrote it.
#[test]
fn ksonnet_013_app_renders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root.join("app.yaml"),
        "apiVersion: 0.3.0\nenvironments:\n  default:\n    destination:\n      namespace: default\n      server: https://127.0.0.1:6443\n    k8sVersion: v1.10.3\n    path: default\nkind: ksonnet.io/app\nname: legacy\nregistries:\n  incubator:\n    protocol: github\n    uri: github.com/ksonnet/parts/tree/master/incubator\nversion: 0.0.1\n",
    );
    write(
        root.join("components/params.libsonnet"),
        "{\n  global: {\n    // User-defined global parameters; accessible to all component and environments, Ex:\n    // replicas: 4,\n  },\n  components: {\n    // Component-level parameters, defined initially from 'ks prototype use ...'\n    // Each object below should correspond to a component in the components/ directory\n    \"guestbook-ui\": {\n      containerPort: 80,\n      image: \"gcr.io/heptio-images/ks-guestbook-demo:0.1\",\n      name: \"guestbook-ui\",\n      replicas: 1,\n      servicePort: 80,\n      type: \"ClusterIP\",\n    },\n  },\n}\n",
    );
    write(
        root.join("components/guestbook-ui.jsonnet"),
        "local env = std.extVar(\"__ksonnet/environments\");\nlocal params = std.extVar(\"__ksonnet/params\").components[\"guestbook-ui\"];\n[\n   {\n      \"apiVersion\": \"v1\",\n      \"kind\": \"Service\",\n      \"metadata\": {\n         \"name\": params.name,\n         \"namespace\": env.namespace\n      },\n      \"spec\": {\n         \"ports\": [{\"port\": params.servicePort, \"targetPort\": params.containerPort}],\n         \"selector\": {\"app\": params.name},\n         \"type\": params.type\n      }\n   }\n]\n",
    );
    write(
        root.join("environments/base.libsonnet"),
        "local components = std.extVar(\"__ksonnet/components\");\ncomponents + {\n  // Insert user-specified overrides here.\n}\n",
    );
    write(
        root.join("environments/default/main.jsonnet"),
        "local base = import \"base.libsonnet\";\n// uncomment if you reference ksonnet-lib\n// local k = import \"k.libsonnet\";\n\nbase + {\n  // Insert user-specified overrides here. For example if a component is named \"nginx-deployment\", you might have something like:\\n\")\n  // \"nginx-deployment\"+: k.deployment.mixin.metadata.labels({foo: \"bar\"})\n}\n",
    );
    write(
        root.join("environments/default/params.libsonnet"),
        "local params = std.extVar(\"__ksonnet/params\");\nlocal globals = import \"globals.libsonnet\";\nlocal envParams = params + {\n  components +: {\n    // Insert component parameter overrides here. Ex:\n    // guestbook +: {\n    //   name: \"guestbook-dev\",\n    //   replicas: params.global.replicas,\n    // },\n  },\n};\n\n{\n  components: {\n    [x]: envParams.components[x] + globals\n    for x in std.objectFields(envParams.components)\n  },\n}\n",
    );
    write(root.join("environments/default/globals.libsonnet"), "{\n}");
    let out = ok(root, &["show", "default"]);
    assert!(
        out.contains("kind: Service")
            && out.contains("name: guestbook-ui")
            && out.contains("namespace: default"),
        "{out}"
    );
    assert!(out.contains("ksonnet.io/component: guestbook-ui"));
    // A kf edit of this ksonnet file stays a ksonnet file.
    ok(
        root,
        &[
            "param",
            "set",
            "guestbook-ui",
            "replicas",
            "2",
            "--env",
            "default",
        ],
    );
    assert!(
        read(root.join("environments/default/params.libsonnet"))
            .contains("\"guestbook-ui\"+: {\n      replicas: 2,\n    },\n")
    );
}

/// ksonnet 0.11 (app.yaml 0.1.0) kept each environment's destination in spec.json.
#[test]
fn ksonnet_010_app_with_spec_json_renders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root.join("app.yaml"),
        "apiVersion: 0.1.0\nkind: ksonnet.io/app\nname: old\nversion: 0.0.1\n",
    );
    write(
        root.join("environments/dev/spec.json"),
        "{\n  \"server\": \"https://1.2.3.4\",\n  \"namespace\": \"old-ns\"\n}\n",
    );
    write(
        root.join("environments/dev/main.jsonnet"),
        "local base = import \"../base.libsonnet\";\nbase + {}\n",
    );
    write(
        root.join("environments/dev/params.libsonnet"),
        "local params = import \"../../components/params.libsonnet\";\nparams + {\n  components +: {\n    ns +: { name: \"dev-ns\" },\n  },\n}\n",
    );
    write(
        root.join("environments/base.libsonnet"),
        "local components = std.extVar(\"__ksonnet/components\");\ncomponents + {}\n",
    );
    write(
        root.join("components/params.libsonnet"),
        "{\n  global: {},\n  components: {\n    ns: { name: \"ns\" },\n  },\n}\n",
    );
    write(
        root.join("components/ns.jsonnet"),
        "local env = std.extVar(\"__ksonnet/environments\");\nlocal params = std.extVar(\"__ksonnet/params\").components.ns;\n{ apiVersion: \"v1\", kind: \"Namespace\", metadata: { name: params.name, annotations: { ns: env.namespace } } }\n",
    );
    let out = ok(root, &["show", "dev"]);
    assert!(
        out.contains("name: dev-ns") && out.contains("ns: old-ns"),
        "{out}"
    );
    assert!(ok(root, &["env", "list"]).contains("https://1.2.3.4"));
}

/// jrsonnet reports a missing field with no span; kf finds the access in the file.
#[test]
fn misspelt_param_points_at_file_line_and_column() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    let path = app.root.join("components/web.jsonnet");
    let source = std::fs::read_to_string(&path).unwrap();
    let source = source.replace("params.image,", "params.imagee,");
    write(&path, &source);
    let (line, text) = source
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("params.imagee"))
        .expect("the prototype reads params.image");
    let column = text.find("imagee").unwrap() + 1;
    let err = fails(&app.root, &["show", "default"]);
    let at = format!(
        "components/web.jsonnet:{}:{column}: no such field: imagee",
        line + 1
    );
    assert!(err.contains(&at), "want {at} in:\n{err}");
    assert!(err.contains("similar name present: image"), "{err}");
}

/// app.yaml's `jpath` folders are searched by every verb (after the app's, before -J);
/// one that leaves the app's repository, or is absolute, is refused when the app is read,
/// naming app.yaml and the line.
#[test]
fn app_yaml_jpath_folders_are_searched_and_stay_inside_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let (_, app) = app_in_repository(dir.path());
    let yaml = read(app.join("app.yaml"));
    write(
        app.join("app.yaml"),
        &format!("{yaml}jpath:\n- ../libs/team\n"),
    );
    write(
        app.join("components/cm.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { team: (import 'team.libsonnet').team } } }\n",
    );
    let out = ok(&app, &["show", "default"]);
    assert!(out.contains("team: vision"), "{out}");

    write(dir.path().join("elsewhere/x.libsonnet"), "{}\n");
    write(
        app.join("app.yaml"),
        &format!("{yaml}jpath:\n- ../../elsewhere\n"),
    );
    let err = fails(&app, &["show", "default"]);
    for want in [
        "app.yaml",
        "jpath entry '../../elsewhere'",
        "line",
        "inside the app's repository",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
    write(app.join("app.yaml"), &format!("{yaml}jpath:\n- /etc\n"));
    let err = fails(&app, &["show", "default"]);
    assert!(err.contains("not a relative path"), "{err}");
}

/// A Tanka-style `lib/k.libsonnet` comes before the ksonnet-lib kf generates: the import
/// reads it, and kf says, once, which file it hides.
#[test]
fn a_k_libsonnet_that_hides_kfs_generated_one_is_named_once() {
    let app = new_app();
    write(app.root.join("lib/k.libsonnet"), "{ tanka: 'yes' }\n");
    write(
        app.root.join("components/a.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: (import 'k.libsonnet').tanka } }\n",
    );
    write(
        app.root.join("components/b.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { k: (import 'k.libsonnet').tanka } }\n",
    );
    let run = kf_in(&app.root, &["show", "default"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("k: \"yes\""), "{}", run.stdout);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("import 'k.libsonnet' reads lib/k.libsonnet, which hides"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].contains("k.libsonnet further along"),
        "{}",
        warnings[0]
    );
    // Without the Tanka-style file, the import reads kf's own, and nothing is said.
    std::fs::remove_file(app.root.join("lib/k.libsonnet")).unwrap();
    write(
        app.root.join("components/a.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: std.toString(std.objectHasAll(import 'k.libsonnet', 'core')) } }\n",
    );
    std::fs::remove_file(app.root.join("components/b.jsonnet")).unwrap();
    let run = kf_in(&app.root, &["show", "default"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("k: \"true\""), "{}", run.stdout);
    assert!(!run.stderr.contains("hides"), "{}", run.stderr);
}
