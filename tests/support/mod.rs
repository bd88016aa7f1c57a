//! Running the real `kf` binary on real app folders.
#![allow(dead_code)]

pub mod apiserver;
pub mod cluster;
pub mod library;
pub mod objects;
pub mod proxy;
pub mod sentinel;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

pub fn kf_in(dir: &Path, args: &[&str]) -> Run {
    kf_in_with_env(dir, args, &[])
}

/// [`kf_in`] with extra environment variables.
pub fn kf_in_with_env(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .env_remove("KF_FAULT_POINT")
        .env_remove("JSONNET_PATH")
        .env_remove("KF_HELM")
        .envs(vars.iter().copied())
        .output()
        .expect("the kf binary runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run kf with its stdout closed before it writes (`kf … | head -0`): its exit status
/// (`None` for a signal) and stderr.
pub fn kf_with_closed_stdout(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .env_remove("KF_FAULT_POINT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the kf binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("the kf binary runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Run kf with its stderr closed before it writes (`kf … 2>&1 | true`, the reader gone):
/// its exit status (`None` for a signal).
pub fn kf_with_closed_stderr(dir: &Path, args: &[&str]) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .env_remove("KF_FAULT_POINT")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the kf binary runs");
    drop(child.stderr.take());
    child.wait().expect("the kf binary runs").code()
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

/// Point the app's `default` environment at `server`, namespace `namespace`.
pub fn point_default_env(root: &Path, server: &str, namespace: &str) {
    ok(
        root,
        &[
            "env",
            "set",
            "default",
            "--server",
            server,
            "--namespace",
            namespace,
        ],
    );
}

/// Components `settings` (a ConfigMap, `mode: fast`) and `web` (a Deployment and
/// Service of `image`).
pub fn generate_settings_and_web(root: &Path, image: &str) {
    ok(
        root,
        &[
            "generate",
            "configMap",
            "settings",
            "--data",
            r#"{"mode":"fast"}"#,
        ],
    );
    ok(
        root,
        &[
            "generate",
            "deployed-service",
            "web",
            &format!("--image={image}"),
        ],
    );
}

/// [`new_app`] with a web Deployment+Service (`web`), a ConfigMap (`settings`) and 3
/// replicas of web in prod.
pub fn web_and_settings_app() -> TempApp {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "deployed-service",
            "web",
            "--image",
            "nginx:1.27",
        ],
    );
    ok(
        &app.root,
        &[
            "generate",
            "configMap",
            "settings",
            "--data",
            r#"{"MODE":"fast"}"#,
        ],
    );
    ok(
        &app.root,
        &["param", "set", "web", "replicas", "3", "--env", "prod"],
    );
    app
}

/// Make a generated component one kf cannot tie to a prototype (as one ksonnet made, or
/// written by hand): `kf param set` then sets any key and types values as ksonnet did.
pub fn forget_prototype(root: &Path, component: &str) {
    let path = root.join("components").join(format!("{component}.jsonnet"));
    let text = read(&path);
    let (first, rest) = text
        .split_once('\n')
        .expect("a generated component has lines");
    assert!(
        first.starts_with("// Generated by kf from prototype "),
        "{first}"
    );
    write(&path, rest);
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
    let r = kf_in_with_env(dir, args, vars);
    assert_eq!(r.status, 0, "kf {args:?} failed: {}", r.stderr);
    r.stdout
}

/// Runs `python3 ARGS` with `stdin` as its input; `None` (and a note on stderr) when the
/// machine has no python3, for the tests that check generated Python and can only skip.
pub fn python3(args: &[&str], stdin: &str) -> Option<std::process::Output> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = match Command::new("python3")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("skipped: no python3 ({e})");
            return None;
        }
    };
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(stdin.as_bytes())
        .expect("python3 reads its input");
    Some(child.wait_with_output().expect("python3 runs"))
}

/// Run kf with `vars` set, its output read as it comes (so a large one cannot block it);
/// `None` if it had not ended after `limit` and was killed. A panic fails the test.
pub fn kf_within(
    dir: &Path,
    args: &[&str],
    vars: &[(&str, &std::ffi::OsStr)],
    limit: std::time::Duration,
) -> Option<Run> {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kf"))
        .args(args)
        .current_dir(dir)
        .env_remove("KF_FAULT_POINT")
        .env_remove("KF_TEST_FAIL_AT")
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kf binary runs");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("kf can be waited for") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let run = Run {
        status: status.code().unwrap_or(-1),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "kf panicked: {}",
        run.stderr
    );
    Some(run)
}

/// A registry folder with one package, `web`, whose prototype imports its library.
pub fn make_registry(dir: &Path, greeting: &str) {
    write(
        dir.join("registry.yaml"),
        "apiVersion: '0.1'\nkind: ksonnet.io/registry\nlibraries:\n  web:\n    path: web\n    version: master\n",
    );
    write(
        dir.join("web/parts.yaml"),
        "name: web\napiVersion: 0.0.1\nkind: ksonnet.io/parts\ndescription: A greeting ConfigMap\n",
    );
    write(
        dir.join("web/web.libsonnet"),
        &format!(
            "{{\n  config(name, ns):: {{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: name, namespace: ns }}, data: {{ greeting: '{greeting}' }} }},\n}}\n"
        ),
    );
    write(
        dir.join("web/prototypes/greeter.jsonnet"),
        "// @apiVersion 0.1\n// @name io.ksonnet.pkg.greeter\n// @description A greeting.\n// @shortDescription A greeting ConfigMap\n// @param name string Name\nlocal web = import 'team/web/web.libsonnet';\nweb.config(params.name, env.namespace)\n",
    );
}

/// Copy the folder `from` (files and folders only) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// A git repository in `dir` (a `.git` folder is enough for kf) holding
/// `libs/team/team.libsonnet` and a kf app `ml`: (the repository, the app).
pub fn app_in_repository(dir: &Path) -> (PathBuf, PathBuf) {
    let repo = dir.join("repo");
    std::fs::create_dir_all(repo.join(".git")).expect("mkdir .git");
    write(
        repo.join("libs/team/team.libsonnet"),
        "{ team: 'vision' }\n",
    );
    let app = init_ml_app(&repo);
    (repo, app)
}

/// `kf init ml` (namespace ml) in `parent`: the app's folder.
pub fn init_ml_app(parent: &Path) -> PathBuf {
    ok(
        parent,
        &[
            "init",
            "ml",
            "--namespace",
            "ml",
            "--server",
            "https://ml.example.com",
        ],
    );
    parent.join("ml")
}

/// An object's kind and name, to find it among others.
pub fn kind_and_name(o: &serde_json::Value) -> (String, String) {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    (text(&o["kind"]), text(&o["metadata"]["name"]))
}

/// The YAML documents a real tool (helm, kubectl) prints, empty ones left out; the tool
/// must succeed.
pub fn yaml_documents_of(cmd: &mut Command) -> Vec<serde_json::Value> {
    let out = cmd.output().expect("the tool runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    serde_saphyr::from_multiple::<serde_json::Value>(&text)
        .expect("YAML")
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

/// kf rendered what a real tool printed, object for object: as many objects, and each of
/// the tool's equal to kf's of its kind and name but for labels (kf adds its own).
pub fn assert_same_objects_but_labels(
    mine: &[serde_json::Value],
    theirs: &[serde_json::Value],
    what: &str,
) {
    let without_labels = |o: &serde_json::Value| {
        let mut o = o.clone();
        if let Some(meta) = o.get_mut("metadata").and_then(|m| m.as_object_mut()) {
            meta.remove("labels");
        }
        o
    };
    assert_eq!(mine.len(), theirs.len(), "{what}: how many objects");
    for doc in theirs {
        let found = mine
            .iter()
            .find(|i| kind_and_name(i) == kind_and_name(doc))
            .unwrap_or_else(|| panic!("{what}: {:?} is missing", kind_and_name(doc)));
        assert_eq!(
            without_labels(found),
            without_labels(doc),
            "{what}: {:?}",
            kind_and_name(doc)
        );
    }
}

/// Every object `kf show ENV -o json` renders in `app`.
pub fn rendered_objects(app: &TempApp, env: &str) -> Vec<serde_json::Value> {
    let out = ok(&app.root, &["show", env, "-o", "json"]);
    serde_json::from_str::<serde_json::Value>(&out).unwrap()["items"]
        .as_array()
        .unwrap()
        .clone()
}
