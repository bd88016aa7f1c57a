//! Packages: prototypes of vendored packages, and the built-in kubeflow registry vendored
//! into an app on first use.

mod support;

use support::*;

/// A package laid out by hand as `ks pkg install` left it in ksonnet 0.13.
fn vendor_acme_web(root: &std::path::Path) {
    let pkg = root.join("vendor/acme/web@0123abc");
    write(
        pkg.join("parts.yaml"),
        "name: web\napiVersion: 0.0.1\nkind: ksonnet.io/parts\ndescription: A web server\n",
    );
    write(
        pkg.join("web.libsonnet"),
        "{\n  server(name, namespace, port):: {\n    apiVersion: 'v1',\n    kind: 'Service',\n    metadata: { name: name, namespace: namespace },\n    spec: { ports: [{ port: port }] },\n  },\n}\n",
    );
    write(
        pkg.join("prototypes/acme-web.jsonnet"),
        "// @apiVersion 0.1\n// @name io.ksonnet.pkg.acme-web\n// @description A Service for a web server.\n// @shortDescription Web Service\n// @param name string Name\n// @optionalParam port number 8080 Port\nlocal web = import 'acme/web/web.libsonnet';\nweb.server(import 'param://name', import 'env://namespace', import 'param://port')\n",
    );
}

#[test]
fn vendored_package_prototypes_generate_and_render() {
    let app = new_app();
    vendor_acme_web(&app.root);
    let list = ok(&app.root, &["prototype", "list"]);
    assert!(
        list.contains("io.ksonnet.pkg.acme-web") && list.contains("Web Service"),
        "{list}"
    );
    ok(&app.root, &["generate", "acme-web", "front", "--port=9000"]);
    let source = read(app.root.join("components/front.jsonnet"));
    assert!(
        source.contains("web.server(params.name, env.namespace, params.port)"),
        "param:// and env:// are rewritten: {source}"
    );
    // `acme/web/web.libsonnet` lives in vendor/acme/web@0123abc/: kf maps the prefix to
    // the versioned folder, as ksonnet 0.13 did.
    let prod = ok(&app.root, &["show", "prod"]);
    assert!(
        prod.contains("port: 9000") && prod.contains("namespace: ml-prod"),
        "{prod}"
    );
}
