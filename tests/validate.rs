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
