//! Safety: the import sandbox, the app write lock, crash-safe writes and bounded
//! evaluation.

mod support;

use std::process::{Command, Stdio};

use support::sentinel::Sentinel;
use support::*;

fn component(app: &TempApp, name: &str, source: &str) {
    write(app.root.join(format!("components/{name}.jsonnet")), source);
}

/// A component's source: a ConfigMap whose one value is `expr` as a string.
fn config_map_of(expr: &str) -> String {
    format!(
        "{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'd' }}, data: {{ a: std.toString({expr}) }} }}\n"
    )
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
                    // Not params of configMap: this is about the edits, not the check.
                    "--force",
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

// ---------------------------------------------------------------------------------------
// An app folder is untrusted input: every attack below must end with a clear error and
// leave a sentinel folder beside the app exactly as it was.

fn symlink(target: impl AsRef<std::path::Path>, link: impl AsRef<std::path::Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// Replace a folder of the app by a symlink to a copy of it outside the app.
fn move_outside(app: &TempApp, sentinel: &mut Sentinel, rel: &str) {
    let inside = app.root.join(rel);
    let outside = sentinel.dir.join(rel.replace('/', "-"));
    copy_dir(&inside, &outside);
    std::fs::remove_dir_all(&inside).unwrap();
    symlink(&outside, &inside);
    sentinel.refresh();
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let kind = e.file_type().unwrap();
        if kind.is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else if kind.is_symlink() {
            symlink(
                std::fs::read_link(e.path()).unwrap(),
                to.join(e.file_name()),
            );
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn set_env_path(app: &TempApp, env: &str, path: &str) {
    let yaml = read(app.root.join("app.yaml"));
    let marker = format!("  {env}:\n");
    let at = yaml.find(&marker).expect("env in app.yaml");
    let path_line = yaml[at..].find("    path: ").unwrap() + at;
    let end = yaml[path_line..].find('\n').unwrap() + path_line;
    let edited = format!("{}    path: {path}{}", &yaml[..path_line], &yaml[end..]);
    write(app.root.join("app.yaml"), &edited);
}

#[test]
fn an_env_path_outside_environments_is_refused_when_app_yaml_is_read() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let mut sentinel = Sentinel::beside(&app);
    write(sentinel.dir.join("victim/params.libsonnet"), "{}\n");
    sentinel.refresh();
    let victim = sentinel.dir.join("victim");
    for path in [
        "../../outside/victim",
        victim.to_str().unwrap(),
        "prod/../../x",
    ] {
        set_env_path(&app, "prod", path);
        let before = snapshot(&app.root);
        for args in [
            &["param", "set", "ns", "name", "x", "--env", "prod"][..],
            &["env", "rm", "prod"],
            &["show", "prod"],
        ] {
            let err = fails(&app.root, args);
            assert!(
                err.contains("environment 'prod' has path") && err.contains("below environments/"),
                "{args:?}: {err}"
            );
        }
        assert_eq!(snapshot(&app.root), before);
        sentinel.assert_unchanged();
    }
}

#[test]
fn pkg_remove_of_a_path_like_name_deletes_nothing() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let sentinel = Sentinel::beside(&app);
    let before = snapshot(&app.root);
    for spec in [
        "../components",
        "kubeflow/..",
        "../../outside/precious",
        ".kf-old-x/y",
    ] {
        let err = fails(&app.root, &["pkg", "remove", spec]);
        assert!(
            err.contains("invalid") || err.contains("name a package as"),
            "{spec}: {err}"
        );
    }
    assert_eq!(snapshot(&app.root), before);
    sentinel.assert_unchanged();
}

#[test]
fn pkg_remove_of_a_symlinked_vendor_folder_deletes_nothing_outside() {
    let app = new_app();
    let sentinel = Sentinel::beside(&app);
    // vendor/evil -> outside: `evil/precious` names outside/precious.
    symlink(&sentinel.dir, app.root.join("vendor/evil"));
    let err = fails(&app.root, &["pkg", "remove", "evil/precious"]);
    assert!(err.contains("outside the app"), "{err}");
    // vendor/kubeflow/precious -> outside/precious: the link itself is not followed.
    std::fs::create_dir_all(app.root.join("vendor/kubeflow")).unwrap();
    symlink(
        sentinel.dir.join("precious"),
        app.root.join("vendor/kubeflow/precious"),
    );
    let err = fails(&app.root, &["pkg", "remove", "kubeflow/precious"]);
    assert!(err.contains("symlink"), "{err}");
    sentinel.assert_unchanged();
    assert!(app.root.join("vendor/kubeflow/precious").is_symlink());
}

#[test]
fn a_symlinked_components_env_or_vendor_folder_is_never_written_through() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let mut sentinel = Sentinel::beside(&app);

    move_outside(&app, &mut sentinel, "components");
    let err = fails(&app.root, &["generate", "namespace", "ns2"]);
    assert!(err.contains("outside the app"), "{err}");
    let err = fails(&app.root, &["param", "set", "ns", "name", "x"]);
    assert!(err.contains("outside the app"), "{err}");
    sentinel.assert_unchanged();

    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let mut sentinel = Sentinel::beside(&app);
    move_outside(&app, &mut sentinel, "environments/prod");
    let err = fails(
        &app.root,
        &["param", "set", "ns", "name", "x", "--env", "prod"],
    );
    assert!(err.contains("outside the app"), "{err}");
    let err = fails(&app.root, &["env", "rm", "prod"]);
    assert!(err.contains("symlink"), "{err}");
    sentinel.assert_unchanged();

    let app = new_app();
    let mut sentinel = Sentinel::beside(&app);
    move_outside(&app, &mut sentinel, "vendor");
    let before = snapshot(&app.root);
    let err = fails(&app.root, &["generate", "ambassador", "amb"]);
    assert!(err.contains("outside the app"), "{err}");
    assert_eq!(snapshot(&app.root), before, "no half-generated component");
    sentinel.assert_unchanged();
}

#[test]
fn a_yaml_component_symlinked_to_a_kubeconfig_is_not_rendered() {
    let app = new_app();
    let sentinel = Sentinel::beside(&app);
    for name in ["leak.yaml", "leak2.json"] {
        symlink(
            sentinel.dir.join("kubeconfig"),
            app.root.join("components").join(name),
        );
        let err = fails(&app.root, &["show", "default"]);
        assert!(err.contains("outside the app"), "{err}");
        assert!(!err.contains("SECRET-TOKEN"), "{err}");
        std::fs::remove_file(app.root.join("components").join(name)).unwrap();
    }
    sentinel.assert_unchanged();
}

#[test]
fn a_lock_file_that_is_a_symlink_or_a_fifo_is_refused_without_hanging() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let sentinel = Sentinel::beside(&app);
    let lock = app.root.join(".kf.lock");
    let _ = std::fs::remove_file(&lock);
    symlink(sentinel.dir.join("created-by-kf"), &lock);
    let err = fails(&app.root, &["param", "set", "ns", "name", "x"]);
    assert!(err.contains(".kf.lock is a symlink"), "{err}");
    sentinel.assert_unchanged();

    std::fs::remove_file(&lock).unwrap();
    let status = Command::new("mkfifo").arg(&lock).status().unwrap();
    assert!(status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(["param", "set", "ns", "name", "x"])
        .current_dir(&app.root)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("kf hangs on a FIFO lock file");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a FIFO, not a regular file"), "{err}");
    sentinel.assert_unchanged();
}

#[test]
fn a_git_ref_starting_with_a_dash_never_reaches_git() {
    let app = new_app();
    let sentinel = Sentinel::beside(&app);
    let before = snapshot(&app.root);
    for spec in [
        "kubeflow/argo@--pathspec-from-file=/etc/passwd",
        "team/web@--upload-pack=touch ../outside/pwned",
        "team/web@-c",
    ] {
        let err = fails(&app.root, &["pkg", "install", spec]);
        assert!(
            err.contains("starts with '-'") || err.contains("not a usable git ref"),
            "{spec}: {err}"
        );
        assert!(!err.contains("root:"), "{err}");
    }
    // A ref at the end of a registry URI is checked the same way, before git runs.
    let err = fails(
        &app.root,
        &[
            "registry",
            "add",
            "evil",
            "https://example.invalid/r.git@--upload-pack=touch",
        ],
    );
    assert!(err.contains("starts with '-'"), "{err}");
    assert_eq!(snapshot(&app.root), before);
    sentinel.assert_unchanged();
}

#[test]
fn a_malformed_kubeconfig_error_does_not_print_its_token() {
    let app = new_app();
    let sentinel = Sentinel::beside(&app);
    let kubeconfig = app.root.parent().unwrap().join("bad-kubeconfig");
    write(
        &kubeconfig,
        "apiVersion: v1\nusers:\n- name: u\n  user:\n    token: SECRET-TOKEN-123\n   bad: [\n",
    );
    let err = fails(
        &app.root,
        &[
            "status",
            "default",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
        ],
    );
    assert!(
        err.contains("bad-kubeconfig") && err.contains("line 6"),
        "{err}"
    );
    assert!(!err.contains("SECRET-TOKEN"), "{err}");
    sentinel.assert_unchanged();
}

/// A vendored package with one prototype whose header says `header`.
fn vendored_prototype(app: &TempApp, header: &str) {
    let pkg = app.root.join("vendor/local/evil");
    write(
        pkg.join("parts.yaml"),
        "name: evil\napiVersion: 0.0.1\nkind: ksonnet.io/parts\ndescription: evil\n",
    );
    write(
        pkg.join("prototypes/evil.jsonnet"),
        &format!(
            "// @apiVersion 0.1\n// @name io.ksonnet.pkg.evil\n// @description Evil.\n// @shortDescription Evil\n// @param name string Name\n{header}\n{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: import 'param://name' }}, data: {{ o: std.toString(import 'param://o') }} }}\n"
        ),
    );
}

#[test]
fn a_prototype_default_is_reprinted_never_pasted_into_params() {
    let app = new_app();
    let sentinel = Sentinel::beside(&app);
    vendored_prototype(
        &app,
        r#"// @optionalParam o object {"a":1},"evil":{"b":2} Injected"#,
    );
    let before = snapshot(&app.root);
    let err = fails(&app.root, &["generate", "evil", "x"]);
    assert!(
        err.contains("default for 'o'") && err.contains("--o"),
        "{err}"
    );
    assert_eq!(snapshot(&app.root), before);

    for (default, shown) in [
        (r#"{"a":1}"#, r#"o: "{\"a\": 1}""#),
        ("{a:1,b:[1,2]}", r#"o: "{\"a\": 1, \"b\": [1, 2]}""#),
    ] {
        vendored_prototype(&app, &format!("// @optionalParam o object {default} Fine"));
        ok(&app.root, &["generate", "evil", "x"]);
        let params = read(app.root.join("components/params.libsonnet"));
        assert!(!params.contains("evil:"), "{params}");
        let shown_out = ok(&app.root, &["show", "default"]);
        assert!(shown_out.contains(shown), "{shown_out}");
        ok(&app.root, &["component", "rm", "x"]);
    }
    vendored_prototype(
        &app,
        "// @optionalParam o string 'a'+importstr'/etc/passwd' Reads",
    );
    let err = fails(&app.root, &["generate", "evil", "x"]);
    assert!(
        err.contains("default for 'o'") && !err.contains("root:"),
        "{err}"
    );
    sentinel.assert_unchanged();
}

#[test]
fn an_env_whose_folder_is_missing_is_an_error_naming_it() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    ok(
        &app.root,
        &["param", "set", "web", "replicas", "5", "--env", "prod"],
    );
    std::fs::remove_dir_all(app.root.join("environments/prod")).unwrap();
    for args in [&["show", "prod"][..], &["param", "list", "--env", "prod"]] {
        let err = fails(&app.root, args);
        assert!(
            err.contains("environment 'prod' has no folder") && err.contains("environments/prod"),
            "{args:?}: {err}"
        );
    }
    ok(&app.root, &["show", "default"]);
}

const WEB_PARAMS: &str = "{\n  global: {},\n  components: {\n    web: {\n      containerPort: 80,\n      image: \"nginx\",\n      name: \"web\",\n      replicas: 1,\n      servicePort: 80,\n      type: \"ClusterIP\",\n    },\n  },\n}\n";

#[test]
fn param_set_edits_the_field_that_wins_or_refuses() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    let params = app.root.join("components/params.libsonnet");
    let shapes = [
        ("a computed key", WEB_PARAMS.replace("    web: {", "    [\"we\" + \"b\"]: {")),
        (
            "a later components+",
            WEB_PARAMS.trim_end().to_string() + " + { components+: { web+: { replicas: 7 } } }\n",
        ),
        (
            "a local holding components",
            "local c = { web: { containerPort: 80, image: 'nginx', name: 'web', replicas: 1, servicePort: 80, type: 'ClusterIP' } };\n{ global: {}, components: c }\n".to_string(),
        ),
        (
            "a local base overridden",
            format!("local base = {};\nbase + {{ components+: {{ web+: {{ replicas: 2 }} }} }}\n", WEB_PARAMS.trim_end()),
        ),
    ];
    for (shape, text) in shapes {
        write(&params, &text);
        let rendered = ok(&app.root, &["show", "default"]);
        let err = fails(&app.root, &["param", "set", "web", "replicas", "5"]);
        assert!(
            err.contains("components/params.libsonnet"),
            "{shape}: {err}"
        );
        assert_eq!(read(&params), text, "{shape}: the file was changed");
        assert_eq!(ok(&app.root, &["show", "default"]), rendered, "{shape}");
    }
    // Unsetting a key another field sets again is refused too.
    let text =
        WEB_PARAMS.trim_end().to_string() + " + { components+: { web+: { replicas: 7 } } }\n";
    write(&params, &text);
    let err = fails(&app.root, &["param", "unset", "web", "replicas"]);
    assert!(
        err.contains("cannot unset replicas") && err.contains("still be 7"),
        "{err}"
    );
    assert_eq!(read(&params), text);
    // The usual shape still works, and the env's own file too.
    write(&params, WEB_PARAMS);
    ok(&app.root, &["param", "set", "web", "replicas", "5"]);
    ok(
        &app.root,
        &["param", "set", "web", "replicas", "6", "--env", "prod"],
    );
    assert!(ok(&app.root, &["show", "default"]).contains("replicas: 5"));
    assert!(ok(&app.root, &["show", "prod"]).contains("replicas: 6"));
    // An env params file overridden after kf's field refuses too.
    let env_params = app.root.join("environments/prod/params.libsonnet");
    let text = read(&env_params).trim_end().to_string()
        + " + { components+: { web+: { replicas: 9 } } }\n";
    write(&env_params, &text);
    let err = fails(
        &app.root,
        &["param", "set", "web", "replicas", "3", "--env", "prod"],
    );
    assert!(err.contains("still be 9"), "{err}");
    assert_eq!(read(&env_params), text);
}

#[test]
fn a_params_file_with_a_byte_order_mark_renders_and_edits() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    let params = app.root.join("components/params.libsonnet");
    write(&params, &format!("\u{feff}{WEB_PARAMS}"));
    assert!(ok(&app.root, &["show", "default"]).contains("replicas: 1"));
    ok(&app.root, &["param", "set", "web", "replicas", "4"]);
    assert!(ok(&app.root, &["show", "default"]).contains("replicas: 4"));
    assert!(read(&params).starts_with("\u{feff}{\n"), "the mark is kept");
    ok(&app.root, &["generate", "namespace", "ns"]);
    assert!(ok(&app.root, &["param", "list"]).contains("ns"));
}

fn deep_sources() -> Vec<(&'static str, String)> {
    let n = 3000;
    vec![
        ("arrays", format!("{}{}", "[".repeat(n), "]".repeat(n))),
        ("objects", format!("{}1{}", "{a:".repeat(n), "}".repeat(n))),
        (
            "ifs",
            format!("{}1{}", "if true then ".repeat(n), " else 0".repeat(n)),
        ),
        ("a 1+1 chain", vec!["1"; n].join("+")),
    ]
}

#[test]
fn deep_nesting_fails_with_a_message_never_a_crash() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    for (what, expr) in deep_sources() {
        component(&app, "deep", &config_map_of(&expr));
        let r = kf_in(&app.root, &["show", "default"]);
        assert!(
            r.status == 0 || r.status == 1,
            "{what}: exit {} {}",
            r.status,
            r.stderr
        );
        if r.status == 1 {
            assert!(
                r.stderr.contains("component 'deep'"),
                "{what}: {}",
                r.stderr
            );
        }
        // The same nesting in a params file: param list and param set end cleanly too.
        let params = app.root.join("components/params.libsonnet");
        let saved = read(&params);
        write(
            &params,
            &saved.replacen("global: {", &format!("deep: {expr},\n  global: {{"), 1),
        );
        for args in [&["param", "list"][..], &["param", "set", "ns", "name", "x"]] {
            let r = kf_in(&app.root, args);
            assert!(
                r.status == 0 || r.status == 1,
                "{what} {args:?}: exit {} {}",
                r.status,
                r.stderr
            );
            assert!(
                !r.stderr.contains("overflow"),
                "{what} {args:?}: {}",
                r.stderr
            );
        }
        write(&params, &saved);
    }
    // Beyond the limit: refused before parsing, with the file and line.
    component(
        &app,
        "deep",
        &format!("{}{}\n", "[".repeat(30000), "]".repeat(30000)),
    );
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'deep'")
            && err.contains("components/deep.jsonnet:1: nested more than"),
        "{err}"
    );
    // The same in a params file: param set refuses it before editing, naming file and
    // line, and writes nothing.
    let params = app.root.join("components/params.libsonnet");
    let saved = read(&params);
    let deep = saved.replacen(
        "global: {",
        &format!(
            "deep: {}{},\n  global: {{",
            "[".repeat(30000),
            "]".repeat(30000)
        ),
        1,
    );
    write(&params, &deep);
    let err = fails(&app.root, &["param", "set", "ns", "name", "x"]);
    assert!(
        err.contains("components/params.libsonnet:2:")
            && err.contains("nested more than 2000 levels deep"),
        "{err}"
    );
    assert_eq!(read(&params), deep);
    // Deep `local` chains, which the bracket count does not see: refused before the
    // syntax check's parser recurses, with the file and line.
    let locals = saved.replacen(
        "global: {",
        &format!("deep: {}1,\n  global: {{", "local a = 1; ".repeat(30000)),
        1,
    );
    write(&params, &locals);
    let err = fails(&app.root, &["param", "set", "ns", "name", "x"]);
    assert!(
        err.contains("components/params.libsonnet") && err.contains("levels deep"),
        "{err}"
    );
    assert_eq!(read(&params), locals);
    write(&params, &saved);
}

/// Trees deep without brackets, and brackets a reader of kf's own took for a comment or a
/// string: the nesting guard read them as the engine's lexer does not, and these aborted
/// kf with a stack overflow. Each is now refused before parsing, naming file and line.
#[test]
fn chains_and_hidden_brackets_are_refused_never_a_crash() {
    let app = new_app();
    let n = 300_000;
    let shapes = [
        ("a + chain", "1".to_string() + &"+1".repeat(n)),
        ("a unary chain", "-".repeat(n) + "1"),
        ("an error chain", "error ".repeat(n) + "1"),
        ("an index chain", "[1]".to_string() + &"[0]".repeat(n)),
        ("a field chain", "{}".to_string() + &".a".repeat(n)),
        (
            "brackets after a comment a carriage return ends",
            "// note\r".to_string() + &"[".repeat(n) + &"]".repeat(n),
        ),
        (
            "brackets after a text block with `|||` inside",
            "|||\n  a\n  |||\n  \"\n|||\n+ ".to_string() + &"[".repeat(n) + &"]".repeat(n),
        ),
    ];
    for (what, shape) in shapes {
        component(&app, "deep", &format!("\n{shape}\n"));
        let r = kf_in(&app.root, &["show", "default"]);
        assert_eq!(r.status, 1, "{what}: {}", r.stderr);
        assert!(
            r.stderr.contains("components/deep.jsonnet:")
                && r.stderr.contains("levels deep")
                && !r.stderr.contains("overflow"),
            "{what}: {}",
            r.stderr
        );
    }
}

/// Evaluations that recurse through neither the source's nesting nor jrsonnet's call
/// count: an array whose every item reads the one before (each thunk forced inside the
/// previous one's), and 490 calls of a function whose body nests 1,000 objects with a
/// local each. Both aborted kf with "has overflowed its stack"; they end with an error
/// naming the component, and an edit whose params evaluate that way writes nothing.
#[test]
fn an_evaluation_deeper_than_the_stack_ends_with_an_error() {
    let app = new_app();
    let chain =
        "local a = [if i == 0 then 1 else a[i-1] + 1 for i in std.range(0, 600000)]; a[600000]";
    let recursion = format!(
        "local f(x) = if x == 0 then 0 else {}f(x-1){}; f(490)",
        "{local y = ".repeat(1000),
        ", a: y}.a".repeat(1000)
    );
    for (what, expr) in [
        ("a chain of items", chain.to_string()),
        ("recursion", recursion),
    ] {
        component(&app, "deep", &config_map_of(&expr));
        let r = kf_in(&app.root, &["show", "default"]);
        assert_eq!(r.status, 1, "{what}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("error: component 'deep': evaluation went deeper than kf's stack holds")
                && !r.stderr.contains("overflowed"),
            "{what}: {}",
            r.stderr
        );
    }
    std::fs::remove_file(app.root.join("components/deep.jsonnet")).unwrap();
    let params = app.root.join("components/params.libsonnet");
    let deep = read(&params).replacen("global: {", &format!("global: {{\n    x: ({chain}),\n"), 1);
    write(&params, &deep);
    let r = kf_in(&app.root, &["param", "set", "y", "1"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "error: components/params.libsonnet: evaluation went deeper than kf's stack holds"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(read(&params), deep);
}

/// jrsonnet numbers a closure's locals with 16 bits and panics past 65,535: a function
/// of 65,536 parameters, or a `local` of as many bindings, is refused before parsing.
#[test]
fn names_past_the_engines_count_are_refused_never_a_panic() {
    let app = new_app();
    let names: Vec<String> = (0..65_536).map(|i| format!("a{i}")).collect();
    for (what, expr) in [
        (
            "parameters",
            format!("(local f({}) = 1; f(1))", names.join(", ")),
        ),
        (
            "bindings",
            format!("(local {} = 1; a0)", names.join(" = 1, ")),
        ),
    ] {
        component(&app, "crowded", &config_map_of(&expr));
        let r = kf_in(&app.root, &["show", "default"]);
        assert_eq!(r.status, 1, "{what}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("components/crowded.jsonnet:1: more than 65000 names bound in one place")
                && !r.stderr.contains("panicked"),
            "{what}: {}",
            r.stderr
        );
    }
}

/// Jsonnet ends a `//` comment at a lone carriage return: the field after it is code.
/// `param set` of that field edits it in place; kf's own reader used to take it for the
/// comment's text and add a second field of the same name.
#[test]
fn param_set_reads_comments_as_the_engine_does() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    let params = app.root.join("components/params.libsonnet");
    let text = read(&params).replacen(
        "global: {",
        "global: {\n    n: 1, // a note\r    m: 2,\n",
        1,
    );
    write(&params, &text);
    ok(&app.root, &["param", "set", "m", "3"]);
    let after = read(&params);
    assert_eq!(after.matches("m: ").count(), 1, "{after}");
    assert_eq!(after, text.replace("m: 2,", "m: 3,"));
    // The file still evaluates (a second `m` would be a duplicate field).
    ok(&app.root, &["show", "default"]);
}

#[test]
fn memory_bombs_are_refused_with_an_error_naming_the_component() {
    let app = new_app();
    for (expr, expected) in [
        (
            "std.makeArray(2e9, function(i) i)",
            "std.makeArray(2000000000",
        ),
        (
            "std.repeat('abcdefghij', 4e8)",
            "std.repeat: a string of 4000000000 bytes",
        ),
        (
            "std.repeat([1, 2], 1e9)",
            "std.repeat: an array of 2000000000 items",
        ),
        (
            "[x * y for x in std.range(0, 100000) for y in std.range(0, 100000)]",
            "more than 4096 MiB of memory",
        ),
        (
            "(local f(s, n) = if n == 0 then s else f(s + s, n - 1); f('x', 40))",
            "MiB of memory",
        ),
    ] {
        component(
            &app,
            "bomb",
            &format!(
                "{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'b' }}, data: {{ a: std.toString({expr}) }} }}\n"
            ),
        );
        let err = fails(&app.root, &["show", "default"]);
        assert!(
            err.contains("component 'bomb'") && err.contains(expected),
            "{expr}: {err}"
        );
    }
    // Seven components more: the render takes a thread per core (src/render/parallel.rs),
    // and the thread that meets the cap names its own component.
    quick_components(&app, 7);
    let err = fails(&app.root, &["show", "default"]);
    assert!(
        err.contains("component 'bomb'") && err.contains("MiB of memory"),
        "{err}"
    );
}

/// `n` small components, `quick0`…, that render at once.
fn quick_components(app: &TempApp, n: usize) {
    for i in 0..n {
        component(
            app,
            &format!("quick{i}"),
            "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'q' } }\n",
        );
    }
}

#[test]
fn an_evaluation_past_eval_timeout_ends_with_an_error() {
    let app = new_app();
    component(
        &app,
        "slow",
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's' }, data: { a: std.toString(std.foldl(function(a, b) a + b, std.range(0, 300000000), 0)) } }\n",
    );
    let slow_is_stopped = || {
        let start = std::time::Instant::now();
        let err = fails(&app.root, &["show", "default", "--eval-timeout", "1s"]);
        assert!(start.elapsed() < std::time::Duration::from_secs(30));
        assert!(
            err.contains("component 'slow'") && err.contains("--eval-timeout 1s"),
            "{err}"
        );
    };
    slow_is_stopped();
    let err = fails(&app.root, &["show", "default", "--eval-timeout", "soon"]);
    assert!(err.contains("not a duration"), "{err}");
    // On several threads each evaluation is timed, whichever thread has it.
    quick_components(&app, 7);
    slow_is_stopped();
}

/// With neither HOME nor XDG_CACHE_HOME, the generated ksonnet-lib goes to a folder of the
/// user's own in the temp folder (mode 0700). One that somebody else could write in (made
/// first by another user, with a library of theirs) is not used, with a warning.
#[cfg(unix)]
#[test]
fn the_temp_folder_cache_is_the_users_alone() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let app = new_app();
    // A fresh clone of a ksonnet app: lib/ is git-ignored, so kf generates the library.
    std::fs::remove_dir_all(app.root.join("lib")).unwrap();
    component(
        &app,
        "cm",
        "local k = import 'k.libsonnet';\nk.core.v1.configMap.new('cm', { a: 'b' })\n",
    );
    let show = |tmp: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_kf"))
            .args(["show", "default", "-c", "cm"])
            .current_dir(&app.root)
            .env_remove("HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("KF_FAULT_POINT")
            .env("TMPDIR", tmp)
            .output()
            .unwrap()
    };
    let tmp = tempfile::tempdir().unwrap();
    let uid = std::fs::metadata(tmp.path()).unwrap().uid();
    let cache = tmp.path().join(format!("kf-cache-{uid}"));

    let out = show(tmp.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("name: cm"));
    let mode = std::fs::metadata(&cache).unwrap().mode();
    assert_eq!(mode & 0o777, 0o700, "{mode:o}");
    assert!(cache.join("ksonnet-lib").is_dir());

    // Somebody else's (here: writable by all): not used, and said so.
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join(format!("kf-cache-{uid}"));
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = show(tmp.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not a folder of this user's alone"),
        "{stderr}"
    );
    assert!(!cache.join("ksonnet-lib").exists());
}
