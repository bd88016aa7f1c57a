//! The apply/diff/prune/delete cycle against a real cluster, when you point the tests at
//! one: `KF_TEST_KUBECONFIG=~/.kube/config cargo test --test real_cluster -- --ignored`.
//! It works in a fresh namespace `kf-test-<pid>` on the kubeconfig's current context's
//! cluster, and deletes what it made. See docs/testing.md.

mod support;

use support::*;

fn real_cluster() -> Option<(String, String)> {
    let path = std::env::var("KF_TEST_KUBECONFIG").ok()?;
    let text = std::fs::read_to_string(&path).expect("KF_TEST_KUBECONFIG is readable");
    let kc: serde_json::Value = serde_saphyr::from_str(&text).expect("a YAML kubeconfig");
    let current = kc["current-context"].as_str().expect("a current-context");
    let ctx = kc["contexts"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == current)?;
    let cluster = ctx["context"]["cluster"].as_str()?;
    let server = kc["clusters"]
        .as_array()?
        .iter()
        .find(|c| c["name"] == cluster)?["cluster"]["server"]
        .as_str()?
        .to_string();
    Some((path, server))
}

#[test]
#[ignore = "needs a real cluster: set KF_TEST_KUBECONFIG"]
fn apply_diff_prune_delete_on_a_real_cluster() {
    let Some((kubeconfig, server)) = real_cluster() else {
        panic!("set KF_TEST_KUBECONFIG to a kubeconfig whose current context may be used");
    };
    let ns = format!("kf-test-{}", std::process::id());
    let app = new_app();
    point_default_env(&app.root, &server, &ns);
    ok(
        &app.root,
        &["generate", "namespace", "test-ns", &format!("--name={ns}")],
    );
    generate_settings_and_web(&app.root, "nginx:1.27");
    let kf = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--env", "default", "--kubeconfig", &kubeconfig]);
        kf_in(&app.root, &all)
    };

    let first = kf(&["apply"]);
    assert_eq!(first.status, 0, "{}\n{}", first.stdout, first.stderr);
    assert!(
        first.stdout.contains("4 objects: 4 created"),
        "{}",
        first.stdout
    );
    let again = kf(&["apply"]);
    assert!(
        again.stdout.contains("0 configured, 4 unchanged"),
        "{}",
        again.stdout
    );
    assert_eq!(kf(&["diff"]).status, 0, "no differences after apply");

    ok(
        &app.root,
        &["param", "set", "web", "replicas", "2", "--env", "default"],
    );
    assert_eq!(kf(&["diff"]).status, 1);
    let third = kf(&["apply"]);
    assert!(
        third.stdout.contains("deployment.apps/web -n"),
        "{}",
        third.stdout
    );
    assert!(third.stdout.contains("1 configured"), "{}", third.stdout);

    ok(&app.root, &["component", "rm", "settings"]);
    let pruned = kf(&["apply", "--prune"]);
    assert!(
        pruned.stdout.contains("configmap/settings -n") && pruned.stdout.contains("1 pruned"),
        "{}",
        pruned.stdout
    );

    let gone = kf(&["delete"]);
    assert_eq!(gone.status, 0, "{}", gone.stderr);
}
