//! The cluster commands against the in-process test API server (tests/support/apiserver.rs)
//! — or, unchanged, against a real cluster: `KF_TEST_KUBECONFIG=~/.kube/config cargo test
//! --test cluster` (each test in its own new namespace; the fault-injection and
//! request-counting parts run only against the test server).

mod support;

use std::time::Duration;

use support::apiserver::{CrdEstablished, Fault};
use support::cluster::TestCluster;
use support::*;

struct Setup {
    app: TempApp,
    cluster: TestCluster,
    ns: String,
    kubeconfig: String,
}

/// An app whose `default` env points at a fresh test server.
fn setup() -> Setup {
    let cluster = TestCluster::start();
    let ns = cluster.namespace.clone();
    let app = new_app();
    point_default_env(&app.root, &cluster.url(), &ns);
    let kubeconfig = cluster
        .kubeconfig(app.root.parent().unwrap())
        .to_string_lossy()
        .into_owned();
    generate_settings_and_web(&app.root, "nginx:1.25");
    Setup {
        app,
        cluster,
        ns,
        kubeconfig,
    }
}

impl Setup {
    /// The group of this test's Widget CRD: CRDs are cluster-wide, and tests that run side
    /// by side on a real server must not share one.
    fn widget_group(&self) -> String {
        format!("{}.example.com", self.ns)
    }

    /// A component with the Widget CRD (of [`Setup::widget_group`]) and one Widget, w1.
    fn widgets(&self) -> String {
        let group = self.widget_group();
        format!(
            r#"[
  {{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: {{ name: 'widgets.{group}' }},
    spec: {{ group: '{group}', scope: 'Namespaced',
            names: {{ kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' }},
            versions: [{{ name: 'v1', served: true, storage: true,
                         schema: {{ openAPIV3Schema: {{ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }} }} }}] }} }},
  {{ apiVersion: '{group}/v1', kind: 'Widget', metadata: {{ name: 'w1' }}, spec: {{ size: 3 }} }},
]
"#
        )
    }

    /// The app id `kf init` recorded in app.yaml: a hex string, quoted when YAML would
    /// read it as a number (`94406e981011331`), so read as YAML reads it.
    fn app_id(&self) -> String {
        read(self.app.root.join("app.yaml"))
            .lines()
            .find_map(|l| l.strip_prefix("id: "))
            .map(|v| v.trim().trim_matches('"').trim_matches('\'').to_string())
            .expect("kf init records an app id")
    }

    /// `kf VERB --env default --kubeconfig <the test server's> EXTRA…` in the app.
    fn kf(&self, verb: &str, extra: &[&str]) -> Run {
        let mut args = vec![verb, "--env", "default", "--kubeconfig", &self.kubeconfig];
        args.extend_from_slice(extra);
        kf_in(&self.app.root, &args)
    }

    fn apply(&self, extra: &[&str]) -> Run {
        self.kf("apply", extra)
    }
}

fn lines_with(out: &str, word: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.ends_with(word))
        .map(str::to_string)
        .collect()
}

#[test]
fn apply_then_reapply_is_unchanged_and_a_param_change_configures_one_object() {
    let s = setup();
    let first = s.apply(&[]);
    assert_eq!(first.status, 0, "{}", first.stderr);
    assert_eq!(
        lines_with(&first.stdout, " created"),
        vec![
            format!("configmap/settings -n {} created", s.ns),
            format!("service/web -n {} created", s.ns),
            format!("deployment.apps/web -n {} created", s.ns),
        ],
        "{}",
        first.stdout
    );
    assert!(
        first
            .stdout
            .contains("3 objects: 3 created, 0 configured, 0 unchanged")
    );
    let cm = s.cluster.get("", "configmaps", &s.ns, "settings").unwrap();
    assert_eq!(
        cm["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        "kf"
    );
    assert_eq!(cm["metadata"]["labels"]["kf.dev/app"], "app");
    assert_eq!(cm["metadata"]["labels"]["kf.dev/environment"], "default");
    assert_eq!(cm["metadata"]["labels"]["ksonnet.io/component"], "settings");
    assert_eq!(cm["data"]["mode"], "fast");

    let again = s.apply(&[]);
    assert_eq!(again.status, 0, "{}", again.stderr);
    assert!(
        again
            .stdout
            .contains("3 objects: 0 created, 0 configured, 3 unchanged"),
        "{}",
        again.stdout
    );

    ok(
        &s.app.root,
        &["param", "set", "web", "replicas", "3", "--env", "default"],
    );
    let third = s.apply(&[]);
    assert_eq!(
        lines_with(&third.stdout, " configured"),
        vec![format!("deployment.apps/web -n {} configured", s.ns)]
    );
    let web = s.cluster.get("apps", "deployments", &s.ns, "web").unwrap();
    assert_eq!(web["spec"]["replicas"], 3);
}

#[test]
fn a_crd_and_its_custom_resources_apply_in_one_run() {
    let s = setup();
    write(s.app.root.join("components/widgets.jsonnet"), &s.widgets());
    let run = s.apply(&[]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    let crd_line = run
        .stdout
        .lines()
        .position(|l| l.contains("customresourcedefinition"))
        .unwrap();
    let cr_line = run
        .stdout
        .lines()
        .position(|l| l.starts_with(&format!("widget.{}/w1", s.widget_group())))
        .unwrap();
    assert!(crd_line < cr_line, "{}", run.stdout);
    assert_eq!(
        s.cluster
            .get(&s.widget_group(), "widgets", &s.ns, "w1")
            .unwrap()["spec"]["size"],
        3
    );
    // Clean up the cluster-scoped CRD too (a real cluster keeps it otherwise).
    let run = s.kf("delete", &[]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(s.cluster.gone(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "",
        &format!("widgets.{}", s.widget_group())
    ));
}

#[test]
fn server_errors_are_retried_and_a_failing_object_does_not_stop_the_others() {
    let s = setup();
    // Fault injection needs the test server.
    let Some(fake) = s.cluster.fake() else { return };
    // Two 503s then success: retried, applied.
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/configmaps/settings".into(),
        status: Some(503),
        times: 2,
        ..Fault::default()
    });
    // A 429 with Retry-After, then a dropped connection: both retried.
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/services/web".into(),
        status: Some(429),
        retry_after: Some(1),
        times: 1,
        ..Fault::default()
    });
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/services/web".into(),
        drop: true,
        times: 1,
        ..Fault::default()
    });
    // The Deployment always fails with a 500 that says nothing transient: sent once.
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/deployments/web".into(),
        status: Some(500),
        times: 1000,
        ..Fault::default()
    });
    let run = s.apply(&["--concurrency", "1"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains(&format!("configmap/settings -n {} created", s.ns)),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("service/web -n {} created", s.ns)),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "deployment.apps/web -n {} failed: injected fault (500)",
            s.ns
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 of 3 objects failed"),
        "{}",
        run.stderr
    );
    let patches = |p: &str| {
        fake.requests()
            .iter()
            .filter(|(m, path)| m == "PATCH" && path.contains(p))
            .count()
    };
    assert_eq!(patches("/configmaps/settings"), 3);
    // The 429 said Retry-After: 1; the next attempt waited for it.
    let web: Vec<std::time::Instant> = fake
        .timed_requests()
        .into_iter()
        .filter(|(m, p, _)| m == "PATCH" && p.contains("/services/web"))
        .map(|(_, _, t)| t)
        .collect();
    assert!(
        web[1].duration_since(web[0]) >= Duration::from_millis(950),
        "retried after {:?}",
        web[1].duration_since(web[0])
    );
    assert_eq!(patches("/services/web"), 3);
    assert_eq!(
        patches("/deployments/web"),
        1,
        "a deterministic 500 is not retried"
    );
}

#[test]
fn another_cluster_is_refused_and_nothing_is_sent() {
    let s = setup();
    ok(
        &s.app.root,
        &[
            "env",
            "set",
            "default",
            "--server",
            "https://prod.example.com",
        ],
    );
    let run = s.apply(&[]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("no kubeconfig context points at https://prod.example.com"),
        "{}",
        run.stderr
    );
    let run = s.apply(&["--context", s.cluster.context()]);
    assert!(run.stderr.contains("refusing to act"), "{}", run.stderr);
    if let Some(fake) = s.cluster.fake() {
        assert!(fake.requests().is_empty(), "{:?}", fake.requests());
    }
}

#[test]
fn server_dry_run_writes_nothing_and_says_what_would_happen() {
    let s = setup();
    let run = s.apply(&["--dry-run=server"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "deployment.apps/web -n {} created (server dry run)",
            s.ns
        )),
        "{}",
        run.stdout
    );
    for (group, plural, name) in [
        ("", "configmaps", "settings"),
        ("", "services", "web"),
        ("apps", "deployments", "web"),
    ] {
        assert!(
            s.cluster.get(group, plural, &s.ns, name).is_none(),
            "{name} was written"
        );
    }
    assert!(
        s.cluster
            .fake()
            .map(|f| f.requests())
            .unwrap_or_default()
            .iter()
            .filter(|(m, _)| m == "PATCH")
            .all(|(_, p)| p.contains("dryRun=All"))
    );
}

#[test]
fn field_manager_conflicts_fail_unless_forced() {
    let s = setup();
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "settings", "namespace": &s.ns}, "data": {"mode": "slow"}}),
        "kubectl-edit",
    );
    let run = s.apply(&[]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("conflict with \"kubectl-edit\": .data.mode"),
        "{}",
        run.stderr
    );
    // A conflict is not retried.
    if let Some(fake) = s.cluster.fake() {
        let patches = fake
            .requests()
            .iter()
            .filter(|(m, p)| m == "PATCH" && p.contains("settings"))
            .count();
        assert_eq!(patches, 1);
    }
    let run = s.apply(&["--force-conflicts"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        s.cluster.get("", "configmaps", &s.ns, "settings").unwrap()["data"]["mode"],
        "fast"
    );
    let _ = Duration::ZERO;
}

#[test]
fn prune_deletes_only_kf_objects_no_longer_rendered() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    // Objects kf must never prune: unlabelled, controller-owned, or marked never.
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "hand-made", "namespace": &s.ns}}),
        "kubectl",
    );
    // A live owner, so that a real cluster's garbage collector keeps the owned object.
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owner", "namespace": &s.ns}}),
        "some-controller",
    );
    let owner_uid =
        s.cluster.get("", "configmaps", &s.ns, "owner").unwrap()["metadata"]["uid"].clone();
    let ours = serde_json::json!({"app.kubernetes.io/managed-by": "kf", "kf.dev/app": "app", "kf.dev/environment": "default"});
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "owned", "namespace": &s.ns, "labels": ours,
                         "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner_uid, "controller": true}]}}),
        "kube-controller-manager",
    );
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "keep-me", "namespace": &s.ns, "labels": ours,
                         "annotations": {"kf.dev/prune": "never"}}}),
        "kf",
    );
    ok(&s.app.root, &["component", "rm", "web"]);

    let dry = s.apply(&["--prune", "--dry-run=server"]);
    assert_eq!(dry.status, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains(&format!(
            "deployment.apps/web -n {} would be pruned (server dry run)",
            s.ns
        )),
        "{}",
        dry.stdout
    );
    let web = s.cluster.get("apps", "deployments", &s.ns, "web");
    assert!(
        web.is_some_and(|w| w["metadata"]["deletionTimestamp"].is_null()),
        "a dry run deletes nothing"
    );

    let run = s.apply(&["--prune"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let first_line = run.stdout.lines().next().unwrap();
    assert!(
        first_line.ends_with("will be pruned: no longer in the render"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("service/web -n {} pruned", s.ns)),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("2 pruned"), "{}", run.stdout);
    assert!(s.cluster.gone("apps", "deployments", &s.ns, "web"));
    assert!(s.cluster.gone("", "services", &s.ns, "web"));
    for kept in ["hand-made", "owned", "keep-me", "settings"] {
        assert!(
            s.cluster.get("", "configmaps", &s.ns, kept).is_some(),
            "{kept} was pruned"
        );
    }
    let Some(fake) = s.cluster.fake() else { return };
    let deletes: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|(m, _)| m == "DELETE")
        .collect();
    assert_eq!(
        deletes.len(),
        4,
        "two dry runs and two real deletions: {deletes:?}"
    );
    // The dry run is in the DeleteOptions body: with a body, a real server ignores the
    // query's dryRun and deletes.
    assert_eq!(
        fake.delete_bodies()
            .iter()
            .filter(|(_, o)| o["dryRun"] == serde_json::json!(["All"]))
            .count(),
        2
    );
}

#[test]
fn delete_removes_kf_objects_in_reverse_order_and_leaves_others_alone() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    ok(&s.app.root, &["generate", "configMap", "legacy"]);
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "legacy", "namespace": &s.ns}, "data": {"owner": "someone else"}}),
        "kubectl",
    );
    if let Some(f) = s.cluster.fake() {
        f.clear_requests();
    }
    let run = s.kf("delete", &[]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("configmap/legacy -n {} left alone", s.ns)),
        "{}",
        run.stdout
    );
    // Three objects and the ApplySet parent.
    assert!(run.stdout.contains("4 objects deleted"), "{}", run.stdout);
    if let Some(fake) = s.cluster.fake() {
        let order: Vec<String> = fake
            .requests()
            .into_iter()
            .filter(|(m, _)| m == "DELETE")
            .map(|(_, p)| p)
            .collect();
        assert!(
            order[0].contains("/deployments/web"),
            "workloads go first: {order:?}"
        );
        assert!(
            order[order.len() - 2].contains("/configmaps/settings"),
            "{order:?}"
        );
        assert!(
            order.last().unwrap().contains("/secrets/kf-app-default"),
            "the ApplySet parent goes last: {order:?}"
        );
    }
    for (group, plural, name) in [
        ("", "configmaps", "settings"),
        ("", "services", "web"),
        ("apps", "deployments", "web"),
    ] {
        assert!(
            s.cluster.gone(group, plural, &s.ns, name),
            "{name} is still there"
        );
    }
    assert!(
        s.cluster.get("", "configmaps", &s.ns, "legacy").is_some(),
        "the foreign ConfigMap is left"
    );
    // Deleting again finds nothing to do.
    let again = s.kf("delete", &[]);
    assert_eq!(again.status, 0, "{}", again.stderr);
    // On a real server the foreground deletion may still be finishing: kf says so and
    // sends nothing again.
    let web = format!("deployment.apps/web -n {}", s.ns);
    assert!(
        again.stdout.contains(&format!("{web} already gone"))
            || again
                .stdout
                .contains(&format!("{web} already being deleted")),
        "{}",
        again.stdout
    );
}

#[test]
fn diff_shows_what_apply_would_change_with_kubectl_exit_codes() {
    let s = setup();
    let diff = |extra: &[&str]| {
        let mut args = vec!["diff", "--env", "default", "--kubeconfig", &s.kubeconfig];
        args.extend_from_slice(extra);
        kf_in(&s.app.root, &args)
    };
    // Nothing on the cluster yet: everything is new.
    let run = diff(&[]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("+++ kf/deployment.apps/{}/web", s.ns)),
        "{}",
        run.stdout
    );
    assert!(
        s.cluster.get("apps", "deployments", &s.ns, "web").is_none(),
        "diff writes nothing"
    );

    assert_eq!(s.apply(&[]).status, 0);
    let run = diff(&[]);
    assert_eq!((run.status, run.stdout.as_str()), (0, ""), "{}", run.stderr);

    ok(
        &s.app.root,
        &["param", "set", "web", "replicas", "4", "--env", "default"],
    );
    write(
        s.app.root.join("components/creds.jsonnet"),
        "{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, stringData: { token: 's3cr3t-value' } }\n",
    );
    let run = diff(&["--color", "never"]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("-  replicas: 1\n+  replicas: 4\n"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("s3cr3t-value") && run.stdout.contains("token: \"***\""),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains('\u{1b}'),
        "no colour when asked for none"
    );
    let shown = diff(&["--show-secrets", "--color", "always"]);
    // A real API server turns stringData into base64 data in its dry-run answer.
    assert!(
        shown.stdout.contains("s3cr3t-value") || shown.stdout.contains("czNjcjN0LXZhbHVl"),
        "{}",
        shown.stdout
    );
    assert!(shown.stdout.contains("\u{1b}["), "colour when asked for it");

    // An error is exit 2, not 1.
    ok(
        &s.app.root,
        &[
            "env",
            "set",
            "default",
            "--server",
            "https://elsewhere.example.com",
        ],
    );
    let run = diff(&[]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("no kubeconfig context points at"),
        "{}",
        run.stderr
    );
}

#[test]
fn diff_of_two_local_renders_needs_no_cluster() {
    let s = setup();
    let run = kf_in(&s.app.root, &["diff", "local:default", "local:default"]);
    assert_eq!((run.status, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    ok(
        &s.app.root,
        &["param", "set", "web", "replicas", "5", "--env", "prod"],
    );
    let run = kf_in(
        &s.app.root,
        &["diff", "local:default", "local:prod", "--color=never"],
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("-  replicas: 1\n+  replicas: 5\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("--- default/apps/v1/Deployment/{}/web", s.ns)),
        "{}",
        run.stdout
    );
    if let Some(fake) = s.cluster.fake() {
        assert!(fake.requests().is_empty());
    }
    let run = kf_in(&s.app.root, &["diff", "local:default"]);
    assert_eq!(run.status, 2);
}

#[test]
fn status_reports_readiness_and_wait_times_out_or_succeeds() {
    let s = setup();
    let status = |extra: &[&str]| {
        let mut args = vec!["status", "--env", "default", "--kubeconfig", &s.kubeconfig];
        args.extend_from_slice(extra);
        kf_in(&s.app.root, &args)
    };
    // Before apply: everything Missing, exit 1.
    let run = status(&[]);
    assert_eq!(run.status, 1);
    // The table pads its columns to the longest value: compare words, not spaces.
    assert!(
        run.stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>()
                == [
                    "deployment.apps/web",
                    s.ns.as_str(),
                    "Missing",
                    "not",
                    "on",
                    "the",
                    "cluster"
                ]),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .contains("3 of 3 objects are Failed, Missing or Terminating"),
        "{}",
        run.stderr
    );

    // The rest plays the controller (setting status), which only the test server allows.
    if s.cluster.fake().is_none() {
        return;
    }
    assert_eq!(s.apply(&[]).status, 0);
    let run = status(&[]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("InProgress 0/1 ready, 0 updated"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "configmap/settings  {}    Ready      exists",
            s.ns
        )),
        "{}",
        run.stdout
    );

    let run = status(&["--wait", "--timeout", "1s"]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("deployment.apps/web: InProgress"),
        "plain progress lines off a terminal: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("1 of 3 objects are not Ready after 1s"),
        "{}",
        run.stderr
    );

    // The controller rolls the Deployment out, through the status subresource; an old
    // ReplicaSet's pod still running first.
    let fake = s.cluster.fake().unwrap();
    fake.set_status(
        "apps",
        "deployments",
        &s.ns,
        "web",
        serde_json::json!({"observedGeneration": 1, "replicas": 2, "updatedReplicas": 1, "availableReplicas": 1}),
    );
    let run = status(&[]);
    assert!(
        run.stdout
            .contains("InProgress 1/1 ready, 1 updated, 1 old pending termination"),
        "{}",
        run.stdout
    );
    fake.set_status(
        "apps",
        "deployments",
        &s.ns,
        "web",
        serde_json::json!({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}),
    );
    let run = status(&["--wait", "--timeout", "10s"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with("deployment.apps/web")
                && l.contains(" Ready ")
                && l.ends_with("1/1 ready, 1 updated")),
        "{}",
        run.stdout
    );
    let run = s.apply(&["--wait", "--timeout", "10s"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("NAME") && run.stdout.contains("3 objects: 0 created"),
        "{}",
        run.stdout
    );
}

#[test]
fn validate_server_asks_the_cluster_and_changes_nothing() {
    let s = setup();
    let run = s.kf("validate", &["--server"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    for (group, plural, name) in [
        ("", "configmaps", "settings"),
        ("", "services", "web"),
        ("apps", "deployments", "web"),
    ] {
        assert!(
            s.cluster.get(group, plural, &s.ns, name).is_none(),
            "{name} was written"
        );
    }
    let Some(fake) = s.cluster.fake() else { return };
    assert!(
        fake.requests()
            .iter()
            .any(|(m, p)| m == "PATCH" && p.contains("dryRun=All"))
    );
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/services/web".into(),
        status: Some(422),
        times: 1,
        ..Fault::default()
    });
    let run = s.kf("validate", &["--server"]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("service/web (server dry run): injected fault (422)"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_empty_namespace_means_the_envs_and_prune_keeps_the_object() {
    let s = setup();
    write(
        s.app.root.join("components/blank.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blank', namespace: '' } }\n",
    );
    for _ in 0..2 {
        let run = s.apply(&["--prune"]);
        assert_eq!(run.status, 0, "{}", run.stderr);
        assert!(!run.stdout.contains("pruned"), "{}", run.stdout);
    }
    assert!(s.cluster.get("", "configmaps", &s.ns, "blank").is_some());
    let st = s.kf("status", &[]);
    assert!(st.stdout.contains("configmap/blank"), "{}", st.stdout);
    assert!(!st.stdout.contains("Missing"), "{}", st.stdout);
}

// ---- Ownership: prune and delete never remove what kf did not apply ----

fn labels_of(app: &str, env: &str) -> serde_json::Value {
    serde_json::json!({"app.kubernetes.io/managed-by": "kf", "kf.dev/app": app, "kf.dev/environment": env})
}

/// Objects kf must never delete: a kubectl Secret without labels, one that carries kf's
/// labels but was never applied by kf's field manager, and one of another env.
fn put_foreign_objects(s: &Setup) {
    s.cluster.put(
        "",
        "secrets",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db-password", "namespace": &s.ns}, "stringData": {"p": "x"}}),
        "kubectl-client-side-apply",
    );
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "impostor", "namespace": &s.ns, "labels": labels_of("app", "default")}}),
        "helm",
    );
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "other-env", "namespace": &s.ns, "labels": labels_of("app", "staging")}}),
        "kf-app-staging",
    );
}

fn assert_foreign_objects_kept(s: &Setup, context: &str) {
    assert!(
        s.cluster.get("", "secrets", &s.ns, "db-password").is_some(),
        "{context}: the kubectl Secret was deleted"
    );
    for name in ["impostor", "other-env"] {
        assert!(
            s.cluster.get("", "configmaps", &s.ns, name).is_some(),
            "{context}: {name} was deleted"
        );
    }
}

#[test]
fn prune_never_deletes_what_kf_did_not_apply_under_any_fault_mode() {
    let faults: Vec<(&str, Vec<Fault>)> = vec![
        ("labelSelector ignored", vec![]),
        (
            "503 then Retry-After on lists",
            vec![Fault {
                method: Some(hyper::Method::GET),
                path: "/secrets".into(),
                status: Some(503),
                retry_after: Some(0),
                times: 2,
                ..Fault::default()
            }],
        ),
        (
            "dropped connections and 504 on deletes",
            vec![
                Fault {
                    method: Some(hyper::Method::DELETE),
                    path: "/".into(),
                    drop: true,
                    times: 1,
                    ..Fault::default()
                },
                Fault {
                    method: Some(hyper::Method::DELETE),
                    path: "/".into(),
                    status: Some(504),
                    times: 1,
                    ..Fault::default()
                },
            ],
        ),
        (
            "429 on everything",
            vec![Fault {
                path: "/".into(),
                status: Some(429),
                retry_after: Some(0),
                times: 6,
                ..Fault::default()
            }],
        ),
        (
            "a 200 that is not JSON on a list",
            vec![Fault {
                method: Some(hyper::Method::GET),
                path: "/api/v1/configmaps".into(),
                body: Some("<html>proxy login</html>".into()),
                times: 1,
                ..Fault::default()
            }],
        ),
    ];
    for (mode, injected) in faults {
        let s = setup();
        let Some(fake) = s.cluster.fake() else { return };
        assert_eq!(s.apply(&[]).status, 0, "{mode}");
        put_foreign_objects(&s);
        ok(&s.app.root, &["component", "rm", "web"]);
        // Every mode runs against a server that also ignores the labelSelector.
        fake.ignore_label_selector();
        for f in injected {
            fake.inject(f);
        }
        let run = s.apply(&["--prune"]);
        assert!(!run.stderr.contains("panicked"), "{mode}: {}", run.stderr);
        assert_foreign_objects_kept(&s, mode);
        assert!(
            s.cluster.get("", "configmaps", &s.ns, "settings").is_some(),
            "{mode}: a rendered object was pruned"
        );
        for (path, options) in fake.delete_bodies() {
            assert!(
                path.contains("/deployments/web") || path.contains("/services/web"),
                "{mode}: deleted {path}"
            );
            assert!(
                options["preconditions"]["uid"].is_string(),
                "{mode}: no UID precondition: {options}"
            );
            // --cascade=auto: a workload in the foreground (its pods first), the rest
            // in the background, as kubectl deletes.
            let policy = if path.contains("/deployments/") {
                "Foreground"
            } else {
                "Background"
            };
            assert_eq!(options["propagationPolicy"], policy, "{mode}: {path}");
        }
        if mode != "a 200 that is not JSON on a list" {
            assert_eq!(run.status, 0, "{mode}: {}\n{}", run.stdout, run.stderr);
            assert!(
                s.cluster.get("apps", "deployments", &s.ns, "web").is_none(),
                "{mode}"
            );
        } else {
            assert_eq!(run.status, 1, "{mode}: {}", run.stdout);
            assert!(
                run.stderr.contains("not a JSON object")
                    && run.stderr.contains("nothing was pruned"),
                "{mode}: {}",
                run.stderr
            );
        }

        // kf delete uses the same check: a rendered name kf did not apply is left alone.
        ok(&s.app.root, &["generate", "configMap", "impostor"]);
        ok(&s.app.root, &["generate", "configMap", "other-env"]);
        let run = s.kf("delete", &[]);
        assert_eq!(run.status, 0, "{mode}: {}", run.stderr);
        assert!(
            run.stdout.contains(&format!(
                "configmap/impostor -n {} left alone: kf's field manager 'kf-app-default' never applied it",
                s.ns
            )),
            "{mode}: {}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains("belongs to kf app 'app', environment 'staging'"),
            "{mode}: {}",
            run.stdout
        );
        assert_foreign_objects_kept(&s, mode);
        assert!(s.cluster.gone("", "configmaps", &s.ns, "settings"));
    }
}

#[test]
fn an_object_recreated_while_prune_runs_is_left_alone() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    assert_eq!(s.apply(&[]).status, 0);
    ok(&s.app.root, &["component", "rm", "web"]);
    let old_uid = s.cluster.get("", "services", &s.ns, "web").unwrap()["metadata"]["uid"].clone();
    fake.inject(Fault {
        method: Some(hyper::Method::DELETE),
        path: "/services/web".into(),
        delay: Some(Duration::from_millis(1500)),
        times: 1,
        ..Fault::default()
    });
    let root = s.app.root.clone();
    let kubeconfig = s.kubeconfig.clone();
    let prune = std::thread::spawn(move || {
        kf_in(
            &root,
            &[
                "apply",
                "--env",
                "default",
                "--kubeconfig",
                &kubeconfig,
                "--prune",
            ],
        )
    });
    // While kf's DELETE waits, someone deletes the Service and makes a new one.
    let start = std::time::Instant::now();
    while !fake
        .requests()
        .iter()
        .any(|(m, p)| m == "DELETE" && p.contains("/services/web"))
    {
        assert!(start.elapsed() < Duration::from_secs(20), "no DELETE came");
        std::thread::sleep(Duration::from_millis(20));
    }
    fake.remove("", "services", &s.ns, "web");
    s.cluster.put(
        "",
        "services",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web", "namespace": &s.ns, "labels": labels_of("app", "default")},
            "spec": {"ports": [{"port": 8080}]}}),
        "kf-app-default",
    );
    let run = prune.join().unwrap();
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "service/web -n {} already gone or replaced, left alone",
            s.ns
        )),
        "{}",
        run.stdout
    );
    let now = s
        .cluster
        .get("", "services", &s.ns, "web")
        .expect("the new Service is kept");
    assert_ne!(now["metadata"]["uid"], old_uid);
}

#[test]
fn prune_with_components_only_considers_those_components() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    // Only `settings` is rendered: web's objects are not stale, merely not selected.
    let run = s.apply(&["-c", "settings", "--prune"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("prune"), "{}", run.stdout);
    assert!(s.cluster.get("apps", "deployments", &s.ns, "web").is_some());
    // An object that left the selected component is pruned; web's still are not.
    write(
        s.app.root.join("components/settings.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings-v2' }, data: { mode: 'fast' } }\n",
    );
    let run = s.apply(&["-c", "settings", "--prune"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("configmap/settings -n {} pruned", s.ns)),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("1 pruned"), "{}", run.stdout);
    assert!(s.cluster.gone("", "configmaps", &s.ns, "settings"));
    assert!(s.cluster.get("apps", "deployments", &s.ns, "web").is_some());
    assert!(s.cluster.get("", "services", &s.ns, "web").is_some());
}

#[test]
fn another_envs_objects_are_refused_unless_forced_and_managers_are_per_env() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    let cm = s.cluster.get("", "configmaps", &s.ns, "settings").unwrap();
    let managers: Vec<&str> = cm["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["manager"].as_str())
        .collect();
    assert_eq!(managers, vec!["kf-app-default"]);
    assert!(
        cm["metadata"]["managedFields"][0]["fieldsV1"]["f:data"]["f:mode"].is_object(),
        "fieldsV1 format: {}",
        cm["metadata"]["managedFields"]
    );
    // Env px: same cluster, same namespace, same names.
    ok(
        &s.app.root,
        &[
            "env",
            "add",
            "px",
            "--server",
            &s.cluster.url(),
            "--namespace",
            &s.ns,
        ],
    );
    let px = |extra: &[&str]| {
        let mut args = vec!["apply", "--env", "px", "--kubeconfig", &s.kubeconfig];
        args.extend_from_slice(extra);
        kf_in(&s.app.root, &args)
    };
    let run = px(&[]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains(&format!(
            "configmap/settings -n {} failed: it belongs to kf app 'app', environment 'default'",
            s.ns
        )) && run.stderr.contains("--force-conflicts"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("3 failed"), "{}", run.stdout);
    assert_eq!(
        s.cluster.get("", "configmaps", &s.ns, "settings").unwrap()["metadata"]["labels"]["kf.dev/environment"],
        "default"
    );
    let run = px(&["--force-conflicts"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        s.cluster.get("", "configmaps", &s.ns, "settings").unwrap()["metadata"]["labels"]["kf.dev/environment"],
        "px"
    );
    // --field-manager overrides the manager kf applies with.
    s.apply(&["--force-conflicts", "--field-manager", "ci-deployer"]);
    let fake = s.cluster.fake();
    if let Some(fake) = fake {
        assert!(
            fake.requests()
                .iter()
                .any(|(m, p)| m == "PATCH" && p.contains("fieldManager=ci-deployer")),
        );
    }
}

// ---- Faults: bounded retries, timeouts, stuck CRDs, bad replies ----

#[test]
fn a_503_loop_and_a_huge_retry_after_end_within_the_timeout_with_a_message() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/configmaps/settings".into(),
        status: Some(503),
        times: usize::MAX,
        ..Fault::default()
    });
    let start = std::time::Instant::now();
    let run = s.apply(&["--timeout", "3s", "--concurrency", "1"]);
    let took = start.elapsed();
    assert_eq!(run.status, 1);
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert!(
        run.stderr
            .contains("retrying PATCH /api/v1/namespaces/ml-dev/configmaps/settings"),
        "each retry is said: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("configmap/settings -n ml-dev failed"),
        "{}",
        run.stderr
    );

    let s = setup();
    let fake = s.cluster.fake().unwrap();
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/services/web".into(),
        status: Some(429),
        retry_after: Some(1000),
        times: usize::MAX,
        ..Fault::default()
    });
    let start = std::time::Instant::now();
    let run = s.apply(&["--timeout", "5s"]);
    let took = start.elapsed();
    assert_eq!(run.status, 1);
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert!(
        run.stderr
            .contains("gave up: the server asked to wait 1000s, longer than the")
            && run.stderr.contains("left of the command's --timeout of 5s")
            && !run.stderr.contains("is spent"),
        "{}",
        run.stderr
    );
    // The others were applied meanwhile.
    assert!(s.cluster.get("", "configmaps", &s.ns, "settings").is_some());
}

#[test]
fn a_server_that_never_answers_is_bounded_by_the_request_and_command_timeouts() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/deployments/web".into(),
        delay: Some(Duration::from_secs(3600)),
        times: usize::MAX,
        ..Fault::default()
    });
    let start = std::time::Instant::now();
    let run = s.apply(&["--timeout", "4s", "--request-timeout", "1s"]);
    let took = start.elapsed();
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert!(run.stderr.contains("no reply within 1s"), "{}", run.stderr);
    assert!(
        run.stdout
            .contains("3 objects: 2 created, 0 configured, 0 unchanged, 1 failed"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_crd_that_never_becomes_established_fails_only_its_custom_resources() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    fake.crd_established(CrdEstablished::Never);
    write(s.app.root.join("components/widgets.jsonnet"), &s.widgets());
    let run = s.apply(&["--timeout", "4s"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains(&format!(
            "widget/w1 failed: its CRD widgets.{} is not Established after 2s",
            s.widget_group()
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("5 objects: 4 created, 0 configured, 0 unchanged, 1 failed"),
        "{}",
        run.stdout
    );
    assert!(s.cluster.get("apps", "deployments", &s.ns, "web").is_some());

    // Established late: waited for, then its resources go.
    let late = setup();
    let fake = late.cluster.fake().unwrap();
    fake.crd_established(CrdEstablished::After(Duration::from_millis(700)));
    write(
        late.app.root.join("components/widgets.jsonnet"),
        &read(s.app.root.join("components/widgets.jsonnet")),
    );
    let run = late.apply(&["--timeout", "20s"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        late.cluster
            .get(&s.widget_group(), "widgets", &late.ns, "w1")
            .is_some()
    );
}

#[test]
fn a_200_reply_that_is_not_json_fails_that_object_not_unchanged() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    assert_eq!(s.apply(&[]).status, 0);
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/configmaps/settings".into(),
        body: Some("<html><body>Welcome to the corporate proxy</body></html>".into()),
        times: 1,
        ..Fault::default()
    });
    let run = s.apply(&[]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("configmap/settings -n ml-dev failed: PATCH /api/v1/namespaces/ml-dev/configmaps/settings")
            && run.stderr.contains("not a JSON object")
            && run.stderr.contains("Welcome to the corporate proxy"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("2 unchanged, 1 failed"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_closed_stdout_neither_aborts_an_apply_nor_panics() {
    let s = setup();
    let run_closed = |args: &[&str]| kf_with_closed_stdout(&s.app.root, args);
    let (code, stderr) = run_closed(&["apply", "--env", "default", "--kubeconfig", &s.kubeconfig]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for (group, plural, name) in [
        ("", "configmaps", "settings"),
        ("", "services", "web"),
        ("apps", "deployments", "web"),
    ] {
        assert!(
            s.cluster.get(group, plural, &s.ns, name).is_some(),
            "{name}"
        );
    }
    for args in [
        vec!["show", "default"],
        vec!["status", "--env", "default", "--kubeconfig", &s.kubeconfig],
        vec!["diff", "local:default", "local:prod"],
        vec!["env", "list"],
        vec!["param", "list"],
    ] {
        let (_, stderr) = run_closed(&args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

// ---- kubectl's conventions ----

#[test]
fn namespace_flag_overrides_the_envs_namespace() {
    let s = setup();
    // It makes namespaces of its own, which a real cluster would keep.
    if s.cluster.fake().is_none() {
        return;
    }
    // A component that reads the destination's namespace, as ksonnet components do.
    write(
        s.app.root.join("components/probe.jsonnet"),
        "local env = std.extVar('__ksonnet/environments');\n{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', namespace: env.namespace } }\n",
    );
    let shown = ok(
        &s.app.root,
        &["show", "default", "-c", "probe", "-n", "team-b"],
    );
    assert!(shown.contains("namespace: team-b"), "{shown}");
    let shown = ok(&s.app.root, &["show", "default", "-c", "probe"]);
    assert!(shown.contains(&format!("namespace: {}", s.ns)), "{shown}");
    s.cluster.put(
        "",
        "namespaces",
        "",
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b"}}),
        "kubectl",
    );
    let run = s.apply(&["-n", "team-b"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("deployment.apps/web -n team-b created"),
        "{}",
        run.stdout
    );
    assert!(s.cluster.get("", "configmaps", "team-b", "probe").is_some());
    assert!(
        s.cluster
            .get("apps", "deployments", "team-b", "web")
            .is_some()
    );
    assert!(s.cluster.gone("apps", "deployments", &s.ns, "web"));
    let st = s.kf("status", &["--namespace", "team-b"]);
    assert!(
        st.stdout.contains("deployment.apps/web team-b"),
        "{}",
        st.stdout
    );
    let run = s.kf("delete", &["-n", "team-b"]);
    // Four objects and the ApplySet parent.
    assert!(run.stdout.contains("5 objects deleted"), "{}", run.stdout);
    assert!(s.cluster.gone("apps", "deployments", "team-b", "web"));
    // A namespace that does not exist is one error, before anything is sent.
    let run = s.apply(&["-n", "nowhere"]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("namespace nowhere does not exist")
            && run.stderr.contains("--create-namespace"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("created"), "{}", run.stdout);
}

#[test]
fn a_token_file_with_a_trailing_newline_works() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    let dir = s.app.root.parent().unwrap();
    std::fs::write(dir.join("token"), "s3cret-token\n").unwrap();
    let kubeconfig = dir.join("kubeconfig-tokenfile");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: {}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\nusers:\n- name: fake\n  user:\n    tokenFile: {}\n",
            fake.url,
            dir.join("token").display()
        ),
    )
    .unwrap();
    let run = kf_in(
        &s.app.root,
        &[
            "apply",
            "--env",
            "default",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        fake.authorizations()
            .iter()
            .all(|a| a == "Bearer s3cret-token"),
        "{:?}",
        fake.authorizations()
    );
}

#[test]
fn diff_pairs_local_envs_across_namespaces_and_shows_prune_removals() {
    let s = setup();
    // default deploys to ml-dev and prod to ml-prod; the same objects pair up.
    ok(
        &s.app.root,
        &["param", "set", "web", "replicas", "5", "--env", "prod"],
    );
    let run = kf_in(
        &s.app.root,
        &["diff", "local:default", "local:prod", "--color=never"],
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(!run.stdout.contains("(none)"), "{}", run.stdout);
    // Every object differs (its namespace, since the generic prototypes name it), and
    // each pairs with its counterpart.
    assert_eq!(
        run.stdout.matches("\n+++ ").count() + usize::from(run.stdout.starts_with("+++")),
        run.stdout.matches("--- default/").count(),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("+++ prod/apps/v1/Deployment/ml-prod/web"),
        "{}",
        run.stdout
    );

    assert_eq!(s.apply(&[]).status, 0);
    put_foreign_objects(&s);
    if let Some(f) = s.cluster.fake() {
        f.ignore_label_selector();
    }
    ok(&s.app.root, &["component", "rm", "web"]);
    let diff = |extra: &[&str]| {
        let mut args = vec![
            "diff",
            "--env",
            "default",
            "--kubeconfig",
            &s.kubeconfig,
            "--color=never",
        ];
        args.extend_from_slice(extra);
        kf_in(&s.app.root, &args)
    };
    let run = diff(&[]);
    assert_eq!((run.status, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    let run = diff(&["--prune"]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("+++ kf/deployment.apps/{}/web (pruned)", s.ns))
            && run.stdout.contains("-kind: Deployment"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("db-password") && !run.stdout.contains("impostor"),
        "{}",
        run.stdout
    );
}

#[test]
fn delete_dry_run_says_would_delete_and_prune_goes_in_reverse_order() {
    let s = setup();
    write(s.app.root.join("components/widgets.jsonnet"), &s.widgets());
    assert_eq!(s.apply(&[]).status, 0);
    let run = s.kf("delete", &["--dry-run"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("deployment.apps/web -n {} would delete (dry run)", s.ns))
            // Five objects and the ApplySet parent.
            && run.stdout.contains("6 objects would be deleted"),
        "{}",
        run.stdout
    );
    ok(&s.app.root, &["component", "rm", "widgets"]);
    ok(&s.app.root, &["component", "rm", "web"]);
    if let Some(f) = s.cluster.fake() {
        f.clear_requests();
    }
    // A real server's garbage collector learns a new resource (w1's) at its next
    // discovery sync, every 30 s (kube-controller-manager app/core.go): until then w1's
    // foreground deletion, and so its CRD's, waits. 60 s covers it.
    let run = s.apply(&["--prune", "--wait", "--timeout", "60s"]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(s.cluster.gone(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "",
        &format!("widgets.{}", s.widget_group())
    ));
    let Some(fake) = s.cluster.fake() else { return };
    let order: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|(m, _)| m == "DELETE")
        .map(|(_, p)| p)
        .collect();
    let at = |what: &str| order.iter().position(|p| p.contains(what)).unwrap();
    assert!(
        at("/widgets/w1") < at("/customresourcedefinitions/"),
        "{order:?}"
    );
    assert!(at("/deployments/web") < at("/services/web"), "{order:?}");
}

#[test]
fn apply_wait_waits_for_rollout_and_jobs_only_with_wait_for_jobs() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    write(
        s.app.root.join("components/train.jsonnet"),
        "{ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'train' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } } }\n",
    );
    assert_eq!(s.apply(&[]).status, 0);
    fake.set_status(
        "apps",
        "deployments",
        &s.ns,
        "web",
        serde_json::json!({"observedGeneration": 1, "replicas": 1, "updatedReplicas": 1, "availableReplicas": 1}),
    );
    fake.set_status(
        "batch",
        "jobs",
        &s.ns,
        "train",
        serde_json::json!({"active": 1}),
    );
    let run = s.apply(&["--wait", "--timeout", "10s"]);
    assert_eq!(
        run.status, 0,
        "a running Job does not hold --wait: {}",
        run.stderr
    );
    let run = s.apply(&["--wait", "--wait-for-jobs", "--timeout", "2s"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("1 of 4 objects are not Ready after 2s"),
        "{}",
        run.stderr
    );
}

#[test]
fn validate_server_reports_resources_of_a_crd_in_the_render_as_skipped() {
    let s = setup();
    write(s.app.root.join("components/widgets.jsonnet"), &s.widgets());
    let run = s.kf("validate", &["--server"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("skipped: widget/w1 (server dry run)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("4 objects in environment 'default' are valid")
            && run.stdout.contains("1 skipped by the server check"),
        "{}",
        run.stdout
    );
}

#[test]
fn many_objects_of_a_kind_are_read_with_one_list_and_still_checked() {
    let s = setup();
    write(
        s.app.root.join("components/many.jsonnet"),
        "[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-%d' % i }, data: { i: std.toString(i) } } for i in std.range(1, 20)]\n",
    );
    // cm-1 exists without labels (kubectl's); cm-2 belongs to another env.
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-1", "namespace": &s.ns}, "data": {"i": "1"}}),
        "kubectl",
    );
    s.cluster.put(
        "",
        "configmaps",
        &s.ns,
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm-2", "namespace": &s.ns, "labels": labels_of("app", "staging")}}),
        "kf-app-staging",
    );
    if let Some(f) = s.cluster.fake() {
        f.clear_requests();
    }
    let run = s.apply(&[]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stdout
            .contains(&format!("configmap/cm-1 -n {} configured", s.ns)),
        "an unlabelled object is adopted, not created: {}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "configmap/cm-2 -n {} failed: it belongs to kf app 'app', environment 'staging'",
            s.ns
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("21 created, 1 configured"),
        "{}",
        run.stdout
    );
    let again = s.apply(&[]);
    assert!(again.stdout.contains("22 unchanged"), "{}", again.stdout);
    if let Some(f) = s.cluster.fake() {
        let gets = f
            .requests()
            .iter()
            .filter(|(m, p)| m == "GET" && p.contains("/configmaps/cm-"))
            .count();
        assert_eq!(gets, 0, "read with a LIST, not one GET each");
    }
}

#[test]
fn kubectl_can_see_kfs_set_as_a_kep_3659_applyset() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    // The parent is named for the app, its env and its id.
    let parent_name = format!("kf-app-default-{}", s.app_id());
    let parent = s
        .cluster
        .get("", "secrets", &s.ns, &parent_name)
        .expect("the ApplySet parent Secret");
    let id = parent["metadata"]["labels"]["applyset.kubernetes.io/id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(id.starts_with("applyset-") && id.ends_with("-v1"), "{id}");
    let annotations = &parent["metadata"]["annotations"];
    assert_eq!(
        annotations["applyset.kubernetes.io/contains-group-kinds"],
        "ConfigMap,Deployment.apps,Service"
    );
    assert!(
        annotations["applyset.kubernetes.io/tooling"]
            .as_str()
            .unwrap()
            .starts_with("kf/v")
    );
    for (group, plural, name) in [
        ("", "configmaps", "settings"),
        ("", "services", "web"),
        ("apps", "deployments", "web"),
    ] {
        let o = s.cluster.get(group, plural, &s.ns, name).unwrap();
        assert_eq!(
            o["metadata"]["labels"]["applyset.kubernetes.io/part-of"],
            id.as_str(),
            "{name}"
        );
    }
    // Prune never deletes the parent (it is not one of kf's labelled objects). A prune
    // with -c leaves the other components' kinds listed; once a full apply's prune has
    // removed every Deployment and Service, the parent lists only what is left, as kubectl
    // does after its prune (KEP-3659).
    let kinds = |s: &Setup| {
        s.cluster
            .get("", "secrets", &s.ns, &parent_name)
            .expect("the parent stays")["metadata"]["annotations"]
            ["applyset.kubernetes.io/contains-group-kinds"]
            .as_str()
            .unwrap()
            .to_string()
    };
    ok(&s.app.root, &["component", "rm", "web"]);
    assert_eq!(s.apply(&["--prune", "-c", "settings"]).status, 0);
    assert_eq!(kinds(&s), "ConfigMap,Deployment.apps,Service");
    assert_eq!(s.apply(&["--prune", "--dry-run=server"]).status, 0);
    assert_eq!(kinds(&s), "ConfigMap,Deployment.apps,Service");
    assert_eq!(s.apply(&["--prune"]).status, 0);
    assert!(s.cluster.gone("apps", "deployments", &s.ns, "web"));
    assert_eq!(kinds(&s), "ConfigMap");
    // Deleting the environment removes the parent too; with -c it stays.
    let run = s.kf("delete", &["-c", "settings"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(s.cluster.get("", "secrets", &s.ns, &parent_name).is_some());
    let run = s.kf("delete", &[]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(s.cluster.gone("", "secrets", &s.ns, &parent_name));
}

fn kf_with_env(
    dir: &std::path::Path,
    args: &[&str],
    vars: &[(&str, &str)],
    remove: &[&str],
) -> Run {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kf"));
    cmd.args(args).current_dir(dir).envs(vars.iter().copied());
    for v in remove {
        cmd.env_remove(v);
    }
    let out = cmd.output().unwrap();
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A kubeconfig for `server` through `proxy`, in a temp folder.
fn proxied_kubeconfig(server: &str, proxy: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: proxied\nclusters:\n- name: proxied\n  cluster:\n    server: {server}\n    proxy-url: {proxy}\ncontexts:\n- name: proxied\n  context:\n    cluster: proxied\n    user: u\nusers:\n- name: u\n  user:\n    token: t\n"
        ),
    )
    .unwrap();
    let path = path.to_string_lossy().into_owned();
    (dir, path)
}

const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "http_proxy",
    "https_proxy",
    "NO_PROXY",
    "no_proxy",
];

#[test]
fn a_kubeconfig_proxy_url_sends_every_request_through_the_proxy() {
    // The cluster's name does not resolve, so the apply only succeeds if every request
    // goes through proxy-url (kube's http-proxy feature tunnels with CONNECT, as client-go
    // does); the proxy forwards to the test server.
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    let proxy = support::proxy::Proxy::start(fake.url.trim_start_matches("http://"));
    let server = "http://api.kf-proxy.invalid:6443";
    ok(&s.app.root, &["env", "set", "default", "--server", server]);
    let (_dir, kubeconfig) = proxied_kubeconfig(server, &proxy.url);
    let run = kf_with_env(
        &s.app.root,
        &["apply", "--env", "default", "--kubeconfig", &kubeconfig],
        &[],
        PROXY_VARS,
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let targets = proxy.targets();
    assert!(!targets.is_empty());
    assert!(
        targets.iter().all(|t| t == "api.kf-proxy.invalid:6443"),
        "{targets:?}"
    );
    assert!(s.cluster.get("", "configmaps", &s.ns, "settings").is_some());
}

#[test]
fn a_proxy_that_is_down_is_named_with_the_server_and_nothing_goes_around_it() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let (_dir, kubeconfig) = proxied_kubeconfig(&fake.url, &proxy);
    fake.clear_requests();
    let run = kf_with_env(
        &s.app.root,
        &[
            "apply",
            "--env",
            "default",
            "--kubeconfig",
            &kubeconfig,
            "--timeout",
            "3s",
        ],
        &[],
        PROXY_VARS,
    );
    assert_eq!(run.status, 1, "{}", run.stdout);
    let wanted = format!("connection refused to {} via proxy {proxy}", fake.url);
    assert!(run.stderr.contains(&wanted), "{wanted}\n{}", run.stderr);
    assert!(fake.requests().is_empty(), "nothing sent around the proxy");
}

#[test]
fn a_server_that_is_down_is_named_with_the_cause() {
    let s = setup();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    ok(&s.app.root, &["env", "set", "default", "--server", &server]);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: {server}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: t\n"
        ),
    )
    .unwrap();
    let run = kf_in(
        &s.app.root,
        &[
            "apply",
            "--env",
            "default",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--timeout",
            "3s",
        ],
    );
    assert_eq!(run.status, 1, "{}", run.stdout);
    let wanted = format!("connection refused to {server}");
    assert!(run.stderr.contains(&wanted), "{wanted}\n{}", run.stderr);
    assert!(!run.stderr.contains("ServiceError"), "{}", run.stderr);
    // The cause is certain: one line, no retries, the cause said once.
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("connection refused").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("no API server for environment 'default' (context 'c')"),
        "{}",
        run.stderr
    );
}

/// A kubeconfig that is not there is named once (kube's own message quotes it twice), and
/// a kubeconfig with no contexts says so rather than listing nothing.
#[test]
fn a_missing_kubeconfig_or_one_without_contexts_is_said_plainly() {
    let s = setup();
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("config");
    let run = kf_in(
        &s.app.root,
        &[
            "status",
            "default",
            "--kubeconfig",
            missing.to_str().unwrap(),
        ],
    );
    assert_eq!(run.status, 1);
    let wanted = format!(
        "cannot read kubeconfig {}: does not exist",
        missing.display()
    );
    assert!(run.stderr.contains(&wanted), "{}", run.stderr);
    assert!(!run.stderr.contains("'\""), "{}", run.stderr);
    let home = tempfile::tempdir().unwrap();
    let run = kf_with_env(
        &s.app.root,
        &["status", "default"],
        &[("HOME", home.path().to_str().unwrap())],
        &["KUBECONFIG", "KUBERNETES_SERVICE_HOST"],
    );
    assert_eq!(run.status, 1);
    let wanted = format!(
        "{} does not exist",
        home.path().join(".kube/config").display()
    );
    assert!(run.stderr.contains(&wanted), "{}", run.stderr);
    std::fs::write(
        &missing,
        "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\n",
    )
    .unwrap();
    let run = kf_in(
        &s.app.root,
        &[
            "status",
            "default",
            "--kubeconfig",
            missing.to_str().unwrap(),
        ],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("the kubeconfig has no contexts"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("contexts: ."), "{}", run.stderr);
}

#[test]
fn without_a_kubeconfig_in_a_pod_kf_turns_to_the_in_cluster_config() {
    let s = setup();
    let home = tempfile::tempdir().unwrap();
    // No kubeconfig anywhere, KUBERNETES_SERVICE_HOST set: kf tries the pod's service
    // account (absent on a build machine, so it says why it cannot use it).
    let run = kf_with_env(
        &s.app.root,
        &["apply", "--env", "default"],
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("KUBERNETES_SERVICE_HOST", "127.0.0.1"),
            ("KUBERNETES_SERVICE_PORT", "6443"),
        ],
        &["KUBECONFIG"],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("in-cluster config (KUBERNETES_SERVICE_HOST and the service account token)"),
        "{}",
        run.stderr
    );
    // Outside a pod, the usual message.
    let run = kf_with_env(
        &s.app.root,
        &["apply", "--env", "default"],
        &[("HOME", home.path().to_str().unwrap())],
        &["KUBECONFIG", "KUBERNETES_SERVICE_HOST"],
    );
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("pass --kubeconfig"), "{}", run.stderr);
}

#[test]
fn a_sidecar_another_manager_added_survives_kfs_apply() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    // A mesh injects a sidecar container and an env var into kf's container, as its own
    // field manager: SSA merges containers and env by name.
    s.cluster.put(
        "apps",
        "deployments",
        &s.ns,
        serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": &s.ns},
        "spec": {"template": {"spec": {"containers": [
            {"name": "mesh-proxy", "image": "proxy:1"},
            {"name": "web", "env": [{"name": "MESH", "value": "on"}]}
        ]}}}}),
        "mesh-injector",
    );
    let run = s.apply(&[]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("deployment.apps/web -n {} unchanged", s.ns)),
        "{}",
        run.stdout
    );
    let web = s.cluster.get("apps", "deployments", &s.ns, "web").unwrap();
    let containers = web["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap();
    // Both containers, in whatever order the server merged them (a real one keeps the
    // live order and appends; the test server sorts by key).
    let mut names: Vec<&str> = containers
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, vec!["mesh-proxy", "web"], "{web}");
    let kf_container = containers.iter().find(|c| c["name"] == "web").unwrap();
    assert_eq!(kf_container["image"], "nginx:1.25");
    assert_eq!(kf_container["env"][0]["name"], "MESH");
    if s.cluster.fake().is_some() {
        let fields = web["metadata"]["managedFields"].to_string();
        assert!(
            fields.contains(r#"k:{\"name\":\"mesh-proxy\"}"#),
            "{fields}"
        );
    }
}

#[test]
fn a_discovery_that_never_answers_ends_within_the_timeout() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    fake.inject(Fault {
        method: Some(hyper::Method::GET),
        path: "/apis".into(),
        delay: Some(Duration::from_secs(3600)),
        times: usize::MAX,
        ..Fault::default()
    });
    for cmd in ["apply", "status", "delete", "diff"] {
        let start = std::time::Instant::now();
        let run = kf_in(
            &s.app.root,
            &[
                cmd,
                "--env",
                "default",
                "--kubeconfig",
                &s.kubeconfig,
                "--timeout",
                "3s",
                "--request-timeout",
                "1s",
            ],
        );
        let took = start.elapsed();
        assert_ne!(run.status, 0, "{cmd}");
        assert!(took < Duration::from_secs(7), "{cmd} took {took:?}");
        assert!(
            run.stderr.contains("discovery") && !run.stderr.contains("panicked"),
            "{cmd}: {}",
            run.stderr
        );
    }
    assert_eq!(
        fake.count(),
        1,
        "nothing but the test's namespace was written"
    );
}

#[test]
fn a_kind_the_cluster_no_longer_serves_says_what_replaced_it() {
    // MXJob left the training-operator in v1.9 (training-operator v1.9.0 manifests/base/crds
    // has no mxjobs CRD); a cluster without it gets a message saying so, not "install the CRD".
    let s = setup();
    if s.cluster.fake().is_none() {
        return;
    }
    ok(&s.app.root, &["generate", "mxnet-job", "mx"]);
    let run = s.apply(&["-c", "mx"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("does not serve kubeflow.org/v1 MXJob: MXJob is served only by the training-operator up to v1.8"),
        "{all}"
    );
}

/// kfctl named every app `ks_app`: two different app folders of one name and env in one
/// namespace. Each has its own app id (app.yaml `id`), so neither takes over, prunes or
/// deletes the other's objects; an app without an id (never upgraded) is refused too.
#[test]
fn two_apps_of_one_name_in_one_namespace_never_touch_each_others_objects() {
    let s = setup();
    assert_eq!(s.apply(&[]).status, 0);
    let id_a = s.app_id();
    let cm = s.cluster.get("", "configmaps", &s.ns, "settings").unwrap();
    assert_eq!(cm["metadata"]["labels"]["kf.dev/app-id"], id_a.as_str());

    // App B: the same files (name, env, components), another id.
    let b = tempfile::tempdir().unwrap();
    let b_root = b.path().join("app");
    for (path, bytes) in snapshot(&s.app.root) {
        let to = b_root.join(path.strip_prefix(&s.app.root).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    let yaml = read(b_root.join("app.yaml")).replace(&id_a, "bbbbbbbb22222222");
    write(b_root.join("app.yaml"), &yaml);
    let apply_b = |extra: &[&str]| {
        let mut args = vec!["apply", "--env", "default", "--kubeconfig", &s.kubeconfig];
        args.extend_from_slice(extra);
        kf_in(&b_root, &args)
    };
    let run = apply_b(&["--prune"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("it belongs to another kf app named 'app' (app id")
            && run.stderr.contains("--force-conflicts"),
        "{}",
        run.stderr
    );
    let delete_b = kf_in(
        &b_root,
        &["delete", "--env", "default", "--kubeconfig", &s.kubeconfig],
    );
    assert!(
        delete_b.stdout.contains("1 object deleted")
            && lines_with(&delete_b.stdout, "deleted")
                .iter()
                .all(|l| l.starts_with("secret/kf-app-default-bbbbbbbb22222222 ")
                    || l == "1 object deleted"),
        "only B's own ApplySet parent: {}",
        delete_b.stdout
    );
    assert!(s.cluster.get("apps", "deployments", &s.ns, "web").is_some());
    let cm = s.cluster.get("", "configmaps", &s.ns, "settings").unwrap();
    assert_eq!(cm["metadata"]["labels"]["kf.dev/app-id"], id_a.as_str());

    // B without any id (an app never upgraded) may not take them over either, and is told why.
    let yaml = read(b_root.join("app.yaml")).replace("id: bbbbbbbb22222222\n", "");
    write(b_root.join("app.yaml"), &yaml);
    let run = apply_b(&[]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("has no id in app.yaml"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("run `kf upgrade`"), "{}", run.stderr);

    // A still owns and prunes its own.
    ok(&s.app.root, &["component", "rm", "settings"]);
    let run = s.apply(&["--prune"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(s.cluster.gone("", "configmaps", &s.ns, "settings"));
}

/// `--api-spec server`: the env's library is made from the spec its API server serves
/// (`/openapi/v2`), and its k8sVersion is the server's. The test server serves kf's
/// v1.33.0 spec without batch/v1 CronJob; v1.20's real one has no batch/v1 CronJob
/// either: in both, the new library has `k.batch.v1.job` and not `k.batch.v1.cronJob`.
#[test]
fn env_set_api_spec_server_makes_the_library_from_the_servers_own_spec() {
    let s = setup();
    // The test server's /version says v1.33.0-kf-test.
    let git = match s.cluster.fake() {
        Some(_) => "v1.33.0-kf-test".to_string(),
        None => {
            let (_, version) = s.cluster.request(http::Method::GET, "/version", None);
            version["gitVersion"].as_str().unwrap().to_string()
        }
    };
    let wanted = git.split(['-', '+']).next().unwrap();
    let kubeconfig = [("KUBECONFIG", s.kubeconfig.as_str())];
    ok_with_env(
        &s.app.root,
        &["env", "set", "default", "--api-spec", "server"],
        &kubeconfig,
    );
    let app_yaml = read(s.app.root.join("app.yaml"));
    assert!(
        app_yaml.contains(&format!("k8sVersion: {wanted}")),
        "{app_yaml}"
    );
    let lib = s.app.root.join("lib/ksonnet-lib").join(wanted);
    assert!(lib.join("k.libsonnet").is_file() && lib.join("swagger.json").is_file());
    write(
        s.app.root.join("components/batch.jsonnet"),
        "local k = import 'k.libsonnet';\nlocal job = k.batch.v1.job;\njob.new() + job.mixin.metadata.withName('once')\n",
    );
    let shown = ok(&s.app.root, &["show", "default", "-c", "batch"]);
    assert!(shown.contains("kind: Job"), "{shown}");
    write(
        s.app.root.join("components/batch.jsonnet"),
        "local k = import 'k.libsonnet';\nk.batch.v1.cronJob.new()\n",
    );
    let err = fails(&s.app.root, &["show", "default", "-c", "batch"]);
    assert!(err.contains("no such field: cronJob"), "{err}");

    // `env add` asks the new env's server; an unreachable one is an error naming it, and
    // nothing is written.
    ok_with_env(
        &s.app.root,
        &[
            "env",
            "add",
            "second",
            "--server",
            &s.cluster.url(),
            "--api-spec",
            "server",
        ],
        &kubeconfig,
    );
    assert!(read(s.app.root.join("app.yaml")).contains("second"));
    let before = read(s.app.root.join("app.yaml"));
    let run = support::kf_in_with_env(
        &s.app.root,
        &[
            "env",
            "set",
            "second",
            "--server",
            "https://127.0.0.1:9",
            "--api-spec",
            "server",
        ],
        &kubeconfig,
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stderr.contains("127.0.0.1:9"), "{}", run.stderr);
    assert_eq!(read(s.app.root.join("app.yaml")), before);
    // kf init has no cluster to ask yet.
    let dir = tempfile::tempdir().unwrap();
    let err = fails(dir.path(), &["init", "x", "--api-spec", "server"]);
    assert!(
        err.contains("kf env set default --api-spec server"),
        "{err}"
    );
    assert!(!dir.path().join("x").exists());
}

/// An object the server holds with a deletionTimestamp (a finalizer or the garbage
/// collector has yet to finish) is not live: status says Terminating, diff shows it as
/// made anew, and apply waits for it to go and, when it does not within --timeout, fails
/// naming it instead of calling it unchanged. (tests/envtest.rs runs the whole sequence,
/// finalizers included, on a real server; this server only holds the timestamp.)
#[test]
fn an_object_being_deleted_is_never_unchanged_or_ready() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    assert_eq!(s.apply(&[]).status, 0);
    let mut live = s
        .cluster
        .get("", "configmaps", &s.ns, "settings")
        .expect("applied");
    live["metadata"]["deletionTimestamp"] = serde_json::json!("2026-12-06T10:00:00Z");
    live["metadata"]["finalizers"] = serde_json::json!(["example.com/hold"]);
    fake.put("", "configmaps", &s.ns, live, "someone-else");
    let held = s.cluster.get("", "configmaps", &s.ns, "settings").unwrap();
    if held["metadata"]["deletionTimestamp"].is_null() {
        panic!("the test server did not keep the timestamp: {held}");
    }
    let status = s.kf("status", &[]);
    assert_eq!(status.status, 1, "{}", status.stdout);
    assert!(
        status
            .stdout
            .lines()
            .any(|l| l.contains("configmap/settings")
                && l.contains("Terminating")
                && l.contains("example.com/hold")),
        "{}",
        status.stdout
    );
    let diff = s.kf("diff", &[]);
    assert_eq!(diff.status, 1, "{}\n{}", diff.stdout, diff.stderr);
    assert!(diff.stdout.contains("(being deleted)"), "{}", diff.stdout);
    let apply = s.apply(&["--timeout", "2s"]);
    assert_ne!(apply.status, 0, "{}", apply.stdout);
    let all = format!("{}{}", apply.stdout, apply.stderr);
    assert!(
        all.contains("configmap/settings")
            && all.contains("being deleted since 2026-12-06T10:00:00Z")
            && all.contains("remove the finalizers"),
        "{all}"
    );
    assert!(!all.contains("configmap/settings unchanged"), "{all}");
}

// ---- A throttling server is obeyed as a whole; counts that add up ----

/// A component of `n` ConfigMaps (`cm-1`…), for tests that need many objects of a kind.
fn many_config_maps(s: &Setup, n: usize) {
    write(
        s.app.root.join("components/many.jsonnet"),
        &format!(
            "std.map(function(i) {{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'cm-%d' % i }}, data: {{ i: '%d' % i }} }}, std.range(1, {n}))\n"
        ),
    );
}

/// Under 429 (Retry-After 1) on every ConfigMap PATCH, kf backs off as one client: the
/// wait is every request's and fewer go at once, so about one PATCH a second goes after
/// the first wave. Before, each of 8 requests in flight retried on its own (8 a second).
#[test]
fn a_throttling_server_is_obeyed_by_the_client_as_a_whole() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    many_config_maps(&s, 40);
    fake.inject(Fault {
        method: Some(hyper::Method::PATCH),
        path: "/configmaps/".into(),
        status: Some(429),
        retry_after: Some(1),
        times: usize::MAX,
        ..Fault::default()
    });
    fake.clear_requests();
    let run = s.apply(&["--timeout", "6s"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    let patches = fake
        .requests()
        .iter()
        .filter(|(m, p)| m == "PATCH" && p.contains("/configmaps/"))
        .count();
    let t0 = fake.timed_requests().first().map(|r| r.2).unwrap();
    let times: Vec<String> = fake
        .timed_requests()
        .iter()
        .filter(|(m, p, _)| m == "PATCH" && p.contains("/configmaps/"))
        .map(|(_, _, t)| format!("{:.2}", (*t - t0).as_secs_f64()))
        .collect();
    // At most a first wave (--concurrency 8), then about one a second for the rest of
    // 6 s; before, 8 a second: about 50.
    assert!(
        (3..=20).contains(&patches),
        "{patches} PATCHes in 6 s, at {times:?}\n{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("the server is overloaded (429): kf now sends at most"),
        "{}",
        run.stderr
    );
}

/// `kf status` reads the objects of a kind in a namespace with one LIST (kf's labels),
/// not one GET each: `--wait` polls a request per kind a round.
#[test]
fn status_reads_a_kinds_objects_with_one_list() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    many_config_maps(&s, 30);
    assert_eq!(s.apply(&[]).status, 0);
    fake.clear_requests();
    let run = s.kf("status", &[]);
    assert_eq!(run.status, 0, "{}\n{}", run.stdout, run.stderr);
    let gets: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|(m, p)| m == "GET" && p.contains("/configmaps"))
        .map(|(_, p)| p)
        .collect();
    assert_eq!(gets.len(), 1, "{gets:?}");
    assert!(gets[0].contains("configmaps?labelSelector="), "{gets:?}");
    assert!(run.stdout.matches("Ready").count() >= 31, "{}", run.stdout);
}

/// A prune LIST answered 404 (a kind gone since discovery) is said, as a 403 is (before,
/// it was skipped silently); `kf diff --prune` that could not list fails (exit 2) instead
/// of passing with a warning.
#[test]
fn a_prune_list_that_fails_is_said_and_diff_prune_fails() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    assert_eq!(s.apply(&[]).status, 0);
    ok(&s.app.root, &["component", "rm", "web"]);
    fake.inject(Fault {
        method: Some(hyper::Method::GET),
        path: "/api/v1/configmaps".into(),
        status: Some(404),
        times: usize::MAX,
        ..Fault::default()
    });
    let run = s.apply(&["--prune"]);
    assert!(
        run.stderr.contains("prune could not check configmap") && run.stderr.contains("404"),
        "{}",
        run.stderr
    );
    // As for a kind the user may not list: said, and the other kinds are pruned.
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(s.cluster.gone("apps", "deployments", &s.ns, "web"));

    let run = s.kf("diff", &["--prune"]);
    assert_eq!(run.status, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("the diff is incomplete"),
        "{}",
        run.stderr
    );
}

/// The summary counts every prune candidate: deleted, already gone, or failed; and a
/// failed DELETE names its request once.
#[test]
fn the_summary_counts_failed_prunes_and_errors_name_the_request_once() {
    let s = setup();
    let Some(fake) = s.cluster.fake() else { return };
    assert_eq!(s.apply(&[]).status, 0);
    ok(&s.app.root, &["component", "rm", "web"]);
    fake.inject(Fault {
        method: Some(hyper::Method::DELETE),
        path: "/services/web".into(),
        status: Some(500),
        times: usize::MAX,
        ..Fault::default()
    });
    fake.inject(Fault {
        method: Some(hyper::Method::DELETE),
        path: "/deployments/web".into(),
        drop: true,
        times: usize::MAX,
        ..Fault::default()
    });
    let run = s.apply(&["--prune", "--timeout", "20s"]);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("1 unchanged, 2 failed to prune")
            || run.stderr.contains("1 unchanged, 2 failed to prune"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("DELETE /api/v1/namespaces/"), "{all}");
    assert!(all.contains("DELETE /apis/apps/v1/namespaces/"), "{all}");
    for line in all.lines().filter(|l| l.contains("DELETE ")) {
        assert_eq!(line.matches("DELETE ").count(), 1, "{line}");
    }
}
