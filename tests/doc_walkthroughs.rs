//! The shell blocks of docs/getting-started.md and of README.md's walkthrough, run line by
//! line as a new user would type them, in a temporary folder with `kf` the built binary,
//! `HOME` and `XDG_CACHE_HOME` inside it, no kubeconfig and no network. A doc that says
//! something kf does not do fails here.
//!
//! Lines that need what this test does not have are skipped, each for its reason
//! (`SKIPPED` below): a cluster (`kf apply`, `kf diff --env`, `kf status`, `kf delete`),
//! a remote registry (`kf registry add` of a git URL, and the `kf pkg install` from it),
//! the user's own ksonnet app, and cargo (the binary under test is already built).

use std::path::{Path, PathBuf};
use std::process::Command;

/// (what a skipped line starts with or contains, why).
const SKIPPED: &[(&str, &str)] = &[
    (
        "cargo ",
        "cargo itself: the test runs the kf it was built with",
    ),
    ("kf apply", "needs a cluster"),
    ("kf diff --env", "needs a cluster"),
    ("kf status", "needs a cluster"),
    ("kf delete", "needs a cluster"),
    (
        "kf registry add team git@",
        "a remote registry: no network here",
    ),
    (
        "kf pkg install team/",
        "installs from the remote registry added above",
    ),
    ("old-ksonnet-app", "the reader's own ksonnet app"),
];

/// The ```sh blocks of `text` after the heading `from`, with each line's line number.
fn sh_lines(text: &str, from: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut started = from.is_empty();
    let mut in_sh = false;
    for (i, line) in text.lines().enumerate() {
        if line == from {
            started = true;
        }
        if !started {
            continue;
        }
        if line.trim_start().starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if in_sh && !line.trim().is_empty() {
            lines.push((i + 1, line.to_string()));
        }
    }
    lines
}

fn skip_reason(line: &str) -> Option<&'static str> {
    SKIPPED
        .iter()
        .find(|(pattern, _)| line.trim_start().starts_with(pattern) || line.contains(pattern))
        .map(|(_, why)| *why)
}

/// Run `doc`'s shell lines (from heading `from` on) in one bash, so `cd` carries over as
/// in a terminal; stops at the first line that fails and names it.
fn run_doc(doc: &str, from: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(doc)).unwrap();
    let lines = sh_lines(&text, from);
    assert!(
        lines.len() > 10,
        "{doc}: only {} shell lines found",
        lines.len()
    );
    let work = tempfile::tempdir().unwrap();
    let mut script = String::from("set -u\ncd \"$KF_DOC_WORK\"\n");
    let mut ran = 0;
    for (number, line) in &lines {
        if let Some(why) = skip_reason(line) {
            eprintln!("{doc}:{number}: skipped ({why}): {line}");
            continue;
        }
        ran += 1;
        script.push_str(&format!(
            "{{\n{line}\n}} > \"$KF_DOC_WORK/.out\" 2>&1 || {{ echo \"{doc}:{number} failed\"; cat \"$KF_DOC_WORK/.out\"; exit 1; }}\n"
        ));
    }
    assert!(ran > 10, "{doc}: only {ran} lines run");
    let bin = Path::new(env!("CARGO_BIN_EXE_kf")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(&script)
        .env("KF_DOC_WORK", work.path())
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("KUBECONFIG", work.path().join("no-kubeconfig"))
        .env_remove("KF_FAULT_POINT")
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn getting_started_shell_blocks_all_succeed() {
    run_doc("docs/getting-started.md", "");
}

#[test]
fn readme_walkthrough_shell_blocks_all_succeed() {
    run_doc("README.md", "## Five-minute walkthrough");
}
