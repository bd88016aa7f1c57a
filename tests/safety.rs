//! Safety: the import sandbox, the app write lock, crash-safe writes and bounded
//! evaluation.

mod support;

use std::process::{Command, Stdio};

use support::*;

fn component(app: &TempApp, name: &str, source: &str) {
    write(app.root.join(format!("components/{name}.jsonnet")), source);
}

#[test]
fn imports_cannot_read_outside_the_app_or_the_jpaths() {
    let app = new_app();
    component(
        &app,
        "leak",
        "{\n  apiVersion: 'v1',\n  kind: 'ConfigMap',\n  metadata: { name: 'leak' },\n  data: { passwd: importstr '/etc/passwd' },\n}\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("components/leak.jsonnet:5"), "{err}");
    assert!(
        err.contains("import '/etc/passwd'") && err.contains("outside the app"),
        "{err}"
    );
    std::fs::remove_file(app.root.join("components/leak.jsonnet")).unwrap();

    // `..` out of the app, and a symlink inside the app that points out of it.
    let outside = app.root.parent().unwrap().join("secret.txt");
    write(&outside, "kubeconfig token\n");
    component(
        &app,
        "dots",
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' }, data: { s: importstr '../../secret.txt' } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("outside the app") && err.contains("components/dots.jsonnet:1"),
        "{err}"
    );
    std::fs::remove_file(app.root.join("components/dots.jsonnet")).unwrap();

    std::os::unix::fs::symlink(&outside, app.root.join("lib/innocent.txt")).unwrap();
    component(
        &app,
        "link",
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'l' }, data: { s: importstr 'innocent.txt' } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("outside the app"), "{err}");
    assert!(!err.contains("kubeconfig token"));

    // A folder passed with -J is part of the sandbox.
    let jdir = app.root.parent().unwrap();
    let out = ok(
        &app.root,
        &[
            "show",
            "default",
            "-J",
            jdir.to_str().unwrap(),
            "-c",
            "link",
        ],
    );
    assert!(out.contains("kubeconfig token"), "{out}");
}

#[test]
fn twenty_concurrent_param_sets_lose_nothing() {
    let app = new_app();
    ok(&app.root, &["generate", "configMap", "settings"]);
    let children: Vec<_> = (0..20)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_kf"))
                .args([
                    "param",
                    "set",
                    "settings",
                    &format!("key{i}"),
                    &i.to_string(),
                ])
                .current_dir(&app.root)
                .env_remove("KF_FAULT_POINT")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let params = read(app.root.join("components/params.libsonnet"));
    for i in 0..20 {
        assert!(
            params.contains(&format!("key{i}: {i},")),
            "key{i} lost:\n{params}"
        );
    }
    let listed = ok(&app.root, &["param", "list", "settings"]);
    assert_eq!(
        listed.lines().filter(|l| l.contains(" key")).count(),
        20,
        "{listed}"
    );
}

#[test]
fn a_held_lock_times_out_with_a_clear_error_and_changes_nothing() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let before = snapshot(&app.root);
    let holder = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(app.root.join(".kf.lock"))
        .unwrap();
    holder.lock().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(["param", "set", "ns", "name", "other"])
        .current_dir(&app.root)
        .env("KF_LOCK_TIMEOUT", "0.3")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("another kf command") && err.contains(".kf.lock"),
        "{err}"
    );
    // Reading needs no lock.
    ok(&app.root, &["show", "default"]);
    holder.unlock().unwrap();
    assert_eq!(snapshot(&app.root), before);
}

#[test]
fn a_write_killed_midway_leaves_the_old_file_intact() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let params = app.root.join("components/params.libsonnet");
    for point in ["after-partial-write", "before-rename"] {
        let before = read(&params);
        let out = Command::new(env!("CARGO_BIN_EXE_kf"))
            .args(["param", "set", "ns", "name", "crashed"])
            .current_dir(&app.root)
            .env("KF_FAULT_POINT", point)
            .output()
            .unwrap();
        assert!(!out.status.success(), "kf was to be killed at {point}");
        assert_eq!(read(&params), before, "{point}");
        // No temp file is mistaken for a component, and the app still renders.
        assert!(ok(&app.root, &["show", "default"]).contains("name: ns"));
    }
    ok(&app.root, &["param", "set", "ns", "name", "fine"]);
    assert!(ok(&app.root, &["show", "default"]).contains("name: fine"));
}

#[test]
fn runaway_evaluation_ends_with_a_clear_error() {
    let app = new_app();
    component(
        &app,
        "forever",
        "local f(x) = f(x + 1) + 1;\n{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f' }, data: { n: std.toString(f(0)) } }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'forever'") && err.contains("stack"),
        "{err}"
    );
    let err = fails(&app.root, &["show", "default", "--max-stack", "50"]);
    assert!(err.contains("stack"), "{err}");
    std::fs::remove_file(app.root.join("components/forever.jsonnet")).unwrap();

    // A huge std.range: beyond 32 bits jrsonnet refuses it; below, kf refuses to
    // manifest the array instead of eating all memory.
    component(
        &app,
        "huge",
        "{ apiVersion: 'v1', kind: 'List', items: std.range(0, 2000000000) }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'huge'") && err.contains("at most 1000000 items"),
        "{err}"
    );
    component(
        &app,
        "huge",
        "{ apiVersion: 'v1', kind: 'List', items: std.range(0, 1e12) }\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'huge'") && err.contains("out of bounds"),
        "{err}"
    );
}
