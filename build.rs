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
    let mut commit = None;
    if root.join(".git").exists() {
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

/// The glibc this build runs on, from `getconf GNU_LIBC_VERSION` ("glibc 2.36").
fn glibc_version() -> Option<(u32, u32)> {
    let out = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let (major, minor) = text.trim().strip_prefix("glibc ")?.split_once('.')?;
    let minor = minor.split(|c: char| !c.is_ascii_digit()).next()?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The kf binary is position-independent, and every pointer in its read-only data (vtables,
/// string tables) needs a relocation at start: 1.3 MB of `.rela.dyn` entries, which the
/// loader reads whole on every run (1.3 MiB of every command's memory). Packed relative
/// relocations (DT_RELR) hold the same in 13 kB, but the binary then needs glibc 2.36 on
/// the machine that runs it. So they are asked for only where that is this machine and
/// its linker is Rust's default: a native build for linux-gnu on glibc 2.36 or newer,
/// with no linker or link flags of the user's (`RUSTC_LINKER`, `-C link-arg`, `-fuse-ld`
/// in RUSTFLAGS), and not with `KF_PORTABLE_BINARY` set, for a binary that must run on
/// an older glibc.
fn pack_relative_relocations() {
    println!("cargo:rerun-if-env-changed=KF_PORTABLE_BINARY");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = std::env::var_os("RUSTC_LINKER").is_some()
        || ["link-arg", "linker", "fuse-ld"]
            .iter()
            .any(|f| flags.contains(f));
    if var("HOST") == var("TARGET")
        && var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && !own_linker
        && std::env::var_os("KF_PORTABLE_BINARY").is_none()
        && glibc_version().is_some_and(|v| v >= (2, 36))
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    embed_commit(&root);
    pack_relative_relocations();
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
