//! Running the real `kf` binary on real app folders.
#![allow(dead_code)]

pub mod apiserver;
pub mod cluster;
pub mod proxy;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn kf_in(dir: &Path, args: &[&str]) -> Run {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .env_remove("KF_FAULT_POINT")
        .output()
        .expect("the kf binary runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run kf and require success.
pub fn ok(dir: &Path, args: &[&str]) -> String {
    let r = kf_in(dir, args);
    assert_eq!(
        r.status, 0,
        "kf {args:?} failed:\nstdout: {}\nstderr: {}",
        r.stdout, r.stderr
    );
    r.stdout
}

/// Run kf and require exit 1 with a one-line message on stderr; returns stderr.
pub fn fails(dir: &Path, args: &[&str]) -> String {
    let r = kf_in(dir, args);
    assert_eq!(
        r.status, 1,
        "kf {args:?} should fail:\nstdout: {}\nstderr: {}",
        r.stdout, r.stderr
    );
    assert!(r.stderr.starts_with("error: "), "stderr: {}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "kf panicked: {}", r.stderr);
    r.stderr
}

pub struct TempApp {
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
}

/// A fresh app with environments `default` and `prod`.
pub fn new_app() -> TempApp {
    let dir = tempfile::tempdir().expect("temp dir");
    ok(
        dir.path(),
        &[
            "init",
            "app",
            "--namespace",
            "ml-dev",
            "--server",
            "https://dev.example.com",
        ],
    );
    let root = dir.path().join("app");
    ok(
        &root,
        &[
            "env",
            "add",
            "prod",
            "--namespace",
            "ml-prod",
            "--server",
            "https://prod.example.com",
        ],
    );
    TempApp { _dir: dir, root }
}

pub fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path.as_ref())
        .unwrap_or_else(|e| panic!("read {}: {e}", path.as_ref().display()))
}

pub fn write(path: impl AsRef<Path>, text: &str) {
    if let Some(p) = path.as_ref().parent() {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    std::fs::write(path.as_ref(), text).expect("write");
}

/// Every file below `root` with its bytes, for "nothing changed" assertions.
pub fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// Compare with a golden file; `KF_UPDATE_GOLDEN=1` rewrites it (review the diff by eye).
pub fn golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("KF_UPDATE_GOLDEN").is_some() {
        write(&path, actual);
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden file {}; run with KF_UPDATE_GOLDEN=1 and review it",
            path.display()
        )
    });
    assert_eq!(actual, expected, "output differs from {}", path.display());
}

/// Run kf with extra environment variables, requiring success.
pub fn ok_with_env(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> String {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .env_remove("KF_FAULT_POINT")
        .envs(vars.iter().copied())
        .output()
        .expect("the kf binary runs");
    assert!(
        out.status.success(),
        "kf {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
