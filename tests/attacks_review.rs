//! Attacks found in review of the trust boundary (docs/security.md, "The rules"): shapes
//! the earlier attack tests did not try. Every kf here runs under [`kf_bounded`], which
//! kills it and fails the test if it outlives a limit, so a regression never hangs.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use support::sentinel::Sentinel;
use support::*;

const LIMIT: Duration = Duration::from_secs(60);
const TOKEN: &str = "SECRET-TOKEN-123";

/// [`kf_within`] [`LIMIT`], failing the test if kf hangs.
fn kf_bounded(dir: &Path, args: &[&str]) -> Run {
    kf_within(dir, args, &[], LIMIT)
        .unwrap_or_else(|| panic!("kf {args:?} did not end within {LIMIT:?}: it hangs"))
}

fn symlink(target: impl AsRef<Path>, link: impl AsRef<Path>) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

// ---- Rule 5: a walk of the app's folders has a bound -------------------------------------

/// Two symlinks to `.` in components/ made the module walk visit 2^40 paths (it follows
/// symlinked folders, and the kernel only stops a path after 40 of them): `kf component
/// list`, `show`, every command hung, outside every timeout.
#[test]
fn symlink_loops_in_components_do_not_hang_the_module_walk() {
    let app = new_app();
    ok(&app.root, &["generate", "namespace", "ns"]);
    symlink(".", app.root.join("components/a"));
    symlink(".", app.root.join("components/b"));
    let limit = Duration::from_secs(20);
    for args in [&["component", "list"][..], &["show", "default"]] {
        let run = kf_within(&app.root, args, &[], limit)
            .unwrap_or_else(|| panic!("kf {args:?} hangs on a symlink loop in components/"));
        assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
        assert!(run.stdout.contains("ns"), "{args:?}: {}", run.stdout);
    }
}

/// A folder below components/ that is a symlink out of the app is not walked but refused,
/// naming it: its listing is outside the app (`components/x -> /` walked the whole file
/// system, and `component list` listed another folder's files as the app's components).
#[test]
fn a_symlinked_folder_out_of_components_is_not_walked() {
    let app = new_app();
    let mut sentinel = Sentinel::beside(&app);
    write(
        sentinel.dir.join("mod/sub/params.libsonnet"),
        "{ components: {} }\n",
    );
    write(
        sentinel.dir.join("mod/sub/secret-name.jsonnet"),
        "{ kind: 'x' }\n",
    );
    sentinel.refresh();
    symlink(sentinel.dir.join("mod"), app.root.join("components/ext"));
    let run = kf_bounded(&app.root, &["component", "list"]);
    assert!(!run.stdout.contains("secret-name"), "{}", run.stdout);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("components/ext") && run.stderr.contains("outside the app"),
        "{}",
        run.stderr
    );
    sentinel.assert_unchanged();
}

/// The same loop in a 0.1.0 app's environments/ (walked for `spec.json` on every load).
#[test]
fn symlink_loops_in_a_legacy_apps_environments_do_not_hang_loading() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("old");
    write(
        root.join("app.yaml"),
        "apiVersion: 0.1.0\nkind: ksonnet.io/app\nname: old\nversion: 0.0.1\n",
    );
    write(
        root.join("environments/dev/spec.json"),
        r#"{"server":"https://dev.example.com","namespace":"dev"}"#,
    );
    std::fs::create_dir_all(root.join("components")).unwrap();
    symlink(".", root.join("environments/a"));
    symlink(".", root.join("environments/b"));
    let run = kf_within(&root, &["env", "list"], &[], Duration::from_secs(20))
        .expect("kf env list hangs on a symlink loop in a 0.1.0 app's environments/");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("dev"), "{}", run.stdout);
}

// ---- Rule 3: vendor/ is read through the sandbox -----------------------------------------

/// `vendor/<registry>` symlinked out of the app: its packages' parts.yaml and prototypes
/// were read from wherever it pointed (only the last component was checked), printed by
/// `prototype describe` and pasted into the app by `generate`.
#[test]
fn a_symlinked_vendor_registry_is_not_read_from_outside_the_app() {
    let app = new_app();
    let mut sentinel = Sentinel::beside(&app);
    let pkg = sentinel.dir.join("reg/pkg");
    write(
        pkg.join("parts.yaml"),
        &format!("name: pkg\napiVersion: 0.0.1\nkind: ksonnet.io/parts\ndescription: {TOKEN}\n"),
    );
    write(
        pkg.join("prototypes/leak.jsonnet"),
        &format!(
            "// @apiVersion 0.1\n// @name io.ksonnet.pkg.leak\n// @description {TOKEN}\n// @shortDescription {TOKEN}\n// @param name string Name\n{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: import 'param://name' }}, data: {{ s: '{TOKEN}' }} }}\n"
        ),
    );
    sentinel.refresh();
    symlink(sentinel.dir.join("reg"), app.root.join("vendor/evil"));
    for args in [
        &["prototype", "list"][..],
        &["prototype", "describe", "leak"],
        &["pkg", "list", "--installed"],
    ] {
        let run = kf_bounded(&app.root, args);
        assert!(
            !run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN),
            "{args:?} read outside the app:\n{}{}",
            run.stdout,
            run.stderr
        );
    }
    let run = kf_bounded(&app.root, &["generate", "leak", "x"]);
    assert_ne!(run.status, 0, "{}", run.stdout);
    assert!(!app.root.join("components/x.jsonnet").exists());
    sentinel.assert_unchanged();
}

// ---- Rule 3: the check and the open are one ---------------------------------------------

/// A neighbour who can write in the app swaps a folder on the way to an imported file
/// for a symlink out of the app, between kf's check of the file's real path and its open
/// (which refused a symlink only in the last component).
#[cfg(target_os = "linux")]
#[test]
fn a_folder_swapped_for_a_symlink_after_the_check_is_not_read_through() {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    const FILES: usize = 1;
    // Deep below the swapped folder, so that the check (which resolves each folder in
    // turn) takes long after it has passed the one that is swapped.
    let deep = "d/".repeat(300);
    let app = new_app();
    let mut sentinel = Sentinel::beside(&app);
    let components = app.root.join("components");
    let mut data = String::new();
    for i in 0..FILES {
        write(sentinel.dir.join(format!("leak/{deep}f{i}")), TOKEN);
        write(components.join(format!("swap/{deep}f{i}")), "innocent");
        data.push_str(&format!("f{i}: importstr 'swap/{deep}f{i}',\n"));
    }
    sentinel.refresh();
    symlink(sentinel.dir.join("leak"), components.join(".alt"));
    write(
        components.join("race.jsonnet"),
        &format!(
            "{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'race' }}, data: {{\n{data}}} }}\n"
        ),
    );
    ok(&app.root, &["show", "default"]);

    let stop = Arc::new(AtomicBool::new(false));
    let a = CString::new(components.join("swap").as_os_str().as_bytes()).unwrap();
    let b = CString::new(components.join(".alt").as_os_str().as_bytes()).unwrap();
    let flipper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                // SAFETY: two valid NUL-terminated paths.
                unsafe {
                    libc::renameat2(
                        libc::AT_FDCWD,
                        a.as_ptr(),
                        libc::AT_FDCWD,
                        b.as_ptr(),
                        libc::RENAME_EXCHANGE,
                    )
                };
            }
        })
    };
    let started = Instant::now();
    let mut leaked = None;
    let mut runs = 0;
    while started.elapsed() < Duration::from_secs(20) && runs < 200 {
        runs += 1;
        let run = kf_bounded(&app.root, &["show", "default"]);
        if run.stdout.contains(TOKEN) || run.stderr.contains(TOKEN) {
            leaked = Some(run.stdout);
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    assert!(
        leaked.is_none(),
        "run {runs}: kf read a file outside the app through a folder swapped after its check"
    );
    sentinel.assert_unchanged();
}

// ---- Errors never print file contents ---------------------------------------------------

/// serde_json's type errors quote the string they met: a 0.1.0 app's spec.json, or a
/// `.kf-journal` that came with the folder, had its content echoed into the error.
#[test]
fn json_type_errors_do_not_quote_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("old");
    write(
        root.join("app.yaml"),
        "apiVersion: 0.1.0\nkind: ksonnet.io/app\nname: old\nversion: 0.0.1\n",
    );
    write(
        root.join("environments/dev/spec.json"),
        &format!("\"{TOKEN}\""),
    );
    let err = fails(&root, &["env", "list"]);
    assert!(err.contains("spec.json"), "{err}");
    assert!(!err.contains(TOKEN), "{err}");

    let app = new_app();
    write(
        app.root.join(".kf-journal"),
        &format!("{{\"steps\":\"{TOKEN}\"}}"),
    );
    let err = fails(&app.root, &["recover"]);
    assert!(err.contains(".kf-journal"), "{err}");
    assert!(!err.contains(TOKEN), "{err}");
}

// ---- Rule 3: present but unreadable is an error, never skipped ---------------------------

/// A FIFO named as an import, in the importing file's folder, was skipped as if absent:
/// the import read another file of that name further along the search path (vendor/).
#[test]
fn a_fifo_in_the_import_path_is_refused_not_searched_past() {
    let app = new_app();
    write(
        app.root.join("vendor/shared.libsonnet"),
        "{ v: 'from-vendor' }\n",
    );
    assert!(
        Command::new("mkfifo")
            .arg(app.root.join("components/shared.libsonnet"))
            .status()
            .unwrap()
            .success()
    );
    write(
        app.root.join("components/c.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { v: (import 'shared.libsonnet').v } }\n",
    );
    let run = kf_bounded(&app.root, &["show", "default"]);
    assert!(!run.stdout.contains("from-vendor"), "{}", run.stdout);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("components/shared.libsonnet") && run.stderr.contains("FIFO"),
        "{}",
        run.stderr
    );
}

// ---- Rule 1: kf's cleanup removes only its own staging ----------------------------------

/// Every command that takes the write lock deleted every `.kf-*` file of this user's
/// anywhere in the app (a clone's files are all the user's): `docs/.kf-notes.md`, a
/// `.github/.kf-ci.yml`, the staging of a nested app's kf in the middle of its commit.
#[test]
fn cleanup_leaves_kf_named_files_outside_the_folders_kf_stages_in() {
    let app = new_app();
    let notes = app.root.join("docs/.kf-notes.md");
    let ci = app.root.join(".github/.kf-ci.yml");
    let nested = app.root.join("examples/inner/.kf-abc.tmp");
    for f in [&notes, &ci, &nested] {
        write(f, "the user's\n");
    }
    let staged = app.root.join("components/.kf-left.tmp");
    write(&staged, "a killed kf's\n");
    ok(&app.root, &["generate", "namespace", "ns"]);
    for f in [&notes, &ci, &nested] {
        assert_eq!(read(f), "the user's\n", "{}", f.display());
    }
    assert!(
        !staged.exists(),
        "kf's own leftover staging is still removed"
    );
}
