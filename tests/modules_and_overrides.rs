//! ksonnet modules (components/<module>/ with their own params), env `targets`, and
//! app.override.yaml merged field by field.

mod support;

use support::*;

/// An app with the root module and a nested module `team.serving`, both holding a
/// component named `web` (ksonnet keeps them apart by module), and both environments
/// targeting both modules (an env without targets renders the root module alone).
fn app_with_modules() -> TempApp {
    let app = app_with_untargeted_modules();
    for env in ["default", "prod"] {
        ok(
            &app.root,
            &[
                "env",
                "targets",
                env,
                "--module",
                "/",
                "--module",
                "team/serving",
            ],
        );
    }
    app
}

fn app_with_untargeted_modules() -> TempApp {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "configMap",
            "web",
            "--data",
            r#"{"where":"root"}"#,
        ],
    );
    let module = app.root.join("components/team/serving");
    write(
        module.join("params.libsonnet"),
        "{\n  global: {\n    tier: \"gold\",\n  },\n  components: {\n    web: {\n      greeting: \"hello\",\n      tier: \"bronze\",\n    },\n  },\n}\n",
    );
    write(
        module.join("web.jsonnet"),
        "local env = std.extVar(\"__ksonnet/environments\");\nlocal params = std.extVar(\"__ksonnet/params\").components.web;\n{\n  apiVersion: \"v1\",\n  kind: \"ConfigMap\",\n  metadata: { name: \"team-web\", namespace: env.namespace },\n  data: { greeting: params.greeting, tier: params.tier },\n}\n",
    );
    app
}

#[test]
fn nested_modules_render_with_their_own_params_and_full_names() {
    let app = app_with_modules();
    let list = ok(&app.root, &["component", "list"]);
    assert!(
        list.contains("team.serving.web") && list.contains("\nweb"),
        "{list}"
    );

    let out = ok(&app.root, &["show", "default"]);
    assert!(
        out.contains("ksonnet.io/component: team.serving.web"),
        "{out}"
    );
    assert!(out.contains("ksonnet.io/component: web\n"), "{out}");
    assert!(out.contains("greeting: hello"), "{out}");
    // The module's `global` wins over its component's own value.
    assert!(out.contains("tier: gold"), "{out}");
    assert!(out.contains("where: root"), "{out}");

    // Params of a module component are edited in the module's file, by local name…
    ok(
        &app.root,
        &["param", "set", "team.serving.web", "greeting", "hi"],
    );
    let module_params = read(app.root.join("components/team/serving/params.libsonnet"));
    assert!(
        module_params.contains("greeting: \"hi\""),
        "{module_params}"
    );
    assert!(!read(app.root.join("components/params.libsonnet")).contains("greeting"));
    // …and per environment by full name.
    ok(
        &app.root,
        &[
            "param",
            "set",
            "team.serving.web",
            "greeting",
            "prod-hi",
            "--env",
            "prod",
        ],
    );
    assert!(
        read(app.root.join("environments/prod/params.libsonnet"))
            .contains("\"team.serving.web\"+: {")
    );
    let prod = ok(&app.root, &["show", "prod", "-c", "team.serving.web"]);
    assert!(prod.contains("greeting: prod-hi"), "{prod}");
    assert!(
        !prod.contains("where: root"),
        "-c must pick the module component only: {prod}"
    );
    assert!(ok(&app.root, &["show", "default"]).contains("greeting: hi"));

    let listed = ok(&app.root, &["param", "list", "--env", "prod"]);
    assert!(
        listed
            .lines()
            .any(|l| l.starts_with("team.serving.web") && l.contains("'prod-hi'")),
        "{listed}"
    );

    // Removing it cleans the module file and the env file.
    ok(&app.root, &["component", "rm", "team.serving.web"]);
    assert!(
        !app.root
            .join("components/team/serving/web.jsonnet")
            .exists()
    );
    assert!(!read(app.root.join("components/team/serving/params.libsonnet")).contains("web:"));
    assert!(
        !read(app.root.join("environments/prod/params.libsonnet")).contains("team.serving.web")
    );
}

/// ksonnet 0.13 located an env's components from its targets, and with none from
/// `components/` alone (pkg/component/locator.go Locate): module components are not
/// rendered, and `-c` of one says why.
#[test]
fn an_env_without_targets_renders_the_root_module_only() {
    let app = app_with_untargeted_modules();
    let out = ok(&app.root, &["show", "default"]);
    assert!(out.contains("where: root"), "{out}");
    assert!(!out.contains("team.serving.web"), "{out}");
    assert_eq!(ok(&app.root, &["env", "targets", "default"]), "/\n");
    let err = fails(&app.root, &["show", "default", "-c", "team.serving.web"]);
    assert!(err.contains("does not target"), "{err}");
}

/// With `targets: [m]`, ksonnet gave module m's components every env params key
/// `"m.<x>"` as `components.<x>` (pkg/params/scripts/params_for_module.libsonnet), even
/// with no component `x`; root components get the keys without a dot the same way.
#[test]
fn module_scoped_env_overrides_reach_the_module_without_a_component_of_that_name() {
    let app = app_with_modules();
    let module = app.root.join("components/team/serving");
    write(
        module.join("reader.jsonnet"),
        "local p = std.extVar(\"__ksonnet/params\").components;\n{ apiVersion: \"v1\", kind: \"ConfigMap\", metadata: { name: \"reader\" }, data: { a: p.shared.a, b: std.toString(std.objectHas(p, \"other\")) } }\n",
    );
    write(
        app.root.join("components/rootreader.jsonnet"),
        "local p = std.extVar(\"__ksonnet/params\").components;\n{ apiVersion: \"v1\", kind: \"ConfigMap\", metadata: { name: \"rootreader\" }, data: { a: p.common.a } }\n",
    );
    let env_params = read(app.root.join("environments/prod/params.libsonnet"));
    write(
        app.root.join("environments/prod/params.libsonnet"),
        &env_params.replacen(
            "components+: {",
            "components +: {\n    \"team.serving.shared\"+: { a: \"env\" },\n    \"other.shared\"+: { a: \"not mine\" },\n    common+: { a: \"root env\" },",
            1,
        ),
    );
    assert_ne!(
        read(app.root.join("environments/prod/params.libsonnet")),
        env_params,
        "{env_params}"
    );
    let out = ok(&app.root, &["show", "prod", "-o", "json"]);
    let reader = out
        .find("\"reader\"")
        .map(|i| &out[i.saturating_sub(300)..])
        .unwrap_or_default();
    assert!(reader.contains("\"a\": \"env\""), "{out}");
    assert!(out.contains("\"b\": \"false\""), "{out}");
    assert!(out.contains("\"a\": \"root env\""), "{out}");
}

#[test]
fn env_targets_restrict_the_rendered_modules() {
    let app = app_with_modules();
    ok(
        &app.root,
        &["env", "targets", "prod", "--module", "team/serving"],
    );
    assert_eq!(ok(&app.root, &["env", "targets", "prod"]), "team/serving\n");
    assert!(ok(&app.root, &["env", "describe", "prod"]).contains("targets:\n- team/serving"));

    let prod = ok(&app.root, &["show", "prod"]);
    assert!(
        prod.contains("team.serving.web") && !prod.contains("where: root"),
        "{prod}"
    );
    let default = ok(&app.root, &["show", "default"]);
    assert!(default.contains("where: root") && default.contains("greeting"));

    let err = fails(&app.root, &["show", "prod", "-c", "web"]);
    assert!(
        err.contains("module '/'") && err.contains("does not target"),
        "{err}"
    );
    // A target that names no module is refused when set, and when app.yaml has it.
    let before = read(app.root.join("app.yaml"));
    let err = fails(
        &app.root,
        &["env", "targets", "prod", "--module", "team/nope"],
    );
    assert!(
        err.contains("no module 'team/nope'") && err.contains("team.serving"),
        "{err}"
    );
    assert_eq!(read(app.root.join("app.yaml")), before);
    write(
        app.root.join("app.yaml"),
        &before.replacen("- team/serving", "- team/nope", 1),
    );
    // (default's `- team/serving` comes first in app.yaml.)
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("app.yaml") && err.contains("targets 'team/nope', which is no module"),
        "{err}"
    );
    write(app.root.join("app.yaml"), &before);
    // kf keeps the targets when it rewrites app.yaml.
    ok(&app.root, &["env", "set", "prod", "--namespace", "other"]);
    assert!(read(app.root.join("app.yaml")).contains("targets:\n    - team/serving"));
}

#[test]
fn override_entries_merge_field_by_field_and_an_empty_override_file_is_removed() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    // An override that only moves prod's destination keeps app.yaml's k8sVersion and path.
    write(
        app.root.join("app.override.yaml"),
        "apiVersion: 0.3.0\nkind: ksonnet.io/app-override\nenvironments:\n  prod:\n    destination:\n      namespace: staging\n      server: https://staging.example.com\n",
    );
    let described = ok(&app.root, &["env", "describe", "prod"]);
    assert!(described.contains("staging.example.com"), "{described}");
    assert!(described.contains("k8sVersion: v1.33.0"), "{described}");
    let json = ok(&app.root, &["env", "list", "-o", "json"]);
    let envs: serde_json::Value = serde_json::from_str(&json).unwrap();
    let prod = envs["data"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["name"] == "prod"))
        .or_else(|| envs.get("prod"))
        .unwrap_or_else(|| panic!("no prod in {json}"));
    assert!(prod.to_string().contains("staging"), "{prod}");
    // The env's own files (environments/prod) still render it.
    let out = ok(&app.root, &["show", "prod"]);
    assert!(out.contains("kind: Namespace"), "{out}");

    // An override-only env removed with -o leaves no empty override file behind.
    std::fs::remove_file(app.root.join("app.override.yaml")).unwrap();
    ok(&app.root, &["env", "add", "local", "-o"]);
    assert!(app.root.join("app.override.yaml").is_file());
    ok(&app.root, &["env", "rm", "local"]);
    assert!(
        !app.root.join("app.override.yaml").exists(),
        "an override file that defines nothing is removed"
    );
    assert!(!read(app.root.join("app.yaml")).contains("local"));
}

/// Kept differences (docs/rendering.md): app.yaml is YAML 1.2, so `- n` in `targets` is
/// module `n` (ksonnet read YAML 1.1's boolean and failed on the app); and `param list
/// --env` prints each component's rows once (ksonnet repeated the rows of the targeted
/// modules once per target).
#[test]
fn yaml_1_1_words_in_targets_are_module_names_and_param_list_rows_come_once() {
    let app = app_with_untargeted_modules();
    write(
        app.root.join("components/n/params.libsonnet"),
        "{\n  global: {},\n  components: {\n    c: { v: \"from n\" },\n  },\n}\n",
    );
    write(
        app.root.join("components/n/c.jsonnet"),
        "local p = std.extVar(\"__ksonnet/params\").components.c;\n{ apiVersion: \"v1\", kind: \"ConfigMap\", metadata: { name: \"n-c\" }, data: { v: p.v } }\n",
    );
    let yaml = read(app.root.join("app.yaml"));
    let with_n = yaml.replacen(
        "    path: default\n",
        "    path: default\n    targets:\n    - n\n",
        1,
    );
    assert_ne!(yaml, with_n, "{yaml}");
    write(app.root.join("app.yaml"), &with_n);
    let out = ok(&app.root, &["show", "default"]);
    assert!(
        out.contains("v: from n") && !out.contains("where: root"),
        "{out}"
    );

    ok(
        &app.root,
        &[
            "env",
            "targets",
            "prod",
            "--module",
            "/",
            "--module",
            "team/serving",
            "--module",
            "n",
        ],
    );
    let listed = ok(&app.root, &["param", "list", "--env", "prod"]);
    for (component, param) in [
        ("team.serving.web", "greeting"),
        ("n.c", "v"),
        ("web", "data"),
    ] {
        let rows = listed
            .lines()
            .filter(|l| {
                let mut cells = l.split_whitespace();
                cells.next() == Some(component) && cells.next() == Some(param)
            })
            .count();
        assert_eq!(rows, 1, "{component}.{param} in:\n{listed}");
    }
}

/// `render_partial` with `workers` threads: (component, object) pairs and the
/// (component, message) of each error, or the error that ended the render.
type Rendered = Result<(Vec<(String, String)>, Vec<(String, String)>), String>;

fn render_with(root: &std::path::Path, env: &str, workers: usize) -> Rendered {
    let app = kf::app::App::load(root).map_err(|e| e.to_string())?;
    let options = kf::render::RenderOptions {
        workers,
        ..Default::default()
    };
    let (objects, errors) =
        kf::render::render_partial(&app, env, &options).map_err(|e| e.to_string())?;
    Ok((
        objects
            .into_iter()
            .map(|o| (o.component, serde_json::Value::Object(o.object).to_string()))
            .collect(),
        errors
            .into_iter()
            .map(|e| (e.component, e.message))
            .collect(),
    ))
}

#[test]
fn components_rendered_on_several_threads_give_what_one_thread_gives() {
    let app = app_with_modules();
    for name in ["a", "b", "c", "d", "e"] {
        ok(
            &app.root,
            &["generate", "configMap", name, "--data", r#"{"k":"v"}"#],
        );
    }
    // Two that fail, in two modules, and a YAML component patched by its params.
    write(
        app.root.join("components/broken.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: error 'root fails' } }\n",
    );
    write(
        app.root.join("components/team/serving/bad.jsonnet"),
        "local p = std.extVar('__ksonnet/params').components; p.nothere\n",
    );
    write(
        app.root.join("components/team/serving/plain.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: plain\n",
    );
    let one = render_with(&app.root, "default", 1);
    let (objects, errors) = one.clone().expect("the env renders");
    assert!(objects.len() >= 9, "{objects:?}");
    let failed: Vec<&str> = errors.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(failed, ["broken", "team.serving.bad"], "{errors:?}");
    for workers in [2, 3, 4, 0] {
        assert_eq!(
            render_with(&app.root, "default", workers),
            one,
            "{workers} workers"
        );
    }
    // `-c` keeps its order and its checks on several threads too.
    let app_handle = kf::app::App::load(&app.root).expect("app");
    for workers in [1, 3] {
        let options = kf::render::RenderOptions {
            workers,
            components: vec!["team.serving.web".into(), "a".into(), "nope".into()],
            ..Default::default()
        };
        let error = kf::render::render_partial(&app_handle, "default", &options)
            .expect_err("an unknown component");
        assert!(error.to_string().contains("nope"), "{error}");
    }

    // An env whose main.jsonnet fails ends the render with the same error.
    write(
        app.root.join("environments/default/main.jsonnet"),
        "error 'main fails'\n",
    );
    let one = render_with(&app.root, "default", 1);
    assert!(
        one.as_ref().is_err_and(|e| e.contains("main fails")),
        "{one:?}"
    );
    assert_eq!(render_with(&app.root, "default", 3), one);
}

/// `param list` without `--env` lists one module's params under the names its
/// params.libsonnet gives them, the root module's unless `--module` names another, as
/// ksonnet 0.13.1 did (pkg/actions/param_list.go reads one module; pkg/params/lister.go
/// names rows by that file's keys). A component named in full is listed from its module.
#[test]
fn param_list_lists_one_module_by_local_names_as_ksonnet_did() {
    let app = app_with_untargeted_modules();
    let json = |args: &[&str]| -> Vec<(String, String)> {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        let out: serde_json::Value = serde_json::from_str(&ok(&app.root, &all)).unwrap();
        out["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["component"].as_str().unwrap().to_string(),
                    r["param"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let root = json(&["param", "list"]);
    assert!(root.iter().all(|(c, _)| c == "web"), "{root:?}");
    assert!(root.contains(&("web".into(), "data".into())), "{root:?}");
    let module = json(&["param", "list", "--module", "team/serving"]);
    assert_eq!(
        module,
        vec![
            ("web".to_string(), "greeting".to_string()),
            ("web".to_string(), "tier".to_string())
        ]
    );
    assert_eq!(json(&["param", "list", "--module", "team.serving"]), module);
    let named = json(&["param", "list", "team.serving.web"]);
    assert!(
        named.iter().all(|(c, _)| c == "team.serving.web") && named.len() == 2,
        "{named:?}"
    );
    let err = fails(&app.root, &["param", "list", "--module", "nope"]);
    assert!(
        err.contains("no module 'nope'; the app's modules: /, team.serving"),
        "{err}"
    );
}
