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
