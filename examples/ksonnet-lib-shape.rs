//! Compare the ksonnet-lib kf generates from the v1.10.3 spec with the one ksonnet
//! generated from the same spec (the corpus' `ksonnet-lib/v1.10.3/`): every path, hidden
//! types included, and what each setter and constructor returns. CI runs it:
//!
//!     cargo run --release --example ksonnet-lib-shape -- \
//!         ../shared/ksonnet-corpus/ksonnet-lib/v1.10.3 tests/fixtures/ksonnet-lib-v1.10.3.shape.sha256
//!
//! Prints one line per difference and the digests; exits 1 when kf's library lacks a path
//! or answers a call differently, or when the digest file (what `cargo test` compares
//! kf's library with, offline) is not the digest of ksonnet's library.

use std::path::PathBuf;
use std::process::ExitCode;

use kf::ksonnetlib::shape::{self, Library};

fn main() -> ExitCode {
    let Some(oracle) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: ksonnet-lib-shape <folder with ksonnet's k.libsonnet and k8s.libsonnet>");
        return ExitCode::from(2);
    };
    let digest_file = std::env::args_os().nth(2).map(PathBuf::from);
    match run(&oracle, digest_file.as_deref()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("ksonnet-lib-shape: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(oracle: &std::path::Path, digest_file: Option<&std::path::Path>) -> Result<bool, String> {
    let theirs = tempfile::tempdir().map_err(|e| e.to_string())?;
    let read = |name: &str| {
        std::fs::read_to_string(oracle.join(name))
            .map_err(|e| format!("{}: {e}", oracle.join(name).display()))
    };
    // ksonnet's `hidden` is an object local; a field beside it makes it reachable.
    let k8s = read("k8s.libsonnet")?;
    let k8s = k8s.replacen('{', "{\n  __hidden:: hidden,", 1);
    std::fs::write(theirs.path().join("k8s.libsonnet"), k8s).map_err(|e| e.to_string())?;
    std::fs::write(theirs.path().join("k.libsonnet"), read("k.libsonnet")?)
        .map_err(|e| e.to_string())?;

    let ours = tempfile::tempdir().map_err(|e| e.to_string())?;
    for (name, bytes) in kf::ksonnetlib::lib_files(kf::ksonnetlib::DEFAULT_SPEC.as_bytes())
        .map_err(|e| e.to_string())?
    {
        let path = ours.path().join(name);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| e.to_string())?;
        }
        std::fs::write(path, bytes).map_err(|e| e.to_string())?;
    }

    let want = shape::walk(&Library {
        dir: theirs.path(),
        hidden: "(import 'k8s.libsonnet').__hidden",
    })
    .map_err(|e| e.to_string())?;
    let got = shape::walk(&Library {
        dir: ours.path(),
        hidden: "import 'k8s/hidden.libsonnet'",
    })
    .map_err(|e| e.to_string())?;
    let diffs = shape::differences(&want, &got);
    let missing = diffs.iter().filter(|d| !d.starts_with('+')).count();
    for d in &diffs {
        println!("{d}");
    }
    println!(
        "ksonnet-lib shape: {} paths in ksonnet's, {} in kf's; {missing} missing or different, {} extra",
        want.len(),
        got.len(),
        diffs.len() - missing
    );
    let digest = shape::digest(&want);
    println!("digest of ksonnet's: {digest}");
    println!("digest of kf's:      {}", shape::digest(&got));
    let mut ok = missing == 0;
    if let Some(file) = digest_file {
        let recorded =
            std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        if recorded.trim() != digest {
            println!(
                "{}: records {}, not the digest of ksonnet's library",
                file.display(),
                recorded.trim()
            );
            ok = false;
        }
    }
    Ok(ok)
}
