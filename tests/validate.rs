//! `kf validate`: offline checks of rendered objects.

mod support;

use support::*;

#[test]
fn validate_passes_good_objects_and_names_bad_fields() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    let out = ok(&app.root, &["validate", "--env", "prod"]);
    assert!(
        out.contains("2 objects in environment 'prod' are valid"),
        "{out}"
    );

    // A misspelt field in a built-in kind is an error naming the field and component.
    write(
        app.root.join("components/typo.jsonnet"),
        "{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 't' },\n  spec: { replica: 2, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } }\n",
    );
    let err = fails(&app.root, &["validate", "prod"]);
    assert!(
        err.contains("Deployment/t (component typo)") && err.contains(".spec.replica"),
        "{err}"
    );
    assert!(err.contains("1 of 3 objects"), "{err}");
    std::fs::remove_file(app.root.join("components/typo.jsonnet")).unwrap();

    // A custom resource is checked against a CRD the app itself renders.
    write(
        app.root.join("components/widget-crd.json"),
        r#"{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
                     "versions": [{"name": "v1", "served": true, "storage": true,
                        "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                            "metadata": {"type": "object"},
                            "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]}}"#,
    );
    write(
        app.root.join("components/widget.jsonnet"),
        "{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'big' } }\n",
    );
    let err = fails(&app.root, &["validate", "prod"]);
    assert!(
        err.contains("Widget/w (component widget)") && err.contains("/spec/size"),
        "{err}"
    );
    write(
        app.root.join("components/widget.jsonnet"),
        "{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } }\n",
    );
    ok(&app.root, &["validate", "prod"]);

    // A kind nobody describes is a warning, not a silent pass.
    write(
        app.root.join("components/gadget.jsonnet"),
        "{ apiVersion: 'other.example.com/v1', kind: 'Gadget', metadata: { name: 'g' } }\n",
    );
    let run = kf_in(&app.root, &["validate", "prod"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("warning: Gadget/g") && run.stderr.contains("not checked"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("(1 not checked: no schema)"),
        "{}",
        run.stdout
    );
}

/// What the API server rejects even when every field is known: each finding names the
/// object (kind, name, namespace) and the field path.
#[test]
fn validate_catches_what_the_api_server_rejects() {
    let app = new_app();
    write(
        app.root.join("components/bad.jsonnet"),
        "{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'Bad_Name', namespace: 'ml' },\n  spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } },\n    spec: { containers: [\n      { name: 'c', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '2 cores', 'nvidia.com/gpu': 0.5, memory: '1Gi' } } },\n      { name: 'c', image: 'i', ports: [{ containerPort: 80 }] } ] } } } }\n",
    );
    let err = fails(&app.root, &["validate", "prod"]);
    let pod = "spec.template.spec.containers";
    for want in [
        "Deployment/Bad_Name -n ml (component bad)",
        "metadata.name: 'Bad_Name' is not a valid Kubernetes name",
        "spec.selector.matchLabels.app: 'x' does not match spec.template.metadata.labels.app ('y')",
        &format!("{pod}[0].resources.limits.cpu: '2 cores' is not a Kubernetes quantity"),
        &format!("{pod}[0].resources.limits[\"nvidia.com/gpu\"]: '0.5'"),
        &format!("{pod}[1].name: duplicate container name 'c'"),
        &format!("{pod}[1].ports[0].containerPort: duplicate port 80/TCP"),
    ] {
        assert!(err.contains(want), "want {want:?} in:\n{err}");
    }
    assert!(!err.contains("memory"), "1Gi is a valid quantity:\n{err}");

    // Fixed, it passes: the rules do not flag good objects.
    write(
        app.root.join("components/bad.jsonnet"),
        "{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'good-name', namespace: 'ml' },\n  spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x', tier: 'web' } },\n    spec: { containers: [\n      { name: 'a', image: 'i', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1.5', 'nvidia.com/gpu': 1, memory: '1Gi' }, requests: { cpu: '500m' } } },\n      { name: 'b', image: 'i', ports: [{ containerPort: 80, protocol: 'UDP' }] } ] } } } }\n",
    );
    ok(&app.root, &["validate", "prod"]);
}

#[test]
fn generate_refuses_names_kubernetes_rejects() {
    let app = new_app();
    let err = fails(
        &app.root,
        &["generate", "deployed-service", "Bad_Name", "--image=nginx"],
    );
    assert!(
        err.contains("component name: 'Bad_Name' is not a valid Kubernetes name")
            && err.contains("'bad-name'"),
        "{err}"
    );
    let err = fails(
        &app.root,
        &[
            "generate",
            "deployed-service",
            "web",
            "--name=Web",
            "--image=nginx",
        ],
    );
    assert!(err.contains("--name: 'Web'"), "{err}");
    assert!(!app.root.join("components/Bad_Name.jsonnet").exists());
    assert!(!app.root.join("components/web.jsonnet").exists());
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
}

#[test]
fn validate_refuses_apis_the_envs_kubernetes_no_longer_serves() {
    // A ksonnet-era component: fine for its v1.10 cluster, refused for a v1.33 one, with
    // what to use instead (the deprecated-API migration guide's removals).
    let app = new_app();
    write(
        app.root.join("components/legacy.jsonnet"),
        "{ apiVersion: 'extensions/v1beta1', kind: 'Deployment', metadata: { name: 'web' },\n  spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } } }\n",
    );
    ok(
        &app.root,
        &["env", "add", "legacy", "--api-spec", "version:v1.10.3"],
    );
    // kf init's environments are at a current Kubernetes.
    let err = fails(&app.root, &["validate", "default"]);
    assert!(
        err.contains("Deployment/web (component legacy): Kubernetes v1.33.0 (the environment's k8sVersion) does not serve extensions/v1beta1 Deployment: removed in 1.16; use apps/v1"),
        "{err}"
    );
    let run = kf_in(&app.root, &["validate", "legacy"]);
    assert_eq!(run.status, 0, "v1.10.3 serves it: {}", run.stderr);
}

/// Moving an env to today's API (`kf env set --api-spec version:v1.33.0`) and validating
/// reports everything the move breaks at once: each component whose ksonnet-lib calls
/// the new library lacks (file:line, with the way back), and each object of the others
/// in an API the new version no longer serves; the objects that still render are checked.
#[test]
fn validate_reports_everything_a_move_to_todays_api_breaks() {
    let app = new_app();
    ok(
        &app.root,
        &["env", "add", "legacy", "--api-spec", "version:v1.10.3"],
    );
    write(
        app.root.join("components/old.jsonnet"),
        "local k = import 'k.libsonnet';\nlocal d = k.extensions.v1beta1.deployment;\nd.new('old', 1, [d.mixin.spec.template.spec.containersType.new('old', 'nginx')], { app: 'old' })\n",
    );
    write(
        app.root.join("components/plain.jsonnet"),
        "{ apiVersion: 'apps/v1beta2', kind: 'Deployment', metadata: { name: 'plain' },\n  spec: { selector: { matchLabels: { app: 'p' } }, template: { metadata: { labels: { app: 'p' } }, spec: { containers: [{ name: 'p', image: 'nginx' }] } } } }\n",
    );
    write(
        app.root.join("components/settings.jsonnet"),
        "local k = import 'k.libsonnet';\nk.core.v1.configMap.new('settings', { a: 'b' })\n",
    );
    let before = kf_in(&app.root, &["validate", "legacy"]);
    assert_eq!(before.status, 0, "{}", before.stderr);

    ok(
        &app.root,
        &["env", "set", "legacy", "--api-spec", "version:v1.33.0"],
    );
    let err = fails(&app.root, &["validate", "legacy"]);
    assert!(
        err.contains("error: component old: components/old.jsonnet:2:")
            && err.contains("no such field: extensions")
            && err.contains("kf env set legacy --api-spec version:v1.10.3"),
        "{err}"
    );
    assert!(
        err.contains("Deployment/plain (component plain): Kubernetes v1.33.0 (the environment's k8sVersion) does not serve apps/v1beta2 Deployment"),
        "{err}"
    );
    assert!(
        err.contains(
            "1 component of environment 'legacy' failed to render; 1 of 2 objects in environment 'legacy' are invalid"
        ),
        "{err}"
    );
    // The render verbs still stop at the first broken component.
    let show = fails(&app.root, &["show", "legacy"]);
    assert!(show.contains("component 'old'"), "{show}");
}

/// Kueue's own objects (ClusterQueue, LocalQueue, ResourceFlavor, …) are checked against
/// the Kueue v0.19 CRDs kf carries in schemas/crds, in both served versions.
#[test]
fn validate_checks_kueue_objects_against_kueues_crds() {
    let app = new_app();
    write(
        app.root.join("components/queues.yaml"),
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: default-flavor\n---\n\
         apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: cluster-queue\nspec:\n  namespaceSelector: {}\n  resourceGroups:\n  - coveredResources: [cpu]\n    flavors:\n    - name: default-flavor\n      resources:\n      - name: cpu\n        nominalQuota: 9\n---\n\
         apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata:\n  name: team-a\nspec:\n  clusterQueue: cluster-queue\n",
    );
    let out = ok(&app.root, &["validate", "prod"]);
    assert!(
        out.contains("are valid") && !out.contains("not checked"),
        "{out}"
    );

    write(
        app.root.join("components/queues.yaml"),
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: team-a\nspec:\n  clusterQeue: cluster-queue\n",
    );
    let err = fails(&app.root, &["validate", "prod"]);
    assert!(
        err.contains("LocalQueue/team-a (component queues)") && err.contains("clusterQeue"),
        "{err}"
    );
}
