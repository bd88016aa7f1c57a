//! Everything that can wait has a bound: generating ksonnet-lib from a crafted API spec,
//! fetching a git registry whose server never answers, reading a folder registry that
//! holds FIFOs, devices, symlinks and huge files, and the errors of a kubeconfig's exec
//! credential plugin or an API server that quote a token.
//!
//! Every kf here runs under [`kf_bounded`], which kills it and fails the test if it
//! outlives a generous limit: a regression fails, it never hangs the suite.

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use support::*;

/// Far more than any bounded command here takes, even on a loaded CI runner.
const OUTER_LIMIT: Duration = Duration::from_secs(90);

/// Run kf with `vars` set; kill it and fail the test if it has not ended by `OUTER_LIMIT`.
fn kf_bounded(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let vars: Vec<(&str, &std::ffi::OsStr)> = vars
        .iter()
        .map(|(k, v)| (*k, std::ffi::OsStr::new(*v)))
        .collect();
    kf_within(dir, args, &vars, OUTER_LIMIT)
        .unwrap_or_else(|| panic!("kf {args:?} did not end within {OUTER_LIMIT:?}: it hangs"))
}

/// [`kf_bounded`], requiring exit 1 with an error; returns stderr.
fn fails_bounded(dir: &Path, args: &[&str]) -> String {
    let run = kf_bounded(dir, args, &[]);
    assert_eq!(
        run.status, 1,
        "kf {args:?} should fail:\nstdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    run.stderr
}

// ---------------------------------------------------------------------------------------
// ksonnet-lib generation from a crafted spec

/// A swagger 2.0 spec with these definitions (and no paths).
fn swagger(definitions: serde_json::Value) -> String {
    serde_json::json!({
        "swagger": "2.0",
        "info": { "title": "Kubernetes", "version": "v1.10.3" },
        "paths": {},
        "definitions": definitions,
    })
    .to_string()
}

fn object_with(properties: &[&str]) -> serde_json::Value {
    let props: serde_json::Map<String, serde_json::Value> = properties
        .iter()
        .map(|p| (p.to_string(), serde_json::json!({ "type": "string" })))
        .collect();
    serde_json::json!({ "type": "object", "properties": props })
}

#[test]
fn a_spec_whose_names_repeat_io_k8s_generates_a_library_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // 140 kB of names that each repeat `io.k8s.` 140 times (every offset a place where a
    // backtracking match could start), all the same kind, plus thousands of kinds of one
    // name: ksonnet-lib's name patterns, its suffixes for clashing names and its files per
    // group all have to stay linear.
    let mut defs = serde_json::Map::new();
    for i in 0..140 {
        defs.insert(
            format!("x{i}.{}api.apps.v1.Deployment", "io.k8s.".repeat(140)),
            object_with(&["replicas"]),
        );
    }
    for i in 0..3000 {
        defs.insert(format!("a{i}.io.k8s.api.core.v1.Pod"), object_with(&["x"]));
        defs.insert(format!("io.k8s.api.g{i}.v1.Kind"), object_with(&["y"]));
    }
    defs.insert(
        format!("{}io.k8s.api.core.v1.Plain", "io.k8s.".repeat(140)),
        object_with(&["a"]),
    );
    let spec = dir.path().join("crafted.json");
    std::fs::write(&spec, swagger(defs.into())).unwrap();
    let run = kf_bounded(
        dir.path(),
        &[
            "init",
            "app",
            &format!("--api-spec=file:{}", spec.display()),
        ],
        &[],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let lib = dir.path().join("app/lib/ksonnet-lib/v1.10.3");
    // Each definition has its own part files (named by its place in its group where its
    // name had to take a suffix); `hidden` lists a name once, for its first definition.
    let parts = |prefix: &str| {
        std::fs::read_dir(lib.join("k8s"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(prefix)
            })
            .count()
    };
    assert_eq!(parts("apps.v1.lits."), 140);
    assert!(lib.join("k8s/apps.v1.lits.deployment.libsonnet").is_file());
    let hidden = read(lib.join("k8s/apps.v1.hidden.libsonnet"));
    assert_eq!(hidden.matches("deployment::").count(), 1, "{hidden}");
    assert_eq!(parts("core.v1.lits."), 3001);
    assert!(lib.join("k8s/g2999.v1.libsonnet").is_file());
}

#[test]
fn names_longer_than_any_kubernetes_name_are_refused_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let repeated = "io.k8s.".repeat(20_000);
    let long_property = format!("p{}", "x".repeat(5000));
    for (file, defs, wanted) in [
        (
            "long-definition.json",
            serde_json::json!({ repeated.clone(): { "type": "object" } }),
            "a definition name of 140000 bytes",
        ),
        (
            "long-property.json",
            serde_json::json!({ "io.k8s.api.core.v1.Pod": object_with(&[&long_property]) }),
            "a property name in definition io.k8s.api.core.v1.Pod of 5001 bytes",
        ),
    ] {
        let spec = dir.path().join(file);
        std::fs::write(&spec, swagger(defs)).unwrap();
        let err = fails_bounded(
            dir.path(),
            &[
                "init",
                "app",
                &format!("--api-spec=file:{}", spec.display()),
            ],
        );
        assert!(
            err.contains(file) && err.contains(wanted) && err.contains("at most 1024 bytes"),
            "{err}"
        );
        assert!(err.len() < 1000, "the name is not printed whole: {err}");
        assert!(!dir.path().join("app").exists());
    }
}

#[test]
fn generating_the_library_counts_against_eval_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // A plain, large spec: generating from it takes far longer than the watchdog's first
    // look (100 ms), so with a zero --eval-timeout the watchdog, not the end of the
    // generation, ends kf.
    let mut defs = serde_json::Map::new();
    let props: Vec<String> = (0..40).map(|j| format!("p{j}")).collect();
    let props: Vec<&str> = props.iter().map(String::as_str).collect();
    for i in 0..3000 {
        defs.insert(format!("io.k8s.api.apps.v1.K{i}"), object_with(&props));
    }
    let spec = dir.path().join("large.json");
    std::fs::write(&spec, swagger(defs.into())).unwrap();
    let err = fails_bounded(
        dir.path(),
        &[
            "init",
            "app",
            &format!("--api-spec=file:{}", spec.display()),
            "--eval-timeout",
            "0s",
        ],
    );
    assert!(
        err.contains(&format!(
            "ksonnet-lib from {}: generation took longer than --eval-timeout 0s",
            spec.display()
        )) && err.contains("raise --eval-timeout"),
        "{err}"
    );
    assert!(!dir.path().join("app").exists());
}

/// A served name a file system cannot hold (a NUL byte in a kind's version) is refused
/// before anything is staged or journaled: before, the journal's rename could never be
/// carried out, and `kf recover` could never finish, with app.yaml already rewritten.
#[test]
fn a_served_name_no_file_system_holds_is_refused_before_the_journal() {
    let app = new_app();
    let mut defs = serde_json::Map::new();
    defs.insert(
        "io.k8s.api.apps.v1\u{0}x.Deployment".into(),
        object_with(&["replicas"]),
    );
    defs.insert("io.k8s.api.core.v1.Pod".into(), object_with(&["x"]));
    let spec = app.root.join("../served.json");
    std::fs::write(&spec, swagger(defs.into())).unwrap();
    let before = snapshot(&app.root);
    let err = fails_bounded(
        &app.root,
        &[
            "env",
            "set",
            "prod",
            &format!("--api-spec=file:{}", spec.display()),
        ],
    );
    assert!(err.contains("a file name cannot hold a NUL byte"), "{err}");
    assert!(err.contains("apps.v1\\0x"), "{err}");
    assert_eq!(snapshot(&app.root), before);
    assert!(!app.root.join(".kf-journal").exists());
    ok(&app.root, &["show", "prod"]);
}

/// 100,001 definitions in one `$ref` chain (12 MB): refused at once, before any file is
/// generated or written (it made kf write 200,000 files in a minute).
#[test]
fn a_spec_of_more_definitions_than_any_cluster_serves_is_refused_at_once() {
    let app = new_app();
    let n = 100_001;
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = if i + 1 < n {
            serde_json::json!({ "$ref": format!("#/definitions/io.k8s.api.chain.v1.T{}", i + 1) })
        } else {
            serde_json::json!({ "type": "string" })
        };
        defs.insert(
            format!("io.k8s.api.chain.v1.T{i}"),
            serde_json::json!({ "type": "object", "properties": { "next": next } }),
        );
    }
    let spec = app.root.join("../chain.json");
    std::fs::write(&spec, swagger(defs.into())).unwrap();
    let before = snapshot(&app.root);
    let err = fails_bounded(
        &app.root,
        &[
            "env",
            "set",
            "prod",
            &format!("--api-spec=file:{}", spec.display()),
        ],
    );
    assert!(
        err.contains("100001 definitions, over kf's bound of 50000 definitions"),
        "{err}"
    );
    assert_eq!(snapshot(&app.root), before);
}

/// A library made anew replaces its folder: no file of the spec it replaces stays.
#[test]
fn regenerating_a_library_removes_the_files_of_the_spec_it_replaces() {
    let app = new_app();
    let dir = tempfile::tempdir().unwrap();
    let spec_of = |group: &str| {
        let mut defs = serde_json::Map::new();
        defs.insert(
            format!("io.k8s.api.{group}.v1.Kind"),
            object_with(&["field"]),
        );
        let path = dir.path().join(format!("{group}.json"));
        std::fs::write(&path, swagger(defs.into())).unwrap();
        format!("--api-spec=file:{}", path.display())
    };
    ok(&app.root, &["env", "set", "prod", &spec_of("first")]);
    let lib = app.root.join("lib/ksonnet-lib/v1.10.3/k8s");
    assert!(lib.join("first.v1.libsonnet").is_file());
    ok(&app.root, &["env", "set", "prod", &spec_of("second")]);
    assert!(lib.join("second.v1.libsonnet").is_file());
    assert!(!lib.join("first.v1.libsonnet").exists());
    let swagger = read(app.root.join("lib/ksonnet-lib/v1.10.3/swagger.json"));
    assert!(swagger.contains("second") && !swagger.contains("first"));
}

// ---------------------------------------------------------------------------------------
// git registries whose server never answers

/// How a fake git server on 127.0.0.1 (fails to) answer.
#[derive(Clone, Copy, Debug)]
enum Silence {
    /// Never accepts: connections wait in the listen backlog.
    NeverAccepts,
    /// Accepts, reads the request, answers nothing.
    AcceptsAndSaysNothing,
    /// Starts an answer (headers promising a body) and stops.
    StallsMidReply,
}

/// A server that behaves as `how`, with the URL of a repository on it. `closed` gets one
/// message for each connection the client closed (read returned 0 or failed): so the
/// test knows git's helper was killed, not left waiting.
fn silent_git_server(how: Silence) -> (String, std::sync::mpsc::Receiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/team/registry.git",
        listener.local_addr().unwrap()
    );
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if let Silence::NeverAccepts = how {
            std::thread::sleep(OUTER_LIMIT * 2);
            drop(listener);
            return;
        }
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let tx = tx.clone();
            std::thread::spawn(move || hold(&mut stream, how, &tx));
        }
    });
    (url, rx)
}

fn hold(stream: &mut TcpStream, how: Silence, closed: &std::sync::mpsc::Sender<()>) {
    let _ = stream.set_read_timeout(Some(OUTER_LIMIT));
    let mut buf = [0u8; 4096];
    let mut answered = false;
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if let (Silence::StallsMidReply, false) = (how, answered) {
                    answered = true;
                    let _ = stream.write_all(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\nContent-Length: 100000\r\n\r\n001e# service=git-upload-pack\n",
                    );
                }
            }
        }
    }
    let _ = closed.send(());
}

/// An app whose app.yaml names the registry `slow` at `url`.
fn app_with_git_registry(url: &str) -> TempApp {
    let app = new_app();
    let path = app.root.join("app.yaml");
    let yaml = read(&path);
    write(
        &path,
        &format!("{yaml}registries:\n  slow:\n    protocol: git\n    uri: {url}\n"),
    );
    app
}

#[test]
fn a_git_registry_that_never_answers_ends_at_timeout_naming_the_url() {
    for how in [
        Silence::AcceptsAndSaysNothing,
        Silence::NeverAccepts,
        Silence::StallsMidReply,
    ] {
        let (url, closed) = silent_git_server(how);
        let app = app_with_git_registry(&url);
        let before = snapshot(&app.root);
        let mut verbs = vec![
            vec!["pkg", "list", "--timeout", "2s"],
            vec!["pkg", "install", "slow/web", "--timeout", "1s"],
        ];
        if let Silence::AcceptsAndSaysNothing = how {
            verbs.extend([
                vec!["pkg", "describe", "slow/web", "--timeout", "1s"],
                vec!["registry", "describe", "slow", "--timeout", "1s"],
                vec!["registry", "add", "other", &url, "--timeout", "1s"],
                vec!["registry", "set", "slow", "--uri", &url, "--timeout", "1s"],
            ]);
        }
        for args in verbs {
            let err = fails_bounded(&app.root, &args);
            let timeout = args[args.len() - 1];
            assert!(
                err.contains(&format!(
                    "{url}: git clone did not finish within --timeout {timeout}"
                )) && err.contains("raise --timeout"),
                "{how:?} {args:?}: {err}"
            );
            if let Silence::AcceptsAndSaysNothing | Silence::StallsMidReply = how {
                // git's HTTP helper held the connection: it was killed with git.
                assert!(
                    closed.recv_timeout(Duration::from_secs(20)).is_ok(),
                    "{how:?} {args:?}: the connection stayed open after kf ended"
                );
            }
        }
        assert_eq!(snapshot(&app.root), before, "{how:?}: nothing written");
    }
}

#[test]
fn registry_and_pkg_verbs_take_a_timeout_with_a_default() {
    let app = new_app();
    for verb in [
        &["registry", "add"][..],
        &["registry", "describe"],
        &["registry", "set"],
        &["pkg", "install"],
        &["pkg", "list"],
        &["pkg", "describe"],
    ] {
        let mut args = verb.to_vec();
        args.push("--help");
        let help = kf_bounded(&app.root, &args, &[]).stdout;
        assert!(
            help.contains("--timeout <DURATION>") && help.contains("[default: 2m]"),
            "{verb:?}: {help}"
        );
    }
    let err = fails_bounded(&app.root, &["pkg", "list", "--timeout", "soon"]);
    assert!(err.contains("'soon' is not a duration"), "{err}");
}

// ---------------------------------------------------------------------------------------
// folder registries holding what is not a regular file

/// A folder registry `reg` beside the app, with one package `web`.
fn folder_registry(app: &TempApp) -> std::path::PathBuf {
    let reg = app.root.parent().unwrap().join("reg");
    write(
        reg.join("registry.yaml"),
        "apiVersion: '0.1'\nkind: ksonnet.io/registry\nlibraries:\n  web:\n    path: web\n    version: master\n",
    );
    write(
        reg.join("web/parts.yaml"),
        "name: web\napiVersion: 0.0.1\nkind: ksonnet.io/parts\ndescription: A greeting\n",
    );
    write(
        reg.join("web/prototypes/greeter.jsonnet"),
        "// @apiVersion 0.1\n// @name io.ksonnet.pkg.greeter\n// @description A greeting.\n// @shortDescription A greeting\n// @param name string Name\n{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: params.name } }\n",
    );
    reg
}

fn mkfifo(path: &Path) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).unwrap();
    }
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

#[test]
fn a_package_with_a_fifo_a_device_a_symlink_or_a_huge_file_is_refused_naming_it() {
    let app = new_app();
    let reg = folder_registry(&app);
    ok(&app.root, &["registry", "add", "team", "../reg"]);
    let outside = app.root.parent().unwrap().join("outside");
    write(outside.join("secret.txt"), "SECRET-TOKEN-123\n");
    let web = reg.join("web");
    let huge = || {
        let f = std::fs::File::create(web.join("data/huge.bin")).unwrap();
        // Sparse: larger than kf reads, without writing it.
        f.set_len(64 * 1024 * 1024 + 1).unwrap();
    };
    type Plant<'a> = (&'a str, Box<dyn Fn() + 'a>, &'a str);
    let shapes: Vec<Plant> = vec![
        (
            "files/pipe",
            Box::new(|| mkfifo(&web.join("files/pipe"))),
            "is a FIFO, not a regular file",
        ),
        (
            "zero",
            Box::new(|| std::os::unix::fs::symlink("/dev/zero", web.join("zero")).unwrap()),
            "is a symlink",
        ),
        (
            "lib",
            Box::new(|| std::os::unix::fs::symlink(&outside, web.join("lib")).unwrap()),
            "is a symlink",
        ),
        (
            "parts.yaml",
            Box::new(|| {
                std::fs::remove_file(web.join("parts.yaml")).unwrap();
                mkfifo(&web.join("parts.yaml"));
            }),
            "is a FIFO",
        ),
        (
            "data/huge.bin",
            Box::new(|| {
                std::fs::create_dir_all(web.join("data")).unwrap();
                huge();
            }),
            "is larger than kf reads",
        ),
    ];
    for (planted, plant, wanted) in &shapes {
        let _ = std::fs::remove_dir_all(&web);
        folder_registry(&app);
        plant();
        let before = snapshot(&app.root);
        for verb in ["install", "describe"] {
            let err = fails_bounded(&app.root, &["pkg", verb, "team/web"]);
            let named = format!("reg/web/{planted}");
            assert!(
                err.contains(&named) && err.contains(wanted),
                "{planted} ({verb}): {err}"
            );
            assert!(!err.contains("SECRET-TOKEN"), "{err}");
        }
        assert_eq!(snapshot(&app.root), before, "{planted}: nothing written");
    }
}

#[test]
fn a_registry_index_that_is_a_fifo_or_a_symlink_is_refused_without_waiting() {
    let app = new_app();
    let reg = folder_registry(&app);
    ok(&app.root, &["registry", "add", "team", "../reg"]);
    let index = reg.join("registry.yaml");
    let text = read(&index);
    std::fs::remove_file(&index).unwrap();
    mkfifo(&index);
    for args in [
        &["pkg", "list"][..],
        &["registry", "describe", "team"],
        &["pkg", "install", "team/web"],
        &["registry", "add", "again", "../reg"],
    ] {
        let err = fails_bounded(&app.root, args);
        assert!(
            err.contains("reg/registry.yaml is a FIFO"),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_file(&index).unwrap();
    let real = reg.parent().unwrap().join("registry.yaml");
    write(&real, &text);
    std::os::unix::fs::symlink(&real, &index).unwrap();
    let err = fails_bounded(&app.root, &["pkg", "list"]);
    assert!(err.contains("reg/registry.yaml is a symlink"), "{err}");
}

#[test]
fn a_vendored_package_file_that_is_a_fifo_is_refused_without_waiting() {
    let app = new_app();
    folder_registry(&app);
    ok(&app.root, &["registry", "add", "team", "../reg"]);
    ok(&app.root, &["pkg", "install", "team/web"]);
    let proto = app.root.join("vendor/team/web/prototypes/greeter.jsonnet");
    std::fs::remove_file(&proto).unwrap();
    mkfifo(&proto);
    for args in [&["prototype", "list"][..], &["pkg", "list", "--installed"]] {
        let err = fails_bounded(&app.root, args);
        assert!(
            err.contains("greeter.jsonnet") && err.contains("is a FIFO"),
            "{args:?}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// credentials in cluster errors

const TOKEN: &str = "SECRET-TOKEN-123";

/// A kubeconfig for `server` whose user runs `plugin` (a shell script body) for its
/// credential, with `interactive_mode`.
fn exec_kubeconfig(dir: &Path, server: &str, plugin: &str, interactive_mode: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("credential-plugin.sh");
    std::fs::write(&script, format!("#!/bin/sh\n{plugin}\n")).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: {server}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      command: {}\n      interactiveMode: {interactive_mode}\n",
            script.display()
        ),
    )
    .unwrap();
    path.to_string_lossy().into_owned()
}

/// An env `default` at a server on a port nobody listens on.
fn app_for_unreachable_cluster() -> (TempApp, String) {
    let app = new_app();
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    ok(&app.root, &["env", "set", "default", "--server", &server]);
    (app, server)
}

#[test]
fn an_exec_plugins_output_is_never_quoted_in_an_error() {
    let (app, server) = app_for_unreachable_cluster();
    let dir = tempfile::tempdir().unwrap();
    for (plugin, mode, wanted) in [
        (
            format!(r#"printf '%s' '{{"kind":"ExecCredential","status":{{"token":"{TOKEN}"'"#),
            "IfAvailable",
            "not an ExecCredential",
        ),
        (
            format!(
                "echo 'apiVersion: v1'; echo 'token: {TOKEN}'; echo 'Bearer {TOKEN}' >&2; exit 3"
            ),
            "Never",
            "plugin failed (exit status: 3)",
        ),
        (
            format!(
                r#"printf '%s' '{{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","token":"{TOKEN}"}}'"#
            ),
            "IfAvailable",
            "without a status",
        ),
    ] {
        let kubeconfig = exec_kubeconfig(dir.path(), &server, &plugin, mode);
        for verb in [
            &["apply", "--env", "default"][..],
            &["diff", "--env", "default"],
            &["status", "default"],
        ] {
            let mut args = verb.to_vec();
            args.extend(["--kubeconfig", &kubeconfig, "--timeout", "5s"]);
            let run = kf_bounded(&app.root, &args, &[]);
            // diff's errors exit 2, as kubectl diff's do.
            assert!(
                run.status == 1 || run.status == 2,
                "{args:?}: {}",
                run.stderr
            );
            let err = run.stderr;
            assert!(!err.contains(TOKEN), "{verb:?} with {plugin}: {err}");
            assert!(
                err.contains(wanted) && err.contains("run the plugin by hand"),
                "{verb:?} with {plugin}: {err}"
            );
        }
    }
}

/// A server on 127.0.0.1 that answers every request with `status` and `body`.
fn echoing_server(status: &str, body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let status = status.to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let status = status.clone();
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let mut request = Vec::new();
                let mut buf = [0u8; 4096];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            });
        }
    });
    url
}

#[test]
fn a_server_reply_that_echoes_a_token_is_quoted_masked() {
    let app = new_app();
    let dir = tempfile::tempdir().unwrap();
    for (status, body) in [
        (
            "401 Unauthorized",
            "rejected Authorization: Bearer SECRET-TOKEN-123 for user kf",
        ),
        (
            "403 Forbidden",
            "{\"kind\":\"Status\",\"code\":403,\"message\":\"token \\\"SECRET-TOKEN-123\\\" is not allowed\\nsee token: SECRET-TOKEN-123\"}",
        ),
    ] {
        let server = echoing_server(status, body);
        ok(&app.root, &["env", "set", "default", "--server", &server]);
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: {server}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: {TOKEN}\n"
            ),
        )
        .unwrap();
        let run = kf_bounded(
            &app.root,
            &[
                "apply",
                "--env",
                "default",
                "--kubeconfig",
                kubeconfig.to_str().unwrap(),
                "--timeout",
                "5s",
            ],
            &[],
        );
        assert_eq!(run.status, 1, "{status}: {}", run.stderr);
        let err = run.stderr;
        assert!(!err.contains(TOKEN), "{status}: {err}");
        assert!(
            err.contains("***"),
            "{status}: the reply is quoted, masked: {err}"
        );
    }
}

/// The exact credentials kf holds are masked, whatever they look like: a static token of
/// plain words, quoted back where no pattern would know it for one.
#[test]
fn a_reply_quoting_the_exact_token_kf_sent_is_masked_however_plain_it_looks() {
    let app = new_app();
    let dir = tempfile::tempdir().unwrap();
    let plain = "correct-horse-battery";
    let server = echoing_server(
        "403 Forbidden",
        "{\"kind\":\"Status\",\"code\":403,\"message\":\"user correct-horse-battery may not list namespaces\"}",
    );
    ok(&app.root, &["env", "set", "default", "--server", &server]);
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: {server}\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\nusers:\n- name: u\n  user:\n    token: {plain}\n"
        ),
    )
    .unwrap();
    let run = kf_bounded(
        &app.root,
        &[
            "apply",
            "--env",
            "default",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--timeout",
            "5s",
        ],
        &[],
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(!run.stderr.contains(plain), "{}", run.stderr);
    assert!(
        run.stderr.contains("user *** may not list"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_proxy_page_that_echoes_a_token_is_quoted_masked() {
    let app = new_app();
    let fake = support::apiserver::ApiServer::start();
    // The env's namespace exists, as apply checks before it sends anything.
    fake.put(
        "",
        "namespaces",
        "",
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml-dev"}}),
        "kf-test",
    );
    ok(&app.root, &["env", "set", "default", "--server", &fake.url]);
    ok(
        &app.root,
        &[
            "generate",
            "configMap",
            "settings",
            "--data",
            r#"{"a":"b"}"#,
        ],
    );
    fake.inject(support::apiserver::Fault {
        method: Some(hyper::Method::PATCH),
        path: "/configmaps/settings".into(),
        body: Some(format!(
            "<html><body>Proxy error. Your request: Authorization: Bearer {TOKEN}</body></html>"
        )),
        times: 1,
        ..Default::default()
    });
    let kubeconfig = fake.kubeconfig(app.root.parent().unwrap());
    let run = kf_bounded(
        &app.root,
        &[
            "apply",
            "--env",
            "default",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--timeout",
            "10s",
        ],
        &[],
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("not a JSON object")
            && run.stderr.contains("Authorization: Bearer ***"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(TOKEN), "{}", run.stderr);
}
