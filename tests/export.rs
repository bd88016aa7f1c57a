//! `kf export DIR [ENV…]`: one file per object and a manifest.json, byte for byte what
//! `kf show` prints object for object; re-exporting replaces kf's files and only kf's.

mod support;

use std::path::Path;

use serde_json::Value;
use support::*;

/// An app with a Deployment+Service, a ConfigMap and a Namespace (cluster-scoped): four
/// objects an env, and a prod override.
fn ml_app() -> TempApp {
    let app = web_and_settings_app();
    ok(&app.root, &["generate", "namespace", "team"]);
    app
}

fn manifest(dir: &Path) -> Value {
    serde_json::from_str(&read(dir.join("manifest.json"))).unwrap()
}

fn files_of<'a>(m: &'a Value, env: &str) -> Vec<&'a Value> {
    m["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["env"] == env)
        .collect()
}

/// Every file in `dir`, as paths relative to it, sorted.
fn listing(dir: &Path) -> Vec<String> {
    snapshot(dir)
        .into_iter()
        .map(|(p, _)| p.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

#[test]
fn export_is_kf_show_object_for_object_in_yaml_and_json() {
    let app = ml_app();
    let out = app.root.join("../out");
    let run = kf_in(&app.root, &["export", "../out"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("exported 8 objects of 2 environments (default, prod) to ../out"),
        "{}",
        run.stderr
    );
    let m = manifest(&out);
    assert_eq!(m["kind"], "kf-export");
    for env in ["default", "prod"] {
        let shown = ok(&app.root, &["show", env]);
        let files = files_of(&m, env);
        assert_eq!(files.len(), 4, "{m}");
        let joined: String = files
            .iter()
            .map(|f| format!("---\n{}", read(out.join(f["path"].as_str().unwrap()))))
            .collect();
        assert_eq!(joined, shown, "{env}");
    }
    // The default template: <env>/<apiVersion>.<kind>-<namespace>.<name>.yaml, made safe;
    // a cluster-scoped object's namespace is `_`.
    let paths: Vec<&str> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        paths
            .iter()
            .any(|p| p.starts_with("prod/apps-v1.Deployment-") && p.ends_with(".web.yaml")),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"prod/v1.Namespace-_.team.yaml"),
        "{paths:?}"
    );

    // JSON: each file is the object `kf show -o json` lists.
    let run = kf_in(&app.root, &["export", "../json", "prod", "-o", "json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let json_dir = app.root.join("../json");
    let m = manifest(&json_dir);
    let listed: Value =
        serde_json::from_str(&ok(&app.root, &["show", "prod", "-o", "json"])).unwrap();
    let objects: Vec<Value> = files_of(&m, "prod")
        .iter()
        .map(|f| serde_json::from_str(&read(json_dir.join(f["path"].as_str().unwrap()))).unwrap())
        .collect();
    assert_eq!(Value::Array(objects), listed["items"]);
    assert!(files_of(&m, "default").is_empty());
}

#[test]
fn re_export_replaces_kfs_files_and_never_touches_others() {
    let app = ml_app();
    let out = app.root.join("../out");
    // A folder with files of someone else's is refused, and left as it was.
    write(out.join("README.md"), "mine\n");
    let err = fails(&app.root, &["export", "../out"]);
    assert!(
        err.contains("is not empty and has no manifest.json of kf's"),
        "{err}"
    );
    assert_eq!(listing(&out), ["README.md"]);
    // --force writes kf's files beside it.
    ok(&app.root, &["export", "../out", "--force"]);
    assert!(listing(&out).contains(&"README.md".to_string()));
    let first = listing(&out);
    assert_eq!(first.len(), 10, "{first:?}");

    // Exporting again with nothing changed rewrites nothing (each write is fsynced).
    let inode = |p: &str| {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(out.join(p)).unwrap().ino()
    };
    let before = inode("prod/v1.Namespace-_.team.yaml");
    let run = kf_in(&app.root, &["export", "../out"]);
    assert!(
        run.stderr.contains("8 file(s) already up to date"),
        "{}",
        run.stderr
    );
    assert_eq!(inode("prod/v1.Namespace-_.team.yaml"), before);

    // A component removed: its objects' files go, in every env exported; the others stay.
    ok(&app.root, &["component", "rm", "settings"]);
    let run = kf_in(&app.root, &["export", "../out", "prod"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stderr.contains("removed 1 file(s)"), "{}", run.stderr);
    let now = listing(&out);
    assert!(
        !now.iter().any(|p| p.starts_with("prod/v1.ConfigMap")),
        "{now:?}"
    );
    // default was not exported this time: its files (settings' too) and entries stay.
    assert!(
        now.iter().any(|p| p.starts_with("default/v1.ConfigMap")),
        "{now:?}"
    );
    assert_eq!(files_of(&manifest(&out), "default").len(), 4);
    assert_eq!(read(out.join("README.md")), "mine\n");
    // No staging or journal is left behind.
    assert!(!now.iter().any(|p| p.contains(".kf-")), "{now:?}");

    // A manifest whose paths leave the folder is not followed.
    let text = read(out.join("manifest.json"));
    write(
        out.join("manifest.json"),
        &text.replacen("\"path\": \"default/", "\"path\": \"../../default/", 1),
    );
    let err = fails(&app.root, &["export", "../out"]);
    assert!(err.contains("is not a path inside the folder"), "{err}");
    write(out.join("manifest.json"), &text);
}

#[test]
fn a_failing_render_bad_template_or_clash_writes_nothing() {
    let app = ml_app();
    let out = app.root.join("../out");
    ok(&app.root, &["export", "../out"]);
    let before = snapshot(&out);
    // A component that fails in one env stops the export, naming the env.
    write(
        app.root.join("components/broken.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: error 'broken here' } }\n",
    );
    let err = fails(&app.root, &["export", "../out"]);
    assert!(
        err.contains("environment '") && err.contains("broken here"),
        "{err}"
    );
    assert_eq!(snapshot(&out), before);
    std::fs::remove_file(app.root.join("components/broken.jsonnet")).unwrap();

    let err = fails(
        &app.root,
        &["export", "../out", "--template", "{env}/{nmae}"],
    );
    assert!(err.contains("no placeholder {nmae}"), "{err}");
    let err = fails(
        &app.root,
        &["export", "../out", "--template", "{env}/{namespace}"],
    );
    assert!(err.contains("would both be written to"), "{err}");
    let err = fails(&app.root, &["export", "../out", "nope"]);
    assert!(err.contains("nope"), "{err}");
    assert_eq!(snapshot(&out), before);

    // A template cannot climb out of the folder.
    ok(
        &app.root,
        &["export", "../t", "--template", "../../{env}/{kind}-{name}"],
    );
    let t = app.root.join("../t");
    assert!(
        listing(&t)
            .iter()
            .all(|p| p.starts_with("_/_/") || p == "manifest.json"),
        "{:?}",
        listing(&t)
    );
}

/// `kf export DIR -c web` replaced web's files and deleted every other component's (with
/// Flux's `prune: true`, their objects too). A partial export touches only the selected
/// components' files; the others stay on disk and in manifest.json.
#[test]
fn a_partial_export_touches_only_the_selected_components_files() {
    let app = ml_app();
    let out = app.root.join("../out");
    ok(&app.root, &["export", "../out"]);
    let before = listing(&out);
    let all = manifest(&out)["files"].as_array().unwrap().len();
    ok(&app.root, &["param", "set", "web", "replicas", "4"]);
    ok(&app.root, &["export", "../out", "-c", "web"]);
    assert_eq!(listing(&out), before, "files appeared or went");
    let m = manifest(&out);
    assert_eq!(m["files"].as_array().unwrap().len(), all, "{m}");
    let components: std::collections::BTreeSet<&str> = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["component"].as_str().unwrap())
        .collect();
    assert!(components.len() > 1, "{m}");
    // web's own files were rewritten with the new value, every env's.
    let web = m["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["component"] == "web" && f["kind"] == "Deployment" && f["env"] == "default")
        .unwrap_or_else(|| panic!("{m}"));
    let text = read(out.join(web["path"].as_str().unwrap()));
    assert!(text.contains("replicas: 4"), "{text}");
}

/// A manifest.json changed by hand or by someone else is refused, naming the entry, before
/// anything is staged or journaled; put back, the next export works: the folder is never
/// wedged (an entry naming a folder made a journal whose step could never be carried out).
#[test]
fn a_tampered_manifest_is_refused_before_anything_is_journaled() {
    let app = ml_app();
    let out = app.root.join("../out");
    ok(&app.root, &["export", "../out"]);
    let text = read(out.join("manifest.json"));
    std::fs::create_dir_all(out.join("default/folder.yaml")).unwrap();
    let first = manifest(&out)["files"][0]["path"]
        .as_str()
        .unwrap()
        .to_string();
    let long = format!("{}.yaml", "n".repeat(300));
    for (entry, why) in [
        ("default/folder.yaml", "is a folder, not a file"),
        (
            ".git/config.yaml",
            "names the manifest, .git or kf's own state",
        ),
        (
            "manifest.json",
            "names the manifest, .git or kf's own state",
        ),
        (".kf-journal", "names the manifest, .git or kf's own state"),
        ("default/x\\u0000.yaml", "holds a NUL byte"),
        (long.as_str(), "not a name a file system holds"),
        (
            "default/notes.txt",
            "is not an object's .yaml or .json file",
        ),
        (first.as_str(), "is listed twice"),
    ] {
        let mut m: Value = serde_json::from_str(&text).unwrap();
        let mut extra = m["files"][1].clone();
        extra["path"] = Value::String(entry.replace("\\u0000", "\u{0}"));
        m["files"].as_array_mut().unwrap().push(extra);
        write(
            out.join("manifest.json"),
            &serde_json::to_string(&m).unwrap(),
        );
        let before = snapshot(&out);
        let err = fails(&app.root, &["export", "../out", "default"]);
        assert!(err.contains(why), "{entry}: {err}");
        assert!(
            err.contains("restore it (git checkout) or delete it"),
            "{err}"
        );
        assert_eq!(snapshot(&out), before, "{entry}");
        assert!(!out.join(".kf-journal").exists(), "{entry}");
    }
    write(out.join("manifest.json"), &text);
    ok(&app.root, &["export", "../out"]);
    assert!(out.join("default/folder.yaml").is_dir());
}

/// Exports into one folder run one at a time: two at once, with different templates,
/// leave exactly the files the last one's manifest lists (before the lock, both exited 0
/// and left files no manifest listed, which Flux would apply).
#[test]
fn exports_into_one_folder_at_the_same_time_are_serialized() {
    let app = ml_app();
    let out = app.root.join("../out");
    let bin = env!("CARGO_BIN_EXE_kf");
    for round in 0..4 {
        let children: Vec<std::process::Child> = ["{env}/{kind}-{name}", "{name}.{kind}.{env}"]
            .iter()
            .map(|template| {
                std::process::Command::new(bin)
                    .current_dir(&app.root)
                    .args(["export", "../out", "--template", template])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let done = child.wait_with_output().unwrap();
            assert!(
                done.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&done.stderr)
            );
        }
        let listed: std::collections::BTreeSet<String> = manifest(&out)["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect();
        let on_disk: std::collections::BTreeSet<String> = listing(&out)
            .into_iter()
            .filter(|p| p != "manifest.json")
            .collect();
        assert_eq!(on_disk, listed, "round {round}");
    }
}

/// Names kf itself writes are names it accepts back: a ClusterRole named `.kf-reader`
/// exports and re-exports; an object named `.git` is never written into `.git` (the
/// template's part becomes `_`); a tampered `.GIT` entry is refused whatever its case.
#[test]
fn names_kf_writes_are_names_it_accepts_and_never_git() {
    let app = ml_app();
    write(
        app.root.join("components/rbac.yaml"),
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: .kf-reader\nrules: []\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: .git\nrules: []\n",
    );
    let out = app.root.join("../out");
    ok(
        &app.root,
        &["export", "../out", "default", "--template", "{name}/{kind}"],
    );
    ok(
        &app.root,
        &["export", "../out", "default", "--template", "{name}/{kind}"],
    );
    assert!(out.join(".kf-reader/ClusterRole.yaml").is_file());
    assert!(out.join("_/ClusterRole.yaml").is_file());
    assert!(!out.join(".git").exists());
    let text = read(out.join("manifest.json"));
    let tampered = text.replacen(
        "\"path\": \"_/ClusterRole.yaml\"",
        "\"path\": \"sub/.GIT/a.yaml\"",
        1,
    );
    assert_ne!(tampered, text);
    write(out.join("manifest.json"), &tampered);
    let before = snapshot(&out);
    let err = fails(
        &app.root,
        &["export", "../out", "default", "--template", "{name}/{kind}"],
    );
    assert!(
        err.contains("names the manifest, .git or kf's own state"),
        "{err}"
    );
    assert_eq!(snapshot(&out), before);
}
