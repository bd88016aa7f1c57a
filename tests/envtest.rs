//! kf's cluster verbs against a real kube-apiserver (v1.20.2, with its controller manager),
//! which `tests/envtest/envtest` builds and starts: what no emulator shows — managedFields,
//! RBAC, structural CRD schemas, finalizers, the server's own defaulting.
//!
//! ```sh
//! bash tests/envtest/envtest up /tmp/kf-envtest
//! KF_ENVTEST_KUBECONFIG=/tmp/kf-envtest/kubeconfig cargo test --test envtest -- --include-ignored
//! bash tests/envtest/envtest stop /tmp/kf-envtest
//! ```
//!
//! Every test is `#[ignore]`d, so a plain `cargo test` lists each as ignored (with the
//! reason); run with `--include-ignored` but without the server, each fails. `.ci/run`
//! starts the server and runs them every time. Each test works in a namespace of its own.

mod support;

use serde_json::json;
use support::cluster::TestCluster;
use support::*;

const NEEDS: &str = "needs a real API server: bash tests/envtest/envtest up DIR, then KF_ENVTEST_KUBECONFIG=DIR/kubeconfig cargo test --test envtest -- --include-ignored";

/// How a test holds the server: shared, or alone.
enum Guard {
    Shared(#[allow(dead_code)] std::sync::RwLockReadGuard<'static, ()>),
    Alone(#[allow(dead_code)] std::sync::RwLockWriteGuard<'static, ()>),
}

impl From<std::sync::RwLockReadGuard<'static, ()>> for Guard {
    fn from(g: std::sync::RwLockReadGuard<'static, ()>) -> Guard {
        Guard::Shared(g)
    }
}

/// The server, a fresh namespace on it, and an app whose `default` env targets both.
struct Env {
    cluster: TestCluster,
    app: TempApp,
    kubeconfig: String,
    _guard: Guard,
}

/// Tests share the server: most run side by side (a read guard each); the one that
/// installs and removes every registry CRD runs alone (the write guard), since a CRD being
/// removed makes the server's discovery answer 404 for its group for a while.
static SERVER: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn env() -> Env {
    env_with(SERVER.read().unwrap_or_else(|e| e.into_inner()).into())
}

fn env_with(guard: Guard) -> Env {
    let cluster = TestCluster::envtest().unwrap_or_else(|| panic!("{NEEDS}"));
    let app = new_app();
    point_default_env(&app.root, &cluster.url(), &cluster.namespace);
    let kubeconfig = cluster.kubeconfig(&app.root).to_string_lossy().into_owned();
    Env {
        cluster,
        app,
        kubeconfig,
        _guard: guard,
    }
}

impl Env {
    fn ns(&self) -> &str {
        &self.cluster.namespace
    }

    fn kf(&self, verb: &str, extra: &[&str]) -> Run {
        let mut args = vec![verb, "--env", "default", "--kubeconfig", &self.kubeconfig];
        args.extend_from_slice(extra);
        kf_in(&self.app.root, &args)
    }

    fn generic_app(&self) {
        generate_settings_and_web(&self.app.root, "nginx:1.27");
    }

    fn exists(&self, group: &str, plural: &str, name: &str) -> bool {
        self.cluster.get(group, plural, self.ns(), name).is_some()
    }
}

/// What [`Env::generic_app`] renders: (group, plural, name).
const GENERIC_OBJECTS: [(&str, &str, &str); 3] = [
    ("", "configmaps", "settings"),
    ("", "services", "web"),
    ("apps", "deployments", "web"),
];

/// Object lines (`kind/name -n ns <word>`) ending with `word`; the summary line has no `/`.
fn count(out: &str, word: &str) -> usize {
    out.lines()
        .filter(|l| l.contains('/') && l.ends_with(word))
        .count()
}

/// The daily loop on a real server: apply creates every object with kf's field manager,
/// a second apply changes nothing, diff agrees (exit 0), a param change is one
/// `configured` object that diff shows first (exit 1), and delete removes all.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn apply_reapply_diff_and_delete_a_generic_app() {
    let e = env();
    e.generic_app();
    let first = e.kf("apply", &[]);
    assert_eq!(first.status, 0, "{}\n{}", first.stdout, first.stderr);
    assert_eq!(count(&first.stdout, "created"), 3, "{}", first.stdout);
    // `kf init` records v1.33.0; the server is 1.20: said once.
    assert_eq!(
        first.stderr.matches("but the cluster runs v1.20.2").count(),
        1,
        "{}",
        first.stderr
    );
    let cm = e.cluster.get("", "configmaps", e.ns(), "settings").unwrap();
    let managers: Vec<&str> = cm["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["manager"].as_str().unwrap())
        .collect();
    assert_eq!(managers, ["kf-app-default"]);
    // The Service the generic prototype renders is accepted as server-side apply on 1.20
    // wants it (protocol written out).
    let svc = e.cluster.get("", "services", e.ns(), "web").unwrap();
    assert_eq!(svc["spec"]["ports"][0]["protocol"], "TCP");

    let again = e.kf("apply", &[]);
    assert_eq!(again.status, 0, "{}", again.stderr);
    assert_eq!(count(&again.stdout, "unchanged"), 3, "{}", again.stdout);
    let diff = e.kf("diff", &[]);
    assert_eq!(diff.status, 0, "{}\n{}", diff.stdout, diff.stderr);

    ok(
        &e.app.root,
        &["param", "set", "web", "replicas", "3", "--env", "default"],
    );
    let diff = e.kf("diff", &[]);
    assert_eq!(diff.status, 1, "{}\n{}", diff.stdout, diff.stderr);
    assert!(diff.stdout.contains("replicas: 3"), "{}", diff.stdout);
    let third = e.kf("apply", &[]);
    assert_eq!(third.status, 0, "{}", third.stderr);
    assert_eq!(count(&third.stdout, "configured"), 1, "{}", third.stdout);
    let deployment = e.cluster.get("apps", "deployments", e.ns(), "web").unwrap();
    assert_eq!(deployment["spec"]["replicas"], 3);

    let delete = e.kf("delete", &[]);
    assert_eq!(delete.status, 0, "{}", delete.stderr);
    for (group, plural, name) in GENERIC_OBJECTS {
        // Foreground deletion: gone, or going (the garbage collector finishes it).
        assert!(
            e.cluster.gone(group, plural, e.ns(), name),
            "{plural}/{name}"
        );
    }
}

/// A server dry run deletes nothing. A DELETE with a body takes its options from the
/// body alone: kf sent `dryRun` in the query beside a body, and a real server deleted the
/// Deployments a `kf delete --dry-run=server` or `kf apply --prune --dry-run=server`
/// named (foreground propagation: a deletionTimestamp, then gone). kf's test server
/// honoured the query, so only a real one showed it.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_server_dry_run_of_delete_and_prune_deletes_nothing() {
    let e = env();
    e.generic_app();
    assert_eq!(e.kf("apply", &[]).status, 0);
    let untouched = |when: &str| {
        for (group, plural, name) in GENERIC_OBJECTS {
            let live = e.cluster.get(group, plural, e.ns(), name);
            assert!(
                live.as_ref()
                    .is_some_and(|o| o["metadata"]["deletionTimestamp"].is_null()),
                "{when}: {plural}/{name}: {live:?}"
            );
        }
    };
    let delete = e.kf("delete", &["--dry-run=server"]);
    assert_eq!(delete.status, 0, "{}", delete.stderr);
    assert_eq!(
        count(&delete.stdout, "would delete (server dry run)"),
        4,
        "three objects and the ApplySet parent: {}",
        delete.stdout
    );
    untouched("after kf delete --dry-run=server");

    ok(&e.app.root, &["component", "rm", "web"]);
    let prune = e.kf("apply", &["--prune", "--dry-run=server"]);
    assert_eq!(prune.status, 0, "{}", prune.stderr);
    assert_eq!(
        count(&prune.stdout, "would be pruned (server dry run)"),
        2,
        "{}",
        prune.stdout
    );
    untouched("after kf apply --prune --dry-run=server");
    // And the real prune still finds both.
    let real = e.kf("apply", &["--prune"]);
    assert_eq!(count(&real.stdout, "pruned"), 2, "{}", real.stdout);
}

/// Another tool's object under a rendered name, with its own field manager and values:
/// kf's apply is a 409 conflict, not retried, that names `--force-conflicts`; with it,
/// kf takes the fields over.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_conflict_with_another_manager_fails_until_forced() {
    let e = env();
    e.generic_app();
    e.cluster.put(
        "",
        "configmaps",
        e.ns(),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "settings", "namespace": e.ns()}, "data": {"mode": "slow"}}),
        "kubectl",
    );
    let run = e.kf("apply", &[]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(run.stderr.contains("configmap/settings"), "{}", run.stderr);
    assert!(run.stderr.contains("--force-conflicts"), "{}", run.stderr);
    let cm = e.cluster.get("", "configmaps", e.ns(), "settings").unwrap();
    assert_eq!(cm["data"]["mode"], "slow");
    let run = e.kf("apply", &["--force-conflicts"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let cm = e.cluster.get("", "configmaps", e.ns(), "settings").unwrap();
    assert_eq!(cm["data"]["mode"], "fast");
}

/// Prune on a real server deletes what kf applied and no longer renders — and never an
/// object that merely carries kf's labels (copied by hand, no kf field manager) nor one
/// of a second environment in the same namespace.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn prune_spares_copied_labels_and_another_env_in_the_namespace() {
    let e = env();
    e.generic_app();
    assert_eq!(e.kf("apply", &[]).status, 0);
    let cm = e.cluster.get("", "configmaps", e.ns(), "settings").unwrap();
    let mut labels = cm["metadata"]["labels"].clone();
    labels
        .as_object_mut()
        .unwrap()
        .remove("applyset.kubernetes.io/part-of");
    e.cluster.put(
        "",
        "configmaps",
        e.ns(),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "impostor", "namespace": e.ns(), "labels": labels}}),
        "kubectl",
    );
    // A second env of the same app in the same namespace, with one object of its own.
    ok(
        &e.app.root,
        &[
            "env",
            "add",
            "px",
            "--server",
            &e.cluster.url(),
            "--namespace",
            e.ns(),
        ],
    );
    ok(&e.app.root, &["generate", "configMap", "px-only"]);
    let px = kf_in(
        &e.app.root,
        &[
            "apply",
            "--env",
            "px",
            "--kubeconfig",
            &e.kubeconfig,
            "-c",
            "px-only",
        ],
    );
    assert_eq!(px.status, 0, "{}", px.stderr);

    ok(&e.app.root, &["component", "rm", "settings"]);
    ok(&e.app.root, &["component", "rm", "px-only"]);
    let run = e.kf("apply", &["--prune"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("configmap/settings") && run.stdout.contains("pruned"),
        "{}",
        run.stdout
    );
    assert!(e.exists("", "configmaps", "impostor"), "{}", run.stdout);
    assert!(e.exists("", "configmaps", "px-only"), "{}", run.stdout);
}

/// A CRD with a structural schema and a custom resource of it, in one apply: the CRD
/// first, the resource once the CRD is Established.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_crd_and_its_custom_resource_apply_in_one_run() {
    let e = env();
    // CRDs are cluster-wide: a group of this test's own.
    let group = format!("{}.e2e.kf.dev", e.ns());
    write(
        e.app.root.join("components/crd.yaml"),
        &format!(
            r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.{group}
spec:
  group: {group}
  scope: Namespaced
  names: {{plural: widgets, singular: widget, kind: Widget}}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {{type: integer}}
"#
        ),
    );
    write(
        e.app.root.join("components/widget.yaml"),
        &format!("apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n"),
    );
    let run = e.kf("apply", &[]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    let w = e.cluster.get(&group, "widgets", e.ns(), "w");
    assert_eq!(w.expect("the widget")["spec"]["size"], 3);
    // Not a terminal (a CI log): the wait for the CRD is one line, said before it starts.
    assert_eq!(
        run.stderr
            .matches("waiting up to 1m for 1 new CRD to be Established")
            .count(),
        1,
        "{}",
        run.stderr
    );
}

/// A user whose Role grants everything in one namespace, and nothing cluster-wide: prune
/// lists each kind in the env's namespace when the cluster-wide list is refused, and
/// deletes what the render lost (it used to skip every kind on that 403 and prune nothing).
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_namespace_scoped_user_prunes_in_its_namespace() {
    let e = env();
    let ns = e.ns().to_string();
    e.cluster.put(
        "rbac.authorization.k8s.io",
        "roles",
        &ns,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
               "metadata": {"name": "all", "namespace": &ns},
               "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}),
        "kf-test",
    );
    e.cluster.put(
        "rbac.authorization.k8s.io",
        "rolebindings",
        &ns,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "limited-all", "namespace": &ns},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "all"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "limited"}]}),
        "kf-test",
    );
    e.generic_app();
    let limited = ["--context", "limited"];
    let run = e.kf("apply", &limited);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    ok(&e.app.root, &["component", "rm", "settings"]);
    let diff = e.kf("diff", &["--prune", "--context", "limited"]);
    assert!(
        diff.stdout.contains("settings"),
        "diff --prune shows the removal: {}\n{}",
        diff.stdout,
        diff.stderr
    );
    let run = e.kf("apply", &["--prune", "--context", "limited"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("configmap/settings") && run.stdout.contains("pruned"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!run.stderr.contains("could not check"), "{}", run.stderr);
}

/// A user who may not list Deployments anywhere: `kf diff --prune` cannot tell what apply
/// would prune, so it fails (exit 2, "the diff is incomplete") instead of exiting 0 with
/// a warning; `kf apply --prune` says which kind it could not check.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn diff_prune_that_cannot_list_a_kind_fails() {
    let e = env();
    let ns = e.ns().to_string();
    e.cluster.put(
        "rbac.authorization.k8s.io",
        "roles",
        &ns,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
               "metadata": {"name": "no-list-deployments", "namespace": &ns},
               "rules": [
                   {"apiGroups": [""], "resources": ["*"], "verbs": ["*"]},
                   {"apiGroups": ["apps"], "resources": ["deployments"],
                    "verbs": ["get", "create", "patch", "update", "delete"]}]}),
        "kf-test",
    );
    e.cluster.put(
        "rbac.authorization.k8s.io",
        "rolebindings",
        &ns,
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
               "metadata": {"name": "limited-no-list", "namespace": &ns},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "no-list-deployments"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "limited"}]}),
        "kf-test",
    );
    e.generic_app();
    assert_eq!(e.kf("apply", &[]).status, 0);
    let diff = e.kf("diff", &["--prune", "--context", "limited"]);
    assert_eq!(diff.status, 2, "{}\n{}", diff.stdout, diff.stderr);
    assert!(
        diff.stderr
            .contains("prune could not check deployment.apps")
            && diff.stderr.contains("the diff is incomplete"),
        "{}",
        diff.stderr
    );
}

/// An object kf pruned that a finalizer holds is being deleted, not gone: the next prune
/// does not list or delete it again.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn an_object_being_deleted_is_not_pruned_again() {
    let e = env();
    write(
        e.app.root.join("components/held.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [e2e.kf.dev/hold]\ndata: {a: b}\n",
    );
    ok(&e.app.root, &["generate", "configMap", "other"]);
    assert_eq!(e.kf("apply", &[]).status, 0);
    std::fs::remove_file(e.app.root.join("components/held.yaml")).unwrap();
    let first = e.kf("apply", &["--prune"]);
    assert_eq!(first.status, 0, "{}\n{}", first.stdout, first.stderr);
    assert!(first.stdout.contains("configmap/held"), "{}", first.stdout);
    let held = e
        .cluster
        .get("", "configmaps", e.ns(), "held")
        .expect("held by its finalizer");
    assert!(held["metadata"]["deletionTimestamp"].is_string());
    let second = e.kf("apply", &["--prune"]);
    assert_eq!(second.status, 0, "{}\n{}", second.stdout, second.stderr);
    assert!(
        !second.stdout.contains("configmap/held"),
        "{}",
        second.stdout
    );
    // Let it go.
    let path = format!("/api/v1/namespaces/{}/configmaps/held", e.ns());
    e.cluster.request(
        http::Method::PATCH,
        &path,
        Some(json!({"metadata": {"finalizers": null}})),
    );
}

/// The verbs' exits say what happened: `kf status` lists an object whose kind the cluster
/// does not serve (its CRD is not installed) as Missing and fails; `kf delete` of objects
/// that are all another app's deletes nothing and fails, and counts what it did delete,
/// the ApplySet parent included.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn status_and_delete_exits_and_counts_add_up() {
    let e = env();
    e.generic_app();
    write(
        e.app.root.join("components/job.yaml"),
        "apiVersion: kubeflow.org/v1\nkind: TFJob\nmetadata:\n  name: mnist\nspec: {}\n",
    );
    let status = e.kf("status", &["-c", "job"]);
    assert_eq!(status.status, 1, "{}\n{}", status.stdout, status.stderr);
    assert!(
        status.stdout.contains("tfjob/mnist") && status.stdout.contains("Missing"),
        "{}",
        status.stdout
    );
    assert!(
        status.stdout.contains("is its CRD installed?"),
        "{}",
        status.stdout
    );
    std::fs::remove_file(e.app.root.join("components/job.yaml")).unwrap();

    assert_eq!(e.kf("apply", &[]).status, 0);
    let delete = e.kf("delete", &[]);
    assert_eq!(delete.status, 0, "{}", delete.stderr);
    let lines = count(&delete.stdout, "deleted");
    assert_eq!(
        lines, 4,
        "3 objects and the ApplySet parent: {}",
        delete.stdout
    );
    assert!(
        delete.stdout.contains("4 objects deleted"),
        "{}",
        delete.stdout
    );

    // Objects another tool made under the rendered names: left alone, and said so. (Once
    // the foreground deletion of kf's is finished: the garbage collector's, which takes
    // longer on a loaded machine.)
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while e.exists("", "configmaps", "settings") {
        assert!(
            std::time::Instant::now() < deadline,
            "configmap/settings still being deleted after 90 s"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    e.cluster.put(
        "",
        "configmaps",
        e.ns(),
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "settings", "namespace": e.ns()}}),
        "kubectl",
    );
    let delete = e.kf("delete", &["-c", "settings"]);
    assert_eq!(delete.status, 1, "{}\n{}", delete.stdout, delete.stderr);
    assert!(
        delete.stderr.contains("nothing was deleted"),
        "{}",
        delete.stderr
    );
    assert!(e.exists("", "configmaps", "settings"));
}

/// An env whose namespace does not exist: one clear error before anything is sent (not a
/// 404 per object), and `--create-namespace` makes it.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_missing_namespace_is_one_error_or_created_on_request() {
    let e = env();
    e.generic_app();
    let missing = format!("{}-new", e.ns());
    ok(
        &e.app.root,
        &["env", "set", "default", "--namespace", &missing],
    );
    let run = e.kf("apply", &[]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert_eq!(
        run.stderr.matches("does not exist").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--create-namespace"), "{}", run.stderr);
    assert!(!run.stdout.contains("created"), "{}", run.stdout);
    let run = e.kf("apply", &["--create-namespace"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(&format!("namespace/{missing} created")),
        "{}",
        run.stdout
    );
    assert!(
        e.cluster
            .get("", "configmaps", &missing, "settings")
            .is_some()
    );
    e.cluster.request(
        http::Method::DELETE,
        &format!("/api/v1/namespaces/{missing}"),
        None,
    );
}

/// A misspelt field of a custom resource: a 1.20 server would drop it and say `created`.
/// kf checks the resource against its CRD — in the render, or (on a later apply) the one
/// the server has — and refuses it; `--validate=warn` applies it with a warning.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_misspelt_field_of_a_custom_resource_is_refused() {
    let e = env();
    let group = format!("{}.e2e.kf.dev", e.ns());
    write(
        e.app.root.join("components/crd.yaml"),
        &format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.{group}\nspec:\n  group: {group}\n  scope: Namespaced\n  names: {{plural: gadgets, singular: gadget, kind: Gadget}}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              cleanPodPolicy: {{type: string}}\n"
        ),
    );
    write(
        e.app.root.join("components/gadget.yaml"),
        &format!(
            "apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  cleanPodPolicyy: All\n"
        ),
    );
    let run = e.kf("apply", &[]);
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("gadget") && run.stderr.contains("cleanPodPolicyy"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--validate=warn"), "{}", run.stderr);
    assert!(e.cluster.get(&group, "gadgets", e.ns(), "g").is_none());

    // The CRD is on the server now; without it in the render, the server's copy is read.
    std::fs::remove_file(e.app.root.join("components/crd.yaml")).unwrap();
    let run = e.kf("apply", &["-c", "gadget"]);
    assert_eq!(run.status, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("cleanPodPolicyy"), "{}", run.stderr);

    // With --validate=warn kf says so and sends it; this structural schema makes 1.20's
    // server-side apply refuse it itself (a CRD that preserves unknown fields would not).
    let run = e.kf("apply", &["-c", "gadget", "--validate=warn"]);
    assert!(
        run.stderr.contains("sent anyway (--validate=warn)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("field not declared in schema"),
        "{}",
        run.stderr
    );
}

/// A second apply of unchanged objects reports every one `unchanged`, even where the
/// 1.20 server writes the apply anyway (a new resourceVersion, nothing but managedFields'
/// time changed: seen on the ambassador package's Deployment).
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_second_apply_of_the_ambassador_package_changes_nothing() {
    let e = env();
    ok(&e.app.root, &["generate", "ambassador", "amb"]);
    let first = e.kf("apply", &[]);
    assert!(
        first.stdout.contains("deployment.apps/amb") && first.stdout.contains("created"),
        "{}\n{}",
        first.stdout,
        first.stderr
    );
    let second = e.kf("apply", &[]);
    let changed: Vec<&str> = second
        .stdout
        .lines()
        .filter(|l| l.contains('/') && (l.ends_with("configured") || l.ends_with("created")))
        .collect();
    assert!(changed.is_empty(), "{}", second.stdout);
    assert!(
        second.stdout.contains("deployment.apps/amb -n") && second.stdout.contains("unchanged"),
        "{}",
        second.stdout
    );
}

/// The operators' packages re-applied unchanged: Deployments, RBAC, Services, webhook
/// configurations and a CRD all `unchanged` (a 1.20 server rewrote four webhook
/// configurations and a CRD on every apply until kf compared what changed), and no wait
/// for CRDs that were already there. Objects of kinds the server lacks (cert-manager's,
/// which the Seldon and KServe operators need) fail the same way both times.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn operator_packages_reapply_unchanged_without_waiting_for_crds() {
    let e = env();
    ok(
        &e.app.root,
        &["generate", "training-operator", "op", "--installCRDs=false"],
    );
    ok(&e.app.root, &["generate", "seldon-operator", "sel"]);
    ok(
        &e.app.root,
        &["generate", "kserve-controller", "ks", "--installCRDs=false"],
    );
    let first = e.kf("apply", &[]);
    let created = count(&first.stdout, "created");
    assert!(created >= 30, "{}\n{}", first.stdout, first.stderr);
    assert!(
        first
            .stdout
            .lines()
            .any(|l| l.starts_with("validatingwebhookconfiguration")),
        "{}",
        first.stdout
    );
    assert!(first.stderr.contains("waiting up to"), "{}", first.stderr);
    let second = e.kf("apply", &[]);
    assert_eq!(
        count(&second.stdout, "unchanged"),
        created,
        "{}",
        second.stdout
    );
    assert_eq!(count(&second.stdout, "configured"), 0, "{}", second.stdout);
    assert_eq!(second.status, first.status, "{}", second.stderr);
    assert!(
        !second.stderr.contains("waiting up to"),
        "{}",
        second.stderr
    );
    // Cluster-wide objects are left for the next test's namespace to reuse; delete them.
    let gone = e.kf("delete", &[]);
    assert!(gone.stdout.contains("objects deleted"), "{}", gone.stdout);
}

/// Parse a verb's `-o json` stdout, failing with its output when it is not JSON.
fn json_of(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", r.stdout, r.stderr))
}

/// Every cluster verb takes `-o json|yaml|name` as `kf show` does: stdout then holds the
/// report (or the names) and nothing else, warnings stay on stderr, and the exit status
/// is the text mode's.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn every_cluster_verb_speaks_json_yaml_and_name() {
    let e = env();
    e.generic_app();
    let names = e.kf("apply", &["-o", "name"]);
    assert_eq!(names.status, 0, "{}\n{}", names.stdout, names.stderr);
    let mut got: Vec<&str> = names.stdout.lines().collect();
    got.sort();
    assert_eq!(
        got,
        ["configmap/settings", "deployment.apps/web", "service/web"]
    );
    // The version-skew warning is still said, on stderr.
    assert!(names.stderr.contains("v1.20.2"), "{}", names.stderr);

    let again = e.kf("apply", &["-o", "json"]);
    assert_eq!(again.status, 0, "{}", again.stderr);
    let report = json_of(&again);
    assert_eq!(report["environment"], "default");
    assert_eq!(report["namespace"], e.ns());
    assert_eq!(report["dryRun"], "none");
    let results: Vec<&str> = report["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["unchanged"; 3], "{report:#}");

    let status = e.kf("status", &["-o", "json"]);
    assert_eq!(status.status, 0, "{}", status.stderr);
    let status = json_of(&status);
    let objects = status["objects"].as_array().unwrap();
    assert_eq!(objects.len(), 3, "{status:#}");
    assert!(
        objects
            .iter()
            .any(|o| o["name"] == "configmap/settings" && o["status"] == "Ready"),
        "{status:#}"
    );

    // The configMap leaves the render: diff --prune reports it as a prune, exit 1.
    ok(&e.app.root, &["component", "rm", "settings"]);
    let diff = e.kf("diff", &["--prune", "-o", "json"]);
    assert_eq!(diff.status, 1, "{}\n{}", diff.stdout, diff.stderr);
    let changes = json_of(&diff)["changes"].as_array().unwrap().clone();
    assert_eq!(changes.len(), 1, "{changes:#?}");
    assert_eq!(changes[0]["change"], "prune");
    assert!(
        changes[0]["name"].as_str().unwrap().contains("configmap/"),
        "{changes:#?}"
    );
    let diff_names = e.kf("diff", &["--prune", "-o", "name"]);
    assert_eq!(diff_names.status, 1);
    assert_eq!(
        diff_names.stdout.lines().count(),
        1,
        "{}",
        diff_names.stdout
    );

    let pruned = e.kf("apply", &["--prune", "-o", "yaml"]);
    assert_eq!(pruned.status, 0, "{}", pruned.stderr);
    let report: serde_json::Value = serde_saphyr::from_str(&pruned.stdout)
        .unwrap_or_else(|err| panic!("not YAML ({err}):\n{}", pruned.stdout));
    assert_eq!(
        report["pruned"][0]["name"], "configmap/settings",
        "{report:#}"
    );
    assert_eq!(report["pruned"][0]["result"], "pruned", "{report:#}");
    assert!(e.cluster.gone("", "configmaps", e.ns(), "settings"));

    let validate = e.kf("validate", &["-o", "json"]);
    assert_eq!(validate.status, 0, "{}", validate.stderr);
    let validate = json_of(&validate);
    assert_eq!(
        (validate["objects"].as_u64(), validate["invalid"].as_u64()),
        (Some(2), Some(0))
    );

    let deleted = e.kf("delete", &["-o", "json"]);
    assert_eq!(deleted.status, 0, "{}", deleted.stderr);
    let report = json_of(&deleted);
    let names: Vec<&str> = report["deleted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["result"] == "deleted")
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    // The two objects, then the ApplySet parent.
    assert_eq!(names.len(), 3, "{report:#}");
    assert!(names.contains(&"deployment.apps/web") && names.contains(&"service/web"));
    assert!(names[2].starts_with("secret/"), "{report:#}");
}

/// An object both checks reject is one invalid object (it was "2 of 1"), and `-o json`
/// lists both findings, each with the check that made it.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn validate_server_counts_an_object_once() {
    let e = env();
    std::fs::write(
        e.app.root.join("components/bad.yaml"),
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  replicas: three\n  selector: {matchLabels: {app: bad}}\n  template:\n    metadata: {labels: {app: bad}}\n    spec: {containers: [{name: c, image: nginx}]}\n",
    )
    .unwrap();
    let r = e.kf("validate", &["--server"]);
    assert_eq!(r.status, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("1 of 1 objects in environment 'default' are invalid"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("(server dry run)"), "{}", r.stderr);
    let j = e.kf("validate", &["--server", "-o", "json"]);
    assert_eq!(j.status, 1);
    let report = json_of(&j);
    assert_eq!(report["invalid"], 1, "{report:#}");
    let checks: Vec<&str> = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["check"].as_str().unwrap())
        .collect();
    assert_eq!(checks, ["offline", "server"], "{report:#}");
}

/// The prototypes of the built-in registry that render CRDs, with what makes each render
/// all of them (MXJob's CRD only comes with the v1.8-only `mxjob` scheme).
const CRD_PROTOTYPES: &[(&str, &[&str])] = &[
    ("argo", &[]),
    ("emissary-crds", &[]),
    ("jobset", &[]),
    ("kserve-controller", &[]),
    ("mpi-operator", &[]),
    ("seldon-operator", &[]),
    ("trainer-controller", &[]),
    (
        "training-operator",
        &[r#"--schemes=["tfjob","pytorchjob","xgboostjob","paddlejob","jaxjob","mxjob"]"#],
    ),
];

/// The names of the CRDs the registry packages embed (registry/kubeflow/*/crds/*.json).
fn embedded_crd_names() -> std::collections::BTreeSet<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("registry/kubeflow");
    let mut names = std::collections::BTreeSet::new();
    for pkg in std::fs::read_dir(root).unwrap().flatten() {
        for file in std::fs::read_dir(pkg.path().join("crds"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let value: serde_json::Value = serde_json::from_str(&read(file.path())).unwrap();
            let items = value.as_array().cloned().unwrap_or_else(|| vec![value]);
            for crd in items {
                names.insert(crd["metadata"]["name"].as_str().unwrap().to_string());
            }
        }
    }
    names
}

/// Deletes CRDs as the server's admin and waits (up to a minute) until they are gone.
fn remove_crds(cluster: &TestCluster, names: &std::collections::BTreeSet<String>) {
    let path = |n: &str| format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{n}");
    for name in names {
        cluster.request(http::Method::DELETE, &path(name), None);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while names
        .iter()
        .any(|n| cluster.request(http::Method::GET, &path(n), None).0 != 404)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "CRDs still there after 1m"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

struct CrdsRemoved<'a>(&'a TestCluster, &'a std::collections::BTreeSet<String>);

impl Drop for CrdsRemoved<'_> {
    fn drop(&mut self) {
        remove_crds(self.0, self.1);
    }
}

/// Every CRD the registry renders is stored by a real API server and Established, or kf
/// refuses it before sending, naming the Kubernetes version it needs; the server agrees
/// with every such refusal (it refuses the CRD itself), and a second apply leaves each
/// stored CRD unchanged. Emissary's 13 getambassador.io CRDs were refused by every server
/// (422, not structural: `ambassador_id` is `oneOf: [{type: string}, {type: array}]` with
/// no type) until emissary-crds did what Emissary's own build does (tools/src/fix-crds).
/// Only the CRDs are applied: the operators' webhooks would have no pods behind them.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn every_crd_the_registry_renders_is_stored_or_refused_for_the_version_it_needs() {
    let e = env_with(Guard::Alone(
        SERVER.write().unwrap_or_else(|e| e.into_inner()),
    ));
    for (proto, params) in CRD_PROTOTYPES {
        let name = format!("x-{proto}");
        let mut args = vec!["generate", proto, &name];
        args.extend_from_slice(params);
        ok(&e.app.root, &args);
    }
    let shown: serde_json::Value =
        serde_json::from_str(&ok(&e.app.root, &["show", "default", "-o", "json"])).unwrap();
    let crds: Vec<serde_json::Value> = shown["items"]
        .as_array()
        .expect("show -o json is a List")
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .cloned()
        .collect();
    let names: std::collections::BTreeSet<String> = crds
        .iter()
        .map(|c| c["metadata"]["name"].as_str().unwrap().to_string())
        .collect();
    let missing: Vec<_> = embedded_crd_names().difference(&names).cloned().collect();
    assert!(
        missing.is_empty(),
        "embedded CRDs no prototype rendered: {missing:?}"
    );
    // CRDs are cluster-wide: none may be left from an earlier run on this server, and
    // none is left behind by this one, however it ends.
    remove_crds(&e.cluster, &names);
    let _cleanup = CrdsRemoved(&e.cluster, &names);
    for (proto, _) in CRD_PROTOTYPES {
        std::fs::remove_file(e.app.root.join(format!("components/x-{proto}.jsonnet"))).unwrap();
    }
    write(
        e.app.root.join("components/crds.json"),
        &serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": crds}))
            .unwrap(),
    );

    // `validate --server` checks offline for the Kubernetes the server runs, not the env's
    // k8sVersion (v1.33.0 here): on 1.20, the CEL CRDs are errors before the dry run.
    let validate = e.kf("validate", &["--server", "-o", "json"]);
    let report = json_of(&validate);
    let offline_version_errors = report["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            p["check"] == "offline"
                && p["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("(the server's) cannot store this CRD"))
        })
        .count();
    assert!(offline_version_errors > 0, "{report:#}");

    let first = e.kf("apply", &["--wait"]);
    let refused: Vec<&serde_json::Value> = crds
        .iter()
        .filter(|c| {
            let name = c["metadata"]["name"].as_str().unwrap();
            first.stderr.lines().any(|l| {
                l.contains(&format!("customresourcedefinitions/{name} "))
                    || l.contains(&format!(
                        "customresourcedefinition.apiextensions.k8s.io/{name} "
                    ))
            })
        })
        .collect();
    let stored = crds.len() - refused.len();
    assert_eq!(
        count(&first.stdout, "created"),
        stored,
        "{}\n{}",
        first.stdout,
        first.stderr
    );
    assert_eq!(
        first.status,
        if refused.is_empty() { 0 } else { 1 },
        "{}",
        first.stderr
    );
    for crd in &refused {
        let name = crd["metadata"]["name"].as_str().unwrap();
        let line = first.stderr.lines().find(|l| l.contains(name)).unwrap();
        assert!(
            line.contains("this CRD needs Kubernetes 1.") && line.contains("the server runs"),
            "{name} failed for another reason than its version: {line}"
        );
        // The server refuses it too, as kf would send it (server-side apply, dry run):
        // kf's refusal only says why first.
        let (status, body) = e.cluster.apply_dry_run(
            &format!("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}"),
            (*crd).clone(),
            "e2e",
        );
        assert!(
            status >= 400,
            "{name}: kf refused what the server stores ({status})"
        );
        assert!(body["message"].is_string(), "{body}");
    }
    for crd in crds.iter().filter(|c| !refused.contains(c)) {
        let name = crd["metadata"]["name"].as_str().unwrap();
        let live = e
            .cluster
            .get(
                "apiextensions.k8s.io",
                "customresourcedefinitions",
                "",
                name,
            )
            .unwrap_or_else(|| panic!("{name} is not on the server"));
        let established = live["status"]["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["type"] == "Established" && c["status"] == "True");
        assert!(established, "{name}: {}", live["status"]);
    }
    let getambassador = names
        .iter()
        .filter(|n| n.ends_with(".getambassador.io"))
        .count();
    let getambassador_refused = refused
        .iter()
        .filter(|c| {
            c["metadata"]["name"]
                .as_str()
                .unwrap()
                .ends_with(".getambassador.io")
        })
        .count();
    assert!(
        getambassador - getambassador_refused >= 13,
        "the structural getambassador.io CRDs are stored: {}",
        first.stderr
    );

    let second = e.kf("apply", &[]);
    assert_eq!(
        count(&second.stdout, "unchanged"),
        stored,
        "{}",
        second.stdout
    );
    let gone = e.kf("delete", &[]);
    assert_eq!(gone.status, 0, "{}\n{}", gone.stdout, gone.stderr);
}

/// An object being deleted is not live (issue: `kf apply; kf delete; kf apply` reported
/// 1,505 ConfigMaps unchanged that the garbage collector removed a minute later). Held by
/// a finalizer, a deleted ConfigMap is Terminating in `kf status`, a `recreate` in
/// `kf diff`, and `kf apply` waits for it to go and creates it anew, or fails naming it
/// when its time is up. With foreground deletion and the controller-manager's garbage
/// collector, the same sequence at once leaves every object on the cluster.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn an_object_being_deleted_is_waited_for_and_created_anew() {
    let e = env();
    e.generic_app();
    write(
        e.app.root.join("components/many.jsonnet"),
        "[\n  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-%d' % i }, data: { i: '%d' % i } }\n  for i in std.range(1, 40)\n]\n",
    );
    let first = e.kf("apply", &[]);
    assert_eq!(first.status, 0, "{}", first.stderr);
    let settings = format!("/api/v1/namespaces/{}/configmaps/settings", e.ns());
    let hold = |on: bool| {
        let finalizers = if on {
            json!(["kf.dev/test-hold"])
        } else {
            json!(null)
        };
        let (code, body) = e.cluster.request(
            http::Method::PATCH,
            &settings,
            Some(json!({"metadata": {"finalizers": finalizers}})),
        );
        assert_eq!(code, 200, "{body}");
    };
    hold(true);
    let delete = e.kf("delete", &[]);
    assert_eq!(delete.status, 0, "{}", delete.stderr);
    let live = e
        .cluster
        .get("", "configmaps", e.ns(), "settings")
        .expect("held");
    assert!(live["metadata"]["deletionTimestamp"].is_string(), "{live}");

    let status = e.kf("status", &[]);
    assert_eq!(status.status, 1, "{}", status.stdout);
    let row = status
        .stdout
        .lines()
        .find(|l| l.contains("configmap/settings"))
        .unwrap_or_else(|| panic!("{}", status.stdout));
    assert!(
        row.contains("Terminating") && row.contains("kf.dev/test-hold"),
        "{row}"
    );
    let diff = e.kf("diff", &[]);
    assert_eq!(diff.status, 1, "{}\n{}", diff.stdout, diff.stderr);
    assert!(diff.stdout.contains("(being deleted)"), "{}", diff.stdout);

    // Still held when the time is up: apply fails naming it, and says why.
    let stuck = e.kf("apply", &["--timeout", "3s"]);
    assert_ne!(stuck.status, 0, "{}", stuck.stdout);
    let all = format!("{}{}", stuck.stdout, stuck.stderr);
    assert!(
        all.contains("configmap/settings") && all.contains("being deleted"),
        "{all}"
    );

    // Released two seconds into the apply: it waits, then creates it.
    let apply = std::thread::scope(|s| {
        let run = s.spawn(|| e.kf("apply", &[]));
        std::thread::sleep(std::time::Duration::from_secs(2));
        hold(false);
        run.join().expect("apply")
    });
    assert_eq!(apply.status, 0, "{}\n{}", apply.stdout, apply.stderr);
    let line = apply
        .stdout
        .lines()
        .find(|l| l.contains("configmap/settings"))
        .unwrap_or_else(|| panic!("{}", apply.stdout));
    assert!(line.ends_with("created"), "{line}");
    let live = e
        .cluster
        .get("", "configmaps", e.ns(), "settings")
        .expect("made anew");
    assert!(live["metadata"]["deletionTimestamp"].is_null(), "{live}");

    // Foreground deletion leaves each object Terminating until the garbage collector is
    // done; an apply right after waits for that and creates every one anew.
    let delete = e.kf("delete", &["--cascade", "foreground"]);
    assert_eq!(delete.status, 0, "{}", delete.stderr);
    let again = e.kf("apply", &[]);
    assert_eq!(again.status, 0, "{}\n{}", again.stdout, again.stderr);
    assert_eq!(count(&again.stdout, "unchanged"), 0, "{}", again.stdout);
    std::thread::sleep(std::time::Duration::from_secs(3));
    for i in 1..=40 {
        let name = format!("cm-{i}");
        let live = e
            .cluster
            .get("", "configmaps", e.ns(), &name)
            .unwrap_or_else(|| panic!("{name} was removed after the apply"));
        assert!(live["metadata"]["deletionTimestamp"].is_null(), "{live}");
    }
    let status = e.kf("status", &[]);
    assert!(!status.stdout.contains("Terminating"), "{}", status.stdout);
}

/// Kueue's labels as the real server stores them where 1.20 allows (its apiextensions
/// has no CEL, so Kueue's and Trainer's CRDs are refused, and kf says why): a served
/// model's Deployment carries the queue and priority, its pods too, and moving it to
/// another queue is one `configured` apply, since the labels never enter the Deployment's
/// immutable selector.
#[test]
#[ignore = "needs a real API server (tests/envtest/envtest); see the file's header"]
fn a_served_models_queue_is_stored_and_moves_without_touching_its_selector() {
    let e = env();
    ok(
        &e.app.root,
        &[
            "generate",
            "tf-serving",
            "mnist",
            "--modelBasePath=gs://models/mnist",
            "--queueName=team-a",
            "--workloadPriorityClass=urgent",
        ],
    );
    let first = e.kf("apply", &[]);
    assert_eq!(first.status, 0, "{}\n{}", first.stdout, first.stderr);
    let stored = |e: &Env| {
        e.cluster
            .get("apps", "deployments", e.ns(), "mnist-v1")
            .or_else(|| e.cluster.get("apps", "deployments", e.ns(), "mnist"))
            .expect("the Deployment is stored")
    };
    let d = stored(&e);
    assert_eq!(
        d["metadata"]["labels"]["kueue.x-k8s.io/queue-name"],
        "team-a"
    );
    assert_eq!(
        d["metadata"]["labels"]["kueue.x-k8s.io/priority-class"],
        "urgent"
    );
    assert_eq!(
        d["spec"]["template"]["metadata"]["labels"]["kueue.x-k8s.io/queue-name"],
        "team-a"
    );
    assert!(!d["spec"]["selector"].to_string().contains("kueue"));
    ok(
        &e.app.root,
        &["param", "set", "mnist", "queueName", "team-b"],
    );
    let moved = e.kf("apply", &[]);
    assert_eq!(moved.status, 0, "{}\n{}", moved.stdout, moved.stderr);
    assert_eq!(count(&moved.stdout, "configured"), 1, "{}", moved.stdout);
    assert_eq!(
        stored(&e)["metadata"]["labels"]["kueue.x-k8s.io/queue-name"],
        "team-b"
    );
    let gone = e.kf("delete", &[]);
    assert_eq!(gone.status, 0, "{}", gone.stderr);
}
