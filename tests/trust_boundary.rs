//! The trust boundary, rule by rule (docs/security.md): each rule is tried with several
//! shapes of attack — a shipped state file, a symlink out, a FIFO, a device, an oversized
//! file, a foreign owner — against every reader or writer it governs, with a sentinel
//! outside the app that must stay untouched and unprinted. No command may hang: every
//! run here is killed after a bound, and a kill fails the test.
#![cfg(unix)]

mod support;

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use support::sentinel::Sentinel;
use support::*;

/// Run kf with `vars`, killed (and the test failed) if it runs past 30 s.
fn bounded(dir: &Path, args: &[&str], vars: &[(&str, &Path)]) -> Run {
    let vars: Vec<(&str, &std::ffi::OsStr)> =
        vars.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    kf_within(dir, args, &vars, Duration::from_secs(30))
        .unwrap_or_else(|| panic!("kf {args:?} hung"))
}

fn refused(r: &Run, what: &str) -> String {
    assert_ne!(r.status, 0, "{what}: kf should refuse\n{}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{what}: {}", r.stderr);
    for leak in ["SECRET-TOKEN", "precious"] {
        assert!(
            !r.stderr.contains(leak) && !r.stdout.contains(leak),
            "{what}: printed the sentinel: {}{}",
            r.stdout,
            r.stderr
        );
    }
    r.stderr.clone()
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(1)
        == 0
}

fn skipped(what: &str) {
    eprintln!("SKIPPED (needs root to own files as another user): {what}");
}

/// What a kf state file or app file can be replaced by: each a way to leak, hang or blow up.
enum Shape {
    LinkToKubeconfig,
    LinkToDevZero,
    Fifo,
    Folder,
    Oversized,
}

const SHAPES: [Shape; 5] = [
    Shape::LinkToKubeconfig,
    Shape::LinkToDevZero,
    Shape::Fifo,
    Shape::Folder,
    Shape::Oversized,
];

impl Shape {
    fn plant(&self, path: &Path, sentinel: &Sentinel) {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_dir_all(path);
        match self {
            Shape::LinkToKubeconfig => symlink(sentinel.dir.join("kubeconfig"), path).unwrap(),
            Shape::LinkToDevZero => symlink("/dev/zero", path).unwrap(),
            Shape::Fifo => mkfifo(path),
            Shape::Folder => std::fs::create_dir(path).unwrap(),
            // Sparse: larger than any cap kf reads, at no cost.
            Shape::Oversized => std::fs::File::create(path)
                .unwrap()
                .set_len(80 * 1024 * 1024)
                .unwrap(),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Shape::LinkToKubeconfig => "a symlink to a kubeconfig",
            Shape::LinkToDevZero => "a symlink to /dev/zero",
            Shape::Fifo => "a FIFO",
            Shape::Folder => "a folder",
            Shape::Oversized => "an 80 MiB file",
        }
    }
}

/// The app at the root of a git repository, as a clone has it.
fn app_in_a_repo() -> (TempApp, Sentinel) {
    let app = new_app();
    write(app.root.join(".git/config"), "[core]\n\tbare = false\n");
    write(app.root.join(".git/hooks/README"), "hooks\n");
    let sentinel = Sentinel::beside(&app);
    (app, sentinel)
}

// ---- Rule 1: kf's own state files are data from a stranger --------------------------

/// A clone holds a `.kf-journal` that renames a shipped file over `.git/config` (the
/// next `git status` would run its fsmonitor command) or plants a hook: unsigned, signed
/// with a key that is not this user's, or pointing at `.git` through a symlinked folder.
/// No command replays it — reading ones refuse, writing ones and `kf recover` refuse
/// with the reason — and the repository is as it was.
#[test]
fn a_journal_that_came_with_the_folder_is_never_replayed() {
    let evil = "[core]\n\tfsmonitor = touch /tmp/kf-pwned\n";
    let journals = [
        r#"{"steps":[{"op":"rename","from":".kf-evil","to":".git/config"}]}"#.to_string(),
        r#"{"steps":[{"op":"rename","from":".kf-evil","to":".git/hooks/pre-commit"}],"mac":"00"}"#
            .to_string(),
        format!(
            r#"{{"steps":[{{"op":"rename","from":".kf-evil","to":"components/x.jsonnet"}}],"mac":"{}"}}"#,
            "ab".repeat(32)
        ),
        r#"{"steps":[{"op":"move","from":".git","to":".kf-old-1/x"},{"op":"remove_tree","path":".kf-old-1"}],"mac":""}"#
            .to_string(),
        r#"{"steps":[{"op":"remove_file","path":"gitdir/config"}]}"#.to_string(),
    ];
    for journal in &journals {
        let (app, sentinel) = app_in_a_repo();
        symlink(app.root.join(".git"), app.root.join("gitdir")).unwrap();
        write(app.root.join(".kf-evil"), evil);
        write(app.root.join(".kf-journal"), journal);
        let git_before = snapshot(&app.root.join(".git"));
        for args in [
            &["show", "default"][..],
            &["param", "list"],
            &["env", "list"],
            &["validate", "default"],
        ] {
            let err = refused(&bounded(&app.root, args, &[]), journal);
            assert!(err.contains("kf recover"), "{args:?}: {err}");
        }
        for args in [
            &["recover"][..],
            &["param", "set", "ns", "name", "x"],
            &["env", "current", "--set", "default"],
        ] {
            let err = refused(&bounded(&app.root, args, &[]), journal);
            assert!(
                err.contains("replays only journals it wrote itself"),
                "{args:?}: {err}"
            );
        }
        assert_eq!(snapshot(&app.root.join(".git")), git_before, "{journal}");
        assert_eq!(read(app.root.join(".kf-evil")), evil);
        assert!(app.root.join(".kf-journal").exists());
        sentinel.assert_unchanged();
    }
}

/// A journal kf really wrote, killed mid-change, is replayed only by the same user for
/// the same folder: not by another user (another state folder, so another secret), not
/// after the app was copied elsewhere, and not when it is not the user's own file.
#[test]
fn a_real_journal_is_replayed_only_by_its_user_in_its_folder() {
    let scratch = tempfile::tempdir().unwrap();
    let alice = scratch.path().join("alice-state");
    let mallory = scratch.path().join("mallory-state");
    let app = new_app();
    let killed = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args([
            "generate",
            "configMap",
            "settings",
            "--data",
            r#"{"a":"b"}"#,
        ])
        .current_dir(&app.root)
        .env("XDG_STATE_HOME", &alice)
        .env("KF_TEST_FAIL_AT", "2")
        .output()
        .unwrap();
    assert!(!killed.status.success());
    assert!(app.root.join(".kf-journal").is_file());

    let err = refused(
        &bounded(&app.root, &["recover"], &[("XDG_STATE_HOME", &mallory)]),
        "another user",
    );
    assert!(err.contains("not this user's kf's"), "{err}");

    let copy = scratch.path().join("copy");
    Command::new("cp")
        .args(["-a"])
        .arg(&app.root)
        .arg(&copy)
        .status()
        .unwrap();
    let err = refused(
        &bounded(&copy, &["recover"], &[("XDG_STATE_HOME", &alice)]),
        "a moved app",
    );
    assert!(err.contains("the app was moved"), "{err}");

    let run = bounded(&app.root, &["recover"], &[("XDG_STATE_HOME", &alice)]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("Finished the change"), "{}", run.stdout);
    assert!(!app.root.join(".kf-journal").exists());
    assert!(ok(&app.root, &["component", "list"]).contains("settings"));

    if is_root() {
        // The same journal, owned by another user, is not this user's.
        let again = Command::new(env!("CARGO_BIN_EXE_kf"))
            .args(["generate", "configMap", "more", "--data", r#"{"a":"b"}"#])
            .current_dir(&app.root)
            .env("XDG_STATE_HOME", &alice)
            .env("KF_TEST_FAIL_AT", "2")
            .output()
            .unwrap();
        assert!(!again.status.success());
        std::os::unix::fs::chown(app.root.join(".kf-journal"), Some(12345), None).unwrap();
        let err = refused(
            &bounded(&app.root, &["recover"], &[("XDG_STATE_HOME", &alice)]),
            "a journal of another uid",
        );
        assert!(err.contains("belongs to another user"), "{err}");
    } else {
        skipped("a journal owned by another user");
    }
}

/// `.kf-journal` and `.ks_environment` replaced by a symlink to a kubeconfig, a symlink
/// to /dev/zero, a FIFO, a folder or an 80 MiB file: every command that reads them
/// refuses at once, names the file and prints nothing of what it points to.
#[test]
fn state_files_of_every_wrong_kind_are_refused_without_hanging() {
    for shape in SHAPES {
        let app = new_app();
        let sentinel = Sentinel::beside(&app);
        shape.plant(&app.root.join(".ks_environment"), &sentinel);
        for args in [&["env", "current"][..], &["show"], &["diff"]] {
            let r = bounded(&app.root, args, &[]);
            let err = refused(&r, shape.name());
            assert!(
                err.contains(".ks_environment"),
                "{args:?}, {}: {err}",
                shape.name()
            );
        }
        sentinel.assert_unchanged();

        let app = new_app();
        let sentinel = Sentinel::beside(&app);
        shape.plant(&app.root.join(".kf-journal"), &sentinel);
        let err = refused(&bounded(&app.root, &["recover"], &[]), shape.name());
        assert!(err.contains(".kf-journal"), "{}: {err}", shape.name());
        let err = refused(&bounded(&app.root, &["show", "default"], &[]), shape.name());
        assert!(err.contains("kf recover"), "{}: {err}", shape.name());
        sentinel.assert_unchanged();
    }
    // A regular `.ks_environment` holding something that is no environment name (here a
    // kubeconfig's text) is refused without being echoed.
    let app = new_app();
    write(
        app.root.join(".ks_environment"),
        "apiVersion: v1\nusers:\n- user:\n    token: SECRET-TOKEN-123\n",
    );
    for args in [&["env", "current"][..], &["show"]] {
        let err = refused(&bounded(&app.root, args, &[]), "kubeconfig text");
        assert!(err.contains("does not hold an environment name"), "{err}");
    }
}

/// Staging files (`.kf-*`) that another user put in the app are theirs: kf's cleanup of
/// its own leftovers does not delete them.
#[test]
fn another_users_staging_files_are_not_cleaned_up() {
    if !is_root() {
        return skipped("staging files owned by another user");
    }
    let app = new_app();
    write(app.root.join("components/.kf-theirs.tmp"), "not kf's\n");
    std::os::unix::fs::chown(
        app.root.join("components/.kf-theirs.tmp"),
        Some(12345),
        None,
    )
    .unwrap();
    write(app.root.join("components/.kf-mine.tmp"), "kf's\n");
    ok(&app.root, &["env", "current", "--set", "default"]);
    assert!(app.root.join("components/.kf-theirs.tmp").exists());
    assert!(!app.root.join("components/.kf-mine.tmp").exists());
}

// ---- Rule 2: which app, and whose -------------------------------------------------

/// The search for app.yaml from a subfolder stops before a folder anybody may create
/// files in (`/tmp`), a folder or an app.yaml of another user, and the folder above
/// `$HOME`: another user's app there (with a journal) is never adopted.
#[test]
fn the_app_search_stops_at_shared_and_foreign_folders() {
    let scratch = tempfile::tempdir().unwrap();
    let shared = scratch.path().join("shared");
    ok(scratch.path(), &["init", "shared"]);
    write(
        shared.join(".kf-journal"),
        r#"{"steps":[{"op":"remove_file","path":"app.yaml"}]}"#,
    );
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let work = shared.join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o755)).unwrap();
    for args in [&["show", "default"][..], &["env", "list"], &["recover"]] {
        let err = refused(&bounded(&work, args, &[]), "a shared parent");
        assert!(
            err.contains("no ksonnet app here") && err.contains("anybody may create files in it"),
            "{args:?}: {err}"
        );
    }
    assert!(shared.join(".kf-journal").exists() && shared.join("app.yaml").exists());

    // Above $HOME.
    let home_parent = scratch.path().join("homes");
    ok(scratch.path(), &["init", "homes"]);
    let home = home_parent.join("user");
    std::fs::create_dir_all(home.join("project")).unwrap();
    let err = refused(
        &bounded(&home.join("project"), &["env", "list"], &[("HOME", &home)]),
        "above home",
    );
    assert!(err.contains("above your home folder"), "{err}");
    // From inside the app itself everything works as ever.
    ok(&home_parent, &["env", "list"]);

    if !is_root() {
        return skipped("folders and app.yaml files owned by another user");
    }
    let theirs = scratch.path().join("theirs");
    ok(scratch.path(), &["init", "theirs"]);
    std::fs::create_dir(theirs.join("mine")).unwrap();
    std::os::unix::fs::chown(&theirs, Some(12345), None).unwrap();
    let err = refused(
        &bounded(&theirs.join("mine"), &["env", "list"], &[]),
        "a foreign folder",
    );
    assert!(err.contains("belongs to uid 12345"), "{err}");

    let planted = scratch.path().join("planted");
    ok(scratch.path(), &["init", "planted"]);
    std::fs::create_dir(planted.join("mine")).unwrap();
    std::os::unix::fs::chown(planted.join("app.yaml"), Some(12345), None).unwrap();
    let err = refused(
        &bounded(&planted.join("mine"), &["env", "list"], &[]),
        "a foreign app.yaml",
    );
    assert!(err.contains("its app.yaml belongs to uid 12345"), "{err}");
}

// ---- Rule 3: every file kf reads for a render is read through the sandbox ----------

fn set_k8s_version(root: &Path, file: &str, version: &str) {
    let path = root.join(file);
    let text = read(&path);
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("k8sVersion:") {
            let indent = &line[..line.len() - line.trim_start().len()];
            out.push_str(&format!("{indent}k8sVersion: '{version}'\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    write(&path, &out);
}

/// `k8sVersion` names a folder below `lib/ksonnet-lib/`: one that is not a version (`/`,
/// `../../x`, a version with a path after it) is refused when the app is read, in
/// app.yaml and in app.override.yaml, before anything reads or joins it.
#[test]
fn a_k8s_version_that_is_not_a_version_is_refused() {
    for version in [
        "/",
        "../../outside",
        "v1.10.3/../../../outside",
        "/etc",
        "v1.10.3\n",
    ] {
        let app = new_app();
        let sentinel = Sentinel::beside(&app);
        write(
            sentinel.dir.join("k.libsonnet"),
            "{ precious: 'SECRET-TOKEN' }\n",
        );
        std::fs::remove_dir_all(app.root.join("lib")).unwrap();
        write(
            app.root.join("components/cm.jsonnet"),
            "(import 'k.libsonnet')\n",
        );
        set_k8s_version(&app.root, "app.yaml", version);
        let err = refused(&bounded(&app.root, &["show", "default"], &[]), version);
        assert!(err.contains("k8sVersion"), "{version:?}: {err}");
        // The line of app.yaml that holds it.
        let at_line = err
            .split("app.yaml:")
            .nth(1)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        assert!(at_line, "{version:?}: {err}");
    }
    let app = new_app();
    write(
        app.root.join("app.override.yaml"),
        "apiVersion: 0.1.0\nkind: ksonnet.io/app-override\nenvironments:\n  default:\n    k8sVersion: ../../x\n",
    );
    let err = refused(&bounded(&app.root, &["env", "list"], &[]), "override");
    assert!(
        err.contains("app.override.yaml:5:") && err.contains("k8sVersion"),
        "{err}"
    );
}

/// Every file an app hands kf to read before or while rendering — app.yaml,
/// app.override.yaml, a component, a params file, an env's main.jsonnet, a library's
/// swagger.json, an imported file — replaced by each wrong shape: kf refuses (or, for a
/// file it merely looks for, does without it), never hangs, never prints the sentinel,
/// and copies nothing of it into its cache.
#[test]
fn every_file_a_render_reads_refuses_every_wrong_shape() {
    let files = [
        "app.yaml",
        "app.override.yaml",
        "components/leak.yaml",
        "components/params.libsonnet",
        "environments/default/main.jsonnet",
        "environments/default/params.libsonnet",
        "lib/ksonnet-lib/v1.33.0/swagger.json",
        "components/imported.libsonnet",
    ];
    let cache = tempfile::tempdir().unwrap();
    for file in files {
        for shape in SHAPES {
            let app = new_app();
            let sentinel = Sentinel::beside(&app);
            ok(
                &app.root,
                &["generate", "configMap", "cm", "--data", r#"{"a":"b"}"#],
            );
            write(
                app.root.join("components/user.jsonnet"),
                "local k = import 'k.libsonnet';\nlocal i = import 'imported.libsonnet';\nk.core.v1.configMap.new('user', { a: std.toString(i) })\n",
            );
            write(app.root.join("components/imported.libsonnet"), "{ x: 1 }\n");
            std::fs::remove_file(app.root.join("lib/ksonnet-lib/v1.33.0/k.libsonnet")).unwrap();
            shape.plant(&app.root.join(file), &sentinel);
            let what = format!("{file} as {}", shape.name());
            let r = bounded(
                &app.root,
                &["show", "default"],
                &[("XDG_CACHE_HOME", cache.path())],
            );
            if file == "components/leak.yaml" && matches!(shape, Shape::Folder) {
                // A folder is no component: rendered without it.
                assert_eq!(r.status, 0, "{what}: {}", r.stderr);
                assert!(!r.stdout.contains("SECRET-TOKEN"), "{what}");
            } else {
                let err = refused(&r, &what);
                let name = Path::new(file).file_name().unwrap().to_str().unwrap();
                assert!(err.contains(name), "{what}: the error names no file: {err}");
            }
            sentinel.assert_unchanged();
        }
    }
    for (path, bytes) in snapshot(cache.path()) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains("SECRET-TOKEN"),
            "{} holds the sentinel",
            path.display()
        );
    }
}

// ---- Rule 4: caches shared between apps, users and CI jobs -------------------------

fn app_without_lib() -> TempApp {
    let app = new_app();
    std::fs::remove_dir_all(app.root.join("lib")).unwrap();
    write(
        app.root.join("components/cm.jsonnet"),
        "local k = import 'k.libsonnet';\nk.core.v1.configMap.new('cm', { a: 'b' })\n",
    );
    app
}

fn cache_entries(cache: &Path) -> Vec<PathBuf> {
    let lib = cache.join("kf/ksonnet-lib");
    let Ok(entries) = std::fs::read_dir(lib) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("k.libsonnet").exists())
        .collect()
}

/// The generated ksonnet-lib in `$XDG_CACHE_HOME/kf`: kf uses it only while the folders
/// are this user's alone and every file it reads is as kf wrote it, signed with this
/// user's secret. A planted change, a foreign signature, a cache folder others may write
/// in and an entry others may write in are each refused, and nothing planted renders.
#[test]
fn the_ksonnet_lib_cache_is_used_only_while_private_and_unchanged() {
    let scratch = tempfile::tempdir().unwrap();
    let cache = scratch.path().join("cache");
    let state = scratch.path().join("state");
    let other_state = scratch.path().join("other-state");
    let vars = |state: &Path| -> Vec<(&'static str, PathBuf)> {
        vec![
            ("XDG_CACHE_HOME", cache.clone()),
            ("XDG_STATE_HOME", state.to_path_buf()),
        ]
    };
    let show = |app: &TempApp, state: &Path| {
        let v = vars(state);
        let v: Vec<(&str, &Path)> = v.iter().map(|(k, p)| (*k, p.as_path())).collect();
        bounded(&app.root, &["show", "default"], &v)
    };
    let app = app_without_lib();
    let first = show(&app, &state);
    assert_eq!(first.status, 0, "{}", first.stderr);
    assert!(first.stdout.contains("name: cm"));
    let entries = cache_entries(&cache);
    assert_eq!(entries.len(), 1, "{entries:?}");
    let entry = &entries[0];
    let mode = std::fs::metadata(cache.join("kf")).unwrap().mode();
    assert_eq!(mode & 0o777, 0o700, "{mode:o}");

    // A file changed by someone else.
    let k = entry.join("k.libsonnet");
    let original = read(&k);
    write(&k, &format!("{original}\n+ {{ planted:: 'PLANTED' }}\n"));
    let err = refused(&show(&app, &state), "a planted k.libsonnet");
    assert!(err.contains("is not as kf wrote it"), "{err}");
    write(&k, &original);
    assert_eq!(show(&app, &state).status, 0);

    // An entry whose manifest another user's secret signed.
    let err = refused(&show(&app, &other_state), "a foreign signature");
    assert!(err.contains("not signed by this user's kf"), "{err}");

    // An entry others may write in.
    std::fs::set_permissions(entry, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = refused(&show(&app, &state), "a writable entry");
    assert!(err.contains("others may write in it"), "{err}");
    std::fs::set_permissions(entry, std::fs::Permissions::from_mode(0o755)).unwrap();

    // A cache folder others may write in (a shared XDG_CACHE_HOME made first by another
    // user): not used, said so, and nothing is generated into it.
    std::fs::remove_dir_all(cache.join("kf")).unwrap();
    std::fs::create_dir_all(cache.join("kf/ksonnet-lib")).unwrap();
    std::fs::set_permissions(cache.join("kf"), std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = refused(&show(&app, &state), "a shared cache folder");
    assert!(
        err.contains("is not a folder of this user's alone"),
        "{err}"
    );
    assert!(cache_entries(&cache).is_empty());
}

/// Files the user names (`--values-file`, `--ext-str-file`, `import -f`,
/// `init --api-spec file:`) are followed through symlinks, but a FIFO or a device given by
/// mistake is refused at once, never waited on; an API spec whose version is not one
/// cannot name a folder.
#[test]
fn files_named_on_the_command_line_are_never_waited_on() {
    let app = new_app();
    let fifo = app.root.parent().unwrap().join("fifo.yaml");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    for args in [
        vec!["generate", "configMap", "cm", "--values-file", f],
        vec!["show", "default", "--ext-str-file", &format!("x={f}")],
        vec!["import", "-f", f],
        vec!["env", "add", "stage", "--api-spec", &format!("file:{f}")],
        vec!["show", "default", "--ext-str-file", "x=/dev/zero"],
    ] {
        let err = refused(&bounded(&app.root, &args, &[]), &args.join(" "));
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    let spec = app.root.parent().unwrap().join("swagger.json");
    write(
        &spec,
        r#"{"swagger":"2.0","info":{"version":"../../../x"},"definitions":{},"paths":{}}"#,
    );
    let err = refused(
        &bounded(
            &app.root,
            &[
                "env",
                "add",
                "stage",
                "--api-spec",
                &format!("file:{}", spec.display()),
            ],
            &[],
        ),
        "a crafted info.version",
    );
    assert!(err.contains("not a Kubernetes version"), "{err}");
    assert!(!app.root.parent().unwrap().join("x").exists());
}
