//! What a new user meets first: help, version, shell completion, man page, `-o`.

mod support;
use support::*;

#[test]
fn bare_kf_prints_help_on_stdout_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let r = kf_in(dir.path(), &[]);
    assert_eq!(r.status, 0, "stderr: {}", r.stderr);
    assert!(
        r.stdout.contains("Usage: kf [OPTIONS] [COMMAND]"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  show "), "{}", r.stdout);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
fn version_names_the_crate_version_and_the_commit() {
    let dir = tempfile::tempdir().unwrap();
    let line = ok(dir.path(), &["version"]);
    let prefix = format!("kf {} (commit ", env!("CARGO_PKG_VERSION"));
    let commit = line
        .strip_prefix(&prefix)
        .and_then(|rest| rest.strip_suffix(")\n"))
        .unwrap_or_else(|| panic!("unexpected version line: {line}"));
    // This test runs from a git checkout, so the commit is known; a build from a
    // package says "unknown" instead.
    if std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(".git")
        .exists()
    {
        assert_eq!(commit.len(), 12, "{line}");
        assert!(commit.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
    } else {
        assert_eq!(commit, "unknown");
    }
    assert_eq!(ok(dir.path(), &["--version"]), line);
}

#[test]
fn completion_scripts_cover_every_shell_and_every_command() {
    let dir = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "complete -F _kf"),
        ("zsh", "#compdef kf"),
        ("fish", "complete -c kf"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let script = ok(dir.path(), &["completion", shell]);
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for command in ["show", "generate", "param", "validate", "completion"] {
            assert!(script.contains(command), "{shell}: no {command}");
        }
    }
    let err = kf_in(dir.path(), &["completion", "tcsh"]);
    assert_eq!(err.status, 1);
    assert!(
        err.stderr
            .contains("possible values: bash, zsh, fish, powershell")
    );
}

#[test]
fn man_page_is_roff_with_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let page = ok(dir.path(), &["man"]);
    assert!(page.contains(".TH kf 1"), "{page}");
    for command in ["init", "show", "apply", "validate", "completion"] {
        assert!(page.contains(command), "no {command} in the man page");
    }
}

fn app_with_two_kinds() -> TempApp {
    let app = new_app();
    ok(
        &app.root,
        &["generate", "deployed-service", "web", "--image=nginx:1.27"],
    );
    ok(&app.root, &["generate", "namespace", "ns"]);
    app
}

#[test]
fn show_o_name_prints_kind_and_name_lines_like_kubectl() {
    let app = app_with_two_kinds();
    let names = ok(&app.root, &["show", "default", "-o", "name"]);
    let mut lines: Vec<&str> = names.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        ["deployment.apps/web", "namespace/ns", "service/web"],
        "{names}"
    );
}

#[test]
fn show_output_flag_is_o_with_format_kept_as_a_hidden_alias() {
    let app = app_with_two_kinds();
    let short = ok(&app.root, &["show", "default", "-o", "json"]);
    assert_eq!(
        ok(&app.root, &["show", "default", "--output", "json"]),
        short
    );
    assert_eq!(
        ok(&app.root, &["show", "default", "--format", "json"]),
        short
    );
    let help = ok(&app.root, &["show", "--help"]);
    assert!(help.contains("-o, --output <FORMAT>"), "{help}");
    assert!(!help.contains("--format"), "{help}");
    assert!(!help.contains("ENV_POS"), "{help}");
}

/// `prototype list` and `prototype search` are list commands too: `-o json` is the same
/// `{kind, data}` document as the other lists, and `-o name` is refused with the choices.
#[test]
fn prototype_lists_take_the_list_outputs() {
    let app = new_app();
    let doc: serde_json::Value =
        serde_json::from_str(&ok(&app.root, &["prototype", "list", "-o", "json"])).unwrap();
    assert_eq!(doc["kind"], "prototypes");
    let names: Vec<&str> = doc["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"io.ksonnet.pkg.tf-job"), "{names:?}");
    assert!(
        names.contains(&"io.ksonnet.pkg.deployed-service"),
        "{names:?}"
    );
    let found = ok(&app.root, &["prototype", "search", "jax", "-o", "yaml"]);
    assert!(found.contains("kind: prototypes"), "{found}");
    assert!(found.contains("io.ksonnet.pkg.jax-job"), "{found}");
    let err = fails(&app.root, &["prototype", "list", "-o", "name"]);
    assert!(err.contains("table, wide, json, yaml"), "{err}");
}

/// `kf … | head -0`: the reader is gone before kf writes. Every printing command exits 0
/// and says nothing, as with SIGPIPE (`kf completion bash | head` printed "cannot write to
/// stdout: Broken pipe" and exited 1).
#[test]
fn a_closed_stdout_is_no_error_for_any_printing_command() {
    let app = new_app();
    for args in [
        vec![],
        vec!["version"],
        vec!["completion", "bash"],
        vec!["completion", "zsh"],
        vec!["man"],
        vec!["show", "default"],
        vec!["show", "default", "-o", "json"],
        vec!["prototype", "list"],
        vec!["env", "list"],
        vec!["param", "list"],
        vec!["component", "list"],
    ] {
        let (code, stderr) = kf_with_closed_stdout(&app.root, &args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

/// `kf show no-such-env 2>&1 | true`: the error, or a warning, has nobody to read it. kf
/// exits with the command's own status, never 101 (a panic on the failed write).
#[test]
fn a_closed_stderr_leaves_every_exit_status_the_commands_own() {
    let app = new_app();
    for (args, code) in [
        (vec!["show", "no-such-env"], 1),
        (vec!["env", "current"], 1),
        (vec!["nope"], 1),
        (vec!["param", "set", "missing", "replicas", "3"], 1),
        (vec!["recover"], 0),
        (vec!["show", "default"], 0),
        (vec!["env", "current", "--set", "default"], 0),
    ] {
        assert_eq!(
            kf_with_closed_stderr(&app.root, &args),
            Some(code),
            "kf {args:?} with stderr closed"
        );
    }
}
