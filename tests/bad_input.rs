//! Bad input, everywhere: every command's error path gives exit 1, one clear `error:`
//! line naming what was wrong (plus, for Jsonnet errors, a trace below it), no panic, and
//! leaves the app byte-for-byte as it was.

mod support;

use support::*;

#[test]
fn every_command_rejects_bad_input_cleanly_and_changes_nothing() {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx"],
    );
    write(app.root.join("bad.yaml"), "kind: [unclosed\n");
    write(app.root.join("notes.txt"), "hello\n");
    let kubeconfig = app.root.parent().unwrap().join("no-such-kubeconfig");
    let kc = kubeconfig.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["init", "components"], "already exists"),
        (&["env", "add", "prod"], "prod"),
        (&["env", "add", "a b"], "invalid environment name"),
        (&["env", "rm", "nope"], "unknown environment 'nope'"),
        (
            &["env", "set", "nope", "--namespace", "x"],
            "unknown environment 'nope'",
        ),
        (&["env", "set", "default", "--name", "prod"], "prod"),
        (&["env", "current", "--set", "prd"], "did you mean 'prod'"),
        (&["env", "describe", "nope"], "unknown environment"),
        (
            &["generate", "no-such-proto", "x"],
            "no prototype matches 'no-such-proto'",
        ),
        (&["generate", "deployed-service", "x"], "needs --image"),
        (
            &[
                "generate",
                "deployed-service",
                "x",
                "--image=a",
                "--replicas=many",
            ],
            "--replicas: 'many' is not a valid number",
        ),
        (
            &[
                "generate",
                "deployed-service",
                "x",
                "--image=a",
                "--replica=2",
            ],
            "has no param 'replica'",
        ),
        (
            &["generate", "deployed-service", "web", "--image=a"],
            "component 'web' already exists",
        ),
        (
            &["generate", "namespace", "../escape"],
            "invalid component name",
        ),
        (
            &[
                "generate",
                "deployed-service",
                "x",
                "--values-file",
                "missing.yaml",
            ],
            "missing.yaml",
        ),
        (
            &["param", "set", "nope", "replicas", "2"],
            "unknown component 'nope'",
        ),
        (
            &["param", "set", "web", "a..b", "2"],
            "invalid param key 'a..b'",
        ),
        (
            &["param", "set", "web", "labels", "{oops", "--force"],
            "is not valid JSON",
        ),
        (
            &["param", "set", "web", "replicas", "2", "--env", "nope"],
            "unknown environment 'nope'",
        ),
        (&["param", "unset", "web", "nothing"], "nothing"),
        (&["param", "list", "nope"], "unknown component 'nope'"),
        (
            &["param", "diff", "default", "nope"],
            "unknown environment 'nope'",
        ),
        (&["component", "rm", "nope"], "unknown component 'nope'"),
        (&["import", "-f", "missing.yaml"], "missing.yaml"),
        (&["import", "-f", "bad.yaml"], "bad.yaml"),
        (&["import", "-f", "notes.txt"], "notes.txt"),
        (&["show", "nope"], "unknown environment 'nope'"),
        (
            &["show", "default", "-c", "wbe"],
            "unknown component 'wbe' (known: web)",
        ),
        (
            &["show", "default", "-V", "novalue"],
            "--ext-str takes <name>=<value>",
        ),
        (
            &["show", "default", "--ext-str-file", "x=missing.txt"],
            "missing.txt",
        ),
        (&["show", "default", "-o", "xml"], "xml"),
        (&["show", "default", "prod"], "unexpected argument"),
        (
            &["show", "default", "--env", "prod"],
            "environment given twice",
        ),
        (&["validate", "nope"], "unknown environment 'nope'"),
        (
            &["prototype", "describe", "nope"],
            "no prototype matches 'nope'",
        ),
        (
            &["prototype", "preview", "deployed-service"],
            "needs --image",
        ),
        (
            &["apply", "--env", "default", "--kubeconfig", kc],
            "cannot read kubeconfig",
        ),
        (
            &["apply", "--env", "default", "--timeout", "soon"],
            "'soon' is not a duration",
        ),
        (
            &["apply", "--env", "default", "--concurrency", "many"],
            "many",
        ),
        (&["delete", "--env", "nope"], "unknown environment 'nope'"),
        (
            &["status", "--env", "default", "--kubeconfig", kc],
            "cannot read kubeconfig",
        ),
        (&["frobnicate"], "unrecognized subcommand"),
    ];
    let before = snapshot(&app.root);
    let mut wrong = Vec::new();
    for (args, expected) in cases {
        let run = kf_in(&app.root, args);
        if run.status != 1
            || run.stderr.contains("panicked")
            || !run.stderr.starts_with("error:")
            || !run.stderr.contains(expected)
        {
            wrong.push(format!(
                "kf {args:?}: exit {}, expected '{expected}' in stderr:\n{}{}",
                run.status, run.stderr, run.stdout
            ));
        }
        assert_eq!(snapshot(&app.root), before, "kf {args:?} changed the app");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn bad_input_to_diff_is_exit_2() {
    let app = new_app();
    for args in [
        &["diff", "local:default", "local:nope"][..],
        &["diff", "a", "b"][..],
    ] {
        let run = kf_in(&app.root, args);
        assert_eq!(run.status, 2, "kf {args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    }
}

/// An error names its cause once: `… manifests/ does not exist`, not the io error a
/// second time from the error chain.
#[test]
fn an_error_says_its_cause_once() {
    let app = new_app();
    let err = fails(&app.root, &["import", "-f", "manifests/"]);
    assert!(err.contains("manifests"), "{err}");
    assert_eq!(err.matches("does not exist").count(), 1, "{err}");
    assert!(!err.contains("No such file or directory"), "{err}");
}
