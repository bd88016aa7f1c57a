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

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
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
