//! Embeds `prototypes/` and `registry/` into the binary, so a new app has every built-in
//! prototype and package with no network and no install step.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// `git` with `args` in `root`, its trimmed stdout when it succeeds.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// Embeds the commit kf is built from as `KF_GIT_COMMIT` for `kf version`. A build from
/// a crates.io package or a tarball has no `.git` beside Cargo.toml: the commit is
/// "unknown" then, and the build still works (also without git installed). Only the
/// repo's own `.git` is asked, never one a tarball happens to be unpacked inside.
fn embed_commit(root: &Path) {
    // A build without git's history (the Argo CD image) is told its commit.
    println!("cargo:rerun-if-env-changed=KF_BUILD_COMMIT");
    let mut commit = std::env::var("KF_BUILD_COMMIT")
        .ok()
        .filter(|c| !c.is_empty() && c.chars().all(|c| c.is_ascii_alphanumeric()));
    if commit.is_none() && root.join(".git").exists() {
        commit = git(root, &["rev-parse", "--short=12", "HEAD"]);
        // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it points at (a
        // commit) and packed-refs (a gc). A worktree's `.git` is a file, hence --git-path.
        let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
        if let Some(branch) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
            watched.push(branch);
        }
        for name in watched {
            if let Some(path) = git(root, &["rev-parse", "--git-path", &name]) {
                println!("cargo:rerun-if-changed={}", root.join(path).display());
            }
        }
    }
    let commit = commit.unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=KF_GIT_COMMIT={commit}");
}

/// The kf binary is linked at a fixed address (not position-independent), as Go links
/// kubectl, Helm and Tanka on linux/amd64. A position-independent kf holds a pointer in
/// every vtable and string table of its 630 kB of `.data.rel.ro` and 180 kB of `.got`,
/// and the loader rewrites them all before `main`: ~230 pages copied and written on every
/// run, a third of `kf version`'s page faults (docs/benchmarks.md, "Sixth pass"). At a
/// fixed address the linker writes those pointers once, the pages are read from the file
/// as they are used, and the binary needs no relocation support from the machine's glibc.
/// The heap, the stacks and the shared libraries keep their random addresses.
///
/// Asked for only where the linker is Rust's default C compiler driver for a Linux target
/// (no `RUSTC_LINKER`, `-C linker`, `-C link-arg` or `-fuse-ld` of the user's, who then
/// gets rustc's position-independent default).
fn link_at_fixed_address() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = std::env::var_os("RUSTC_LINKER").is_some()
        || ["link-arg", "linker", "fuse-ld"]
            .iter()
            .any(|f| flags.contains(f));
    if var("CARGO_CFG_TARGET_OS") == "linux" && !own_linker {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    embed_commit(&root);
    link_at_fixed_address();
    let mut files = Vec::new();
    for top in ["prototypes", "registry", "schemas"] {
        println!("cargo:rerun-if-changed={top}");
        collect(&root.join(top), &mut files);
    }
    files.sort();
    let mut code = String::from("pub static FILES: &[(&str, &str)] = &[\n");
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .expect("collected below the root")
            .to_string_lossy()
            .replace('\\', "/");
        if rel.rsplit('/').next().is_some_and(|n| n.starts_with('.')) {
            continue;
        }
        println!("cargo:rerun-if-changed={rel}");
        writeln!(
            code,
            "    ({rel:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("embedded.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
