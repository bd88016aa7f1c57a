//! ksonnet modules (components/<module>/ with their own params), env `targets`, and
//! app.override.yaml merged field by field.

mod support;

use support::*;

/// An app with the root module and a nested module `team.serving`, both holding a
/// component named `web` (ksonnet keeps them apart by module).
fn app_with_modules() -> TempApp {
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

#[test]
fn env_targets_restrict_the_rendered_modules() {
    let app = app_with_modules();
    let yaml = read(app.root.join("app.yaml"));
    let with_targets = yaml.replacen(
        "    path: prod\n",
        "    path: prod\n    targets:\n    - team/serving\n",
        1,
    );
    assert_ne!(yaml, with_targets, "app.yaml layout changed: {yaml}");
    write(app.root.join("app.yaml"), &with_targets);

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
