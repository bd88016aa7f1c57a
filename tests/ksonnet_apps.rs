//! Apps in the shapes ksonnet 0.11, 0.12 and 0.13 left behind — built by hand, with a
//! vendored package that uses ksonnet-lib, env main.jsonnet patches and no lib/ (a fresh
//! clone) — render every environment, identically; `kf upgrade` moves the old ones to
//! 0.3.0. And an app made the ksonnet way, from a registry in ksonnet's format.

mod support;

use std::path::Path;

use support::*;

const WEB_LIB: &str = r#"local k = import 'k.libsonnet';
{
  parts:: {
    deployment(name, image, replicas)::
      local deployment = k.apps.v1beta1.deployment;
      local container = deployment.mixin.spec.template.spec.containersType;
      local port = container.portsType;
      deployment.new(name, replicas, [container.new(name, image) + container.withPorts(port.new(80))], { app: name })
      + deployment.mixin.spec.template.spec.withVolumesMixin([deployment.mixin.spec.template.spec.volumesType.fromEmptyDir('cache')]),
    service(name)::
      local service = k.core.v1.service;
      service.new(name, { app: name }, [service.mixin.spec.portsType.new(80, 80)]),
  },
}
"#;

const WEB_COMPONENT: &str = r#"local env = std.extVar("__ksonnet/environments");
local params = std.extVar("__ksonnet/params").components.web;
local web = import "incubator/web/web.libsonnet";
local k = import "k.libsonnet";
k.core.v1.list.new([web.parts.deployment(params.name, params.image, params.replicas), web.parts.service(params.name)])
"#;

const PARAMS: &str = "{\n  global: {},\n  components: {\n    web: {\n      image: \"nginx:1.15\",\n      name: \"web\",\n      replicas: 1,\n    },\n    settings: {\n      data: { mode: \"fast\" },\n    },\n  },\n}\n";

fn common(root: &Path, vendor_dir: &str) {
    write(root.join("components/params.libsonnet"), PARAMS);
    write(root.join("components/web.jsonnet"), WEB_COMPONENT);
    write(
        root.join("components/settings.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: slow\n",
    );
    write(
        root.join(format!("vendor/incubator/{vendor_dir}/web.libsonnet")),
        WEB_LIB,
    );
    write(
        root.join(format!("vendor/incubator/{vendor_dir}/parts.yaml")),
        "{\n  \"name\": \"web\",\n  \"apiVersion\": \"0.0.1\",\n  \"kind\": \"ksonnet.io/parts\",\n  \"description\": \"web\"\n}\n",
    );
    write(
        root.join("environments/base.libsonnet"),
        "local components = std.extVar(\"__ksonnet/components\");\ncomponents + {\n}\n",
    );
    for env in ["dev", "prod"] {
        let patch = if env == "prod" {
            "  settings+: { metadata+: { labels+: { tier: 'prod' } } },\n"
        } else {
            ""
        };
        write(
            root.join(format!("environments/{env}/main.jsonnet")),
            &format!("local base = import \"../base.libsonnet\";\nbase + {{\n{patch}}}\n"),
        );
    }
}

fn ksonnet_013_params(root: &Path) {
    for env in ["dev", "prod"] {
        let overrides = if env == "prod" {
            "    web+: { replicas: 3 },\n"
        } else {
            ""
        };
        write(
            root.join(format!("environments/{env}/params.libsonnet")),
            &format!(
                "local params = std.extVar(\"__ksonnet/params\");\nlocal globals = import \"globals.libsonnet\";\nlocal envParams = params + {{\n  components+: {{\n{overrides}  }},\n}};\n\n{{\n  components: {{\n    [x]: envParams.components[x] + globals\n    for x in std.objectFields(envParams.components)\n  }},\n}}\n"
            ),
        );
        write(
            root.join(format!("environments/{env}/globals.libsonnet")),
            "{\n}\n",
        );
    }
}

/// ksonnet 0.11: app.yaml 0.1.0, destinations in spec.json, params importing the module file.
fn app_011(root: &Path) {
    write(
        root.join("app.yaml"),
        "apiVersion: 0.1.0\nkind: ksonnet.io/app\nname: shop\nregistries:\n  incubator:\n    protocol: github\n    uri: github.com/ksonnet/parts/tree/master/incubator\nlibraries:\n  web:\n    name: web\n    registry: incubator\n    version: 0123abcd\nversion: 0.0.1\n",
    );
    common(root, "web");
    for (env, ns) in [("dev", "shop-dev"), ("prod", "shop-prod")] {
        write(
            root.join(format!("environments/{env}/spec.json")),
            &format!(
                "{{\n  \"server\": \"https://k8s.example.com\",\n  \"namespace\": \"{ns}\"\n}}\n"
            ),
        );
        let overrides = if env == "prod" {
            "    web+: { replicas: 3 },\n"
        } else {
            ""
        };
        write(
            root.join(format!("environments/{env}/params.libsonnet")),
            &format!(
                "local params = import \"../../components/params.libsonnet\";\nparams + {{\n  components+: {{\n{overrides}  }},\n}}\n"
            ),
        );
    }
}

/// ksonnet 0.12: app.yaml 0.2.0 with environments, libraries keyed by name.
fn app_012(root: &Path) {
    write(
        root.join("app.yaml"),
        "apiVersion: 0.2.0\nenvironments:\n  dev:\n    destination:\n      namespace: shop-dev\n      server: https://k8s.example.com\n    k8sVersion: v1.9.0\n    path: dev\n  prod:\n    destination:\n      namespace: shop-prod\n      server: https://k8s.example.com\n    k8sVersion: v1.9.0\n    path: prod\nkind: ksonnet.io/app\nlibraries:\n  web:\n    name: web\n    registry: incubator\n    version: 0123abcd\nname: shop\nregistries:\n  incubator:\n    protocol: github\n    uri: github.com/ksonnet/parts/tree/master/incubator\nversion: 0.0.1\n",
    );
    common(root, "web");
    ksonnet_013_params(root);
}

/// ksonnet 0.13: app.yaml 0.3.0, libraries keyed registry/name, vendor/<reg>/<pkg>@<sha>/.
fn app_013(root: &Path) {
    write(
        root.join("app.yaml"),
        "apiVersion: 0.3.0\nenvironments:\n  dev:\n    destination:\n      namespace: shop-dev\n      server: https://k8s.example.com\n    k8sVersion: v1.10.3\n    path: dev\n  prod:\n    destination:\n      namespace: shop-prod\n      server: https://k8s.example.com\n    k8sVersion: v1.10.3\n    path: prod\nkind: ksonnet.io/app\nlibraries:\n  incubator/web:\n    name: web\n    registry: incubator\n    version: 0123abcd\nname: shop\nregistries:\n  incubator:\n    protocol: github\n    uri: github.com/ksonnet/parts/tree/master/incubator\nversion: 0.0.1\n",
    );
    common(root, "web@0123abcd");
    ksonnet_013_params(root);
}

#[test]
fn ksonnet_011_012_013_apps_render_the_same_objects_without_lib() {
    let dir = tempfile::tempdir().unwrap();
    let mut renders = Vec::new();
    for (name, make) in [
        ("v011", app_011 as fn(&Path)),
        ("v012", app_012),
        ("v013", app_013),
    ] {
        let root = dir.path().join(name);
        make(&root);
        assert!(!root.join("lib").exists());
        let dev = ok(&root, &["show", "dev"]);
        let prod = ok(&root, &["show", "prod"]);
        assert!(
            dev.contains("replicas: 1") && prod.contains("replicas: 3"),
            "{name}: {prod}"
        );
        assert!(
            prod.contains("namespace: shop-prod") || !prod.contains("namespace: shop-dev"),
            "{name}"
        );
        assert!(
            prod.contains("tier: prod") && !dev.contains("tier: prod"),
            "{name}: main.jsonnet patch"
        );
        assert!(
            prod.contains("mode: fast"),
            "{name}: YAML component patched with its params: {prod}"
        );
        assert!(
            prod.contains("apiVersion: apps/v1beta1") && prod.contains("emptyDir: {}"),
            "{name}: {prod}"
        );
        renders.push((name, dev, prod));
    }
    assert_eq!(renders[0].1, renders[1].1, "0.11 and 0.12 render the same");
    assert_eq!(renders[1].1, renders[2].1, "0.12 and 0.13 render the same");
    assert_eq!(renders[0].2, renders[2].2);
    golden("ksonnet-apps/shop-prod.yaml", &renders[2].2);
}

#[test]
fn upgrade_rewrites_old_apps_to_0_3_0() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("old");
    app_011(&root);
    let before_show = ok(&root, &["show", "prod"]);
    let before = snapshot(&root);
    let dry = ok(&root, &["upgrade", "--dry-run"]);
    assert!(dry.contains("apiVersion 0.1.0 -> 0.3.0"), "{dry}");
    assert!(dry.contains("environments/prod/spec.json"), "{dry}");
    assert!(
        dry.contains("library 'web' is now keyed 'incubator/web'"),
        "{dry}"
    );
    assert_eq!(snapshot(&root), before, "a dry run writes nothing");

    ok(&root, &["upgrade"]);
    let yaml = read(root.join("app.yaml"));
    // Bare, as ksonnet writes it; the rest of the file keeps its order.
    assert!(yaml.starts_with("apiVersion: 0.3.0\n"), "{yaml}");
    assert!(yaml.contains("k8sVersion: v1.10.3"), "{yaml}");
    assert!(
        yaml.contains("incubator/web:") && yaml.contains("namespace: shop-prod"),
        "{yaml}"
    );
    assert!(!root.join("environments/prod/spec.json").exists());
    assert_eq!(ok(&root, &["show", "prod"]), before_show);
    assert!(ok(&root, &["upgrade"]).contains("nothing to do"));
}

#[test]
fn an_app_made_the_ksonnet_way_from_a_ksonnet_format_registry() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("parts");
    write(
        reg.join("registry.yaml"),
        "apiVersion: '0.1'\nkind: ksonnet.io/registry\nlibraries:\n  web:\n    path: web\n    version: master\n",
    );
    write(
        reg.join("web/parts.yaml"),
        "name: web\napiVersion: 0.0.1\nkind: ksonnet.io/parts\ndescription: A web app\n",
    );
    write(
        reg.join("web/web.libsonnet"),
        &WEB_LIB.replace("incubator", "parts"),
    );
    write(
        reg.join("web/prototypes/web-app.jsonnet"),
        "// @apiVersion 0.1\n// @name io.ksonnet.pkg.web-app\n// @description A Deployment and a Service built with ksonnet-lib.\n// @shortDescription Web app\n// @param name string Name\n// @optionalParam image string nginx:1.15 Image\n// @optionalParam replicas number 1 Replicas\nlocal k = import 'k.libsonnet';\nlocal web = import 'incubator/web/web.libsonnet';\nk.core.v1.list.new([web.parts.deployment(import 'param://name', import 'param://image', import 'param://replicas'), web.parts.service(import 'param://name')])\n",
    );
    ok(dir.path(), &["init", "shop", "--namespace", "shop-dev"]);
    let root = dir.path().join("shop");
    ok(&root, &["env", "add", "prod", "--namespace", "shop-prod"]);
    ok(&root, &["registry", "add", "incubator", "../parts"]);
    ok(&root, &["pkg", "install", "incubator/web"]);
    ok(
        &root,
        &["generate", "web-app", "store", "--image=nginx:1.27"],
    );
    ok(
        &root,
        &["param", "set", "store", "replicas", "4", "--env", "prod"],
    );
    // The package calls ksonnet-lib's k.apps.v1beta1, which a new app's v1.33.0 API has
    // no more: the error says so, and how to give the env ksonnet's API back.
    let r = kf_in(&root, &["show", "prod"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("no such field: v1beta1")
            && r.stderr
                .contains("hint: environment 'prod' is for Kubernetes v1.33.0")
            && r.stderr
                .contains("kf env set prod --api-spec version:v1.10.3"),
        "{}",
        r.stderr
    );
    ok(
        &root,
        &["env", "set", "prod", "--api-spec", "version:v1.10.3"],
    );
    let prod = ok(&root, &["show", "prod"]);
    assert!(
        prod.contains("replicas: 4") && prod.contains("image: nginx:1.27"),
        "{prod}"
    );
    golden("ksonnet-apps/store-prod.yaml", &prod);
}

/// ksonnet 0.13 dropped parentheses when it reprinted a component: `(a + b) * c` rendered
/// as `a + b * c` and `[x] + (if c then [y] else []) + [z]` lost `z`. kf renders the file
/// as written and warns, naming the line and what ksonnet rendered instead.
#[test]
fn parentheses_ksonnet_dropped_are_rendered_as_written_with_a_warning() {
    let app = new_app();
    write(
        app.root.join("components/web.jsonnet"),
        "local params = std.extVar('__ksonnet/params').components.web;\n{\n  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' },\n  data: {\n    replicas: std.toString((params.base + 1) * 3),\n    args: std.join(' ', ['a'] + (if params.debug then ['-v'] else []) + ['z']),\n    plain: std.toString((1 + 2)),\n  },\n}\n",
    );
    let params = read(app.root.join("components/params.libsonnet"));
    write(
        app.root.join("components/params.libsonnet"),
        &params.replacen(
            "components: {",
            "components: {\n    web: { base: 2, debug: true },",
            1,
        ),
    );
    let run = kf_in(&app.root, &["show", "default"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("replicas: \"9\""), "{}", run.stdout);
    assert!(run.stdout.contains("args: a -v z"), "{}", run.stdout);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 2, "{}", run.stderr);
    assert!(
        warnings[0].contains("components/web.jsonnet:5:")
            && warnings[0].contains("\"5\" instead of \"9\""),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[1].contains("components/web.jsonnet:6:")
            && warnings[1].contains("\"a -v\" instead of \"a -v z\""),
        "{}",
        warnings[1]
    );
}

/// go-jsonnet 0.11.2 (ksonnet 0.13.1's engine) answered `std.objectHas` from a field's
/// topmost definition (value.go objectHasField → findField), so a field defined with `:`
/// over a hidden `::` one counts; apps of the `$.defaultParams + overrides` shape took
/// that branch. kf renders that branch and warns once per call site, with its file:line.
#[test]
fn object_has_over_a_hidden_field_takes_ksonnets_branch_with_one_warning() {
    let app = new_app();
    write(
        app.root.join("lib/defaults.libsonnet"),
        "{\n  defaultParams:: { replicas: 1 },\n}\n",
    );
    write(
        app.root.join("components/web.jsonnet"),
        "local base = import 'defaults.libsonnet';\nlocal app = base + { defaultParams: { replicas: 3 } };\nlocal has(o) = std.objectHas(o, 'defaultParams');\n{\n  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' },\n  data: {\n    replicas: if has(app) then std.toString(app.defaultParams.replicas) else 'none',\n    again: std.toString(has(app)),\n    visible: std.toString(std.objectHas({ v: 1 }, 'v')),\n  },\n}\n",
    );
    let run = kf_in(&app.root, &["show", "default"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("replicas: \"3\""), "{}", run.stdout);
    assert!(run.stdout.contains("again: \"true\""), "{}", run.stdout);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(
        warnings[0].starts_with("warning: components/web.jsonnet:3: std.objectHas(…, 'defaultParams') answered true, as ksonnet 0.13 did"),
        "{}",
        warnings[0]
    );
    // A component whose calls agree with today's Jsonnet warns of nothing.
    let quiet = kf_in(&app.root, &["show", "default", "-c", "web", "-o", "json"]);
    assert_eq!(quiet.status, 0);
    write(
        app.root.join("components/web.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web' }, data: { a: std.toString(std.objectHas({ v:: 1 }, 'v')) } }\n",
    );
    let run = kf_in(&app.root, &["show", "default"]);
    assert!(run.stdout.contains("a: \"false\""), "{}", run.stdout);
    assert!(!run.stderr.contains("warning:"), "{}", run.stderr);
}

/// ksonnet 0.13's `param list` printed each value on one line but every non-empty object
/// or array inside it over several lines, with trailing commas (pkg/params/lister.go
/// objectValueAsString: only the value's own object is `Oneline`, only its own array is
/// forced onto one line; ksonnet-lib's printer lays out the rest as the evaluated params
/// had them).
#[test]
fn param_list_prints_nested_objects_over_several_lines_as_ksonnet_did() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "configMap", "web", "--data", r#"{"a":"b"}"#],
    );
    let params = read(app.root.join("components/params.libsonnet"));
    write(
        app.root.join("components/params.libsonnet"),
        &params.replacen(
            "web: {",
            "web: {\n      conf: { name: \"x\", image: { tag: \"1\", repo: \"r\" }, empty: {} },\n      list: [1, [2], { a: 1 }, []],",
            1,
        ),
    );
    let out = ok(&app.root, &["param", "list", "web"]);
    assert!(
        out.contains(" { empty: {}, image: {\n  repo: 'r',\n  tag: '1',\n}, name: 'x' }\n"),
        "{out}"
    );
    assert!(
        out.contains(" [1, [\n  2,\n], {\n  a: 1,\n}, []]\n"),
        "{out}"
    );
}

/// A library app.yaml declares but vendor/ lacks: ksonnet 0.13.1 exited 1 on every
/// command; kf refuses the verbs that render at once, naming the library and the command
/// that restores it, and the listing verbs go on with a warning.
#[test]
fn a_declared_library_missing_from_vendor_stops_rendering_with_the_fix() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "configMap", "web", "--data", r#"{"a":"b"}"#],
    );
    // The libraries kf vendored itself are there: nothing is said.
    let run = kf_in(&app.root, &["component", "list"]);
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
    let yaml = read(app.root.join("app.yaml"));
    write(
        app.root.join("app.yaml"),
        &format!(
            "{yaml}libraries:\n  automation:\n    name: automation\n    registry: incubator\n    version: 40d5ac3\n"
        ),
    );
    assert!(!yaml.contains("libraries:"), "{yaml}");
    // (kf diff exits 2 on an error, as diff(1): 1 means the two sides differ.)
    for (verb, code) in [
        (&["show", "default"][..], 1),
        (&["diff", "local:default", "local:default"], 2),
        (&["validate", "default"], 1),
    ] {
        let run = kf_in(&app.root, verb);
        assert_eq!(run.status, code, "{verb:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{verb:?}: {}", run.stdout);
        assert!(
            run.stderr.contains("app.yaml: library 'automation' is declared, but vendor/incubator has no copy of it; restore it with `kf pkg install incubator/automation@40d5ac3`"),
            "{verb:?}: {}",
            run.stderr
        );
    }
    for verb in [
        &["component", "list"][..],
        &["param", "list"],
        &["env", "list"],
    ] {
        let run = kf_in(&app.root, verb);
        assert_eq!(run.status, 0, "{verb:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("warning: app.yaml: library 'automation' is declared"),
            "{verb:?}: {}",
            run.stderr
        );
    }
    // Its copy back in vendor/ (ksonnet 0.13's `<name>@<version>` folder), all renders.
    write(
        app.root
            .join("vendor/incubator/automation@40d5ac3/parts.yaml"),
        "name: automation\n",
    );
    ok(&app.root, &["show", "default"]);
}

/// What real apps relied on in ksonnet's engine renders the same: unary `+` on a string,
/// importstr byte for byte, and a component's text block with the newline ksonnet's
/// reprint added (a text block in a library is as written).
#[test]
fn ksonnet_engine_behaviour_real_apps_rely_on() {
    let app = new_app();
    write(app.root.join("components/conf.txt"), "a = 1\n\n");
    write(
        app.root.join("lib/blocks.libsonnet"),
        "{ block: |||\n  lib\n||| }\n",
    );
    write(
        app.root.join("components/cfg.jsonnet"),
        "local t = { name: 'train' };\n{\n  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' },\n  data: {\n    step: + t.name,\n    conf: importstr 'conf.txt',\n    block: |||\n      x\n    |||,\n    lib: (import 'blocks.libsonnet').block,\n  },\n}\n",
    );
    let out = ok(&app.root, &["show", "default", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let data = &list["items"][0]["data"];
    assert_eq!(data["step"], "train");
    assert_eq!(data["conf"], "a = 1\n\n");
    assert_eq!(data["block"], "x\n\n");
    assert_eq!(data["lib"], "lib\n");
}

/// ksonnet passes every entry of a module's params to its components, not only those of
/// components with a file: real apps keep shared blocks (`"t2t-job"`) and read them.
#[test]
fn params_entries_without_a_component_file_reach_the_components() {
    let app = new_app();
    let params = read(app.root.join("components/params.libsonnet"));
    write(
        app.root.join("components/params.libsonnet"),
        &params.replacen(
            "components: {",
            "components: {\n    \"t2t-job\": { image: 'gcr.io/t2t:1' },\n    train: {},",
            1,
        ),
    );
    write(
        app.root.join("components/train.jsonnet"),
        "local all = std.extVar('__ksonnet/params').components;\n{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'train' }, data: { image: all['t2t-job'].image } }\n",
    );
    let prod = read(app.root.join("environments/prod/params.libsonnet"));
    assert!(prod.contains("components+: {"), "{prod}");
    write(
        app.root.join("environments/prod/params.libsonnet"),
        &prod.replacen(
            "components+: {",
            "components+: {\n    \"t2t-job\"+: { image: 'gcr.io/t2t:2' },",
            1,
        ),
    );
    assert!(ok(&app.root, &["show", "default"]).contains("image: gcr.io/t2t:1"));
    assert!(ok(&app.root, &["show", "prod"]).contains("image: gcr.io/t2t:2"));
}
