//! `kf registry` and `kf pkg` with registries made in the tests in ksonnet's format: a
//! folder, and a local bare git repository reached through file://.

mod support;

use std::path::Path;
use std::process::Command;

use support::*;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=kf",
            "-c",
            "user.email=kf@example.com",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn folder_registry_add_install_generate_show_and_remove() {
    let app = new_app();
    let reg = app.root.parent().unwrap().join("reg");
    make_registry(&reg, "hello");

    // Not a registry: clear error, nothing written.
    let before = snapshot(&app.root);
    let err = fails(&app.root, &["registry", "add", "team", "../app/components"]);
    assert!(err.contains("no registry.yaml"), "{err}");
    assert_eq!(snapshot(&app.root), before);

    ok(&app.root, &["registry", "add", "team", "../reg"]);
    let yaml = read(app.root.join("app.yaml"));
    assert!(
        yaml.contains("team:") && yaml.contains("protocol: fs"),
        "{yaml}"
    );
    let list = ok(&app.root, &["registry", "list"]);
    assert!(
        list.contains("kubeflow") && list.contains("builtin"),
        "{list}"
    );
    assert!(
        list.lines()
            .any(|l| l.starts_with("team") && l.contains(" fs ")),
        "{list}"
    );
    assert!(ok(&app.root, &["registry", "describe", "team"]).contains("  web"));
    let pkgs = ok(&app.root, &["pkg", "list"]);
    assert!(
        pkgs.lines()
            .any(|l| l.starts_with("team") && l.contains("web")),
        "{pkgs}"
    );
    assert!(
        pkgs.lines()
            .any(|l| l.starts_with("kubeflow") && l.contains("tf-training")),
        "{pkgs}"
    );
    assert!(ok(&app.root, &["pkg", "describe", "team/web"]).contains("io.ksonnet.pkg.greeter"));

    ok(&app.root, &["pkg", "install", "team/web"]);
    assert!(
        app.root
            .join("vendor/team/web/prototypes/greeter.jsonnet")
            .is_file()
    );
    let yaml = read(app.root.join("app.yaml"));
    assert!(
        yaml.contains("team/web:") && yaml.contains("registry: team"),
        "{yaml}"
    );
    assert!(ok(&app.root, &["pkg", "list", "--installed"]).contains("web"));
    assert!(ok(&app.root, &["prototype", "list"]).contains("io.ksonnet.pkg.greeter"));

    let err = fails(&app.root, &["pkg", "install", "team/web"]);
    assert!(
        err.contains("already installed") && err.contains("--force"),
        "{err}"
    );
    // The registry moves on; --force replaces the vendored copy.
    make_registry(&reg, "bonjour");
    ok(&app.root, &["pkg", "install", "team/web", "--force"]);
    assert!(read(app.root.join("vendor/team/web/web.libsonnet")).contains("bonjour"));

    ok(&app.root, &["generate", "greeter", "hi"]);
    let out = ok(&app.root, &["show", "prod"]);
    assert!(
        out.contains("greeting: bonjour") && out.contains("namespace: ml-prod"),
        "{out}"
    );

    // An alias for one environment only.
    ok(
        &app.root,
        &[
            "pkg", "install", "team/web", "--name", "web-old", "--env", "prod",
        ],
    );
    assert!(app.root.join("vendor/team/web-old/web.libsonnet").is_file());
    let yaml = read(app.root.join("app.yaml"));
    let prod_at = yaml.find("  prod:").unwrap();
    assert!(yaml[prod_at..].contains("team/web-old:"), "{yaml}");

    let err = fails(&app.root, &["pkg", "install", "team/wbe"]);
    assert!(
        err.contains("no package 'wbe'") && err.contains("web)"),
        "{err}"
    );
    let err = fails(&app.root, &["pkg", "install", "nowhere/web"]);
    assert!(err.contains("unknown registry 'nowhere'"), "{err}");
    let err = fails(&app.root, &["pkg", "install", "web"]);
    assert!(err.contains("<registry>/<package>"), "{err}");

    ok(&app.root, &["pkg", "remove", "team/web-old"]);
    assert!(!app.root.join("vendor/team/web-old").exists());
    assert!(!read(app.root.join("app.yaml")).contains("web-old"));
    ok(&app.root, &["registry", "rm", "team"]);
    assert!(!read(app.root.join("app.yaml")).contains("protocol: fs"));
    // Installed packages stay vendored and keep rendering.
    assert!(ok(&app.root, &["show", "prod"]).contains("greeting: bonjour"));
    let err = fails(&app.root, &["registry", "rm", "kubeflow"]);
    assert!(err.contains("always present"), "{err}");
}

#[test]
fn git_registry_over_file_url_installs_a_chosen_ref() {
    let app = new_app();
    let work = app.root.parent().unwrap().join("reg-work");
    make_registry(&work, "v1 hello");
    git(&work, &["init", "--quiet"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "--quiet", "-m", "v1"]);
    git(&work, &["tag", "v1"]);
    make_registry(&work, "v2 hello");
    git(&work, &["commit", "--quiet", "-am", "v2"]);
    let bare = app.root.parent().unwrap().join("reg.git");
    git(
        app.root.parent().unwrap(),
        &[
            "clone",
            "--quiet",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );

    let uri = format!("file://{}", bare.display());
    ok(&app.root, &["registry", "add", "shared", &uri]);
    assert!(read(app.root.join("app.yaml")).contains("protocol: git"));
    ok(
        &app.root,
        &["pkg", "install", "shared/web@v1", "--name", "web1"],
    );
    assert!(read(app.root.join("vendor/shared/web1/web.libsonnet")).contains("v1 hello"));
    ok(&app.root, &["pkg", "install", "shared/web"]);
    assert!(read(app.root.join("vendor/shared/web/web.libsonnet")).contains("v2 hello"));
    // The library records the commit it came from.
    let yaml = read(app.root.join("app.yaml"));
    let v = yaml.split("shared/web:").nth(1).unwrap();
    let version = v
        .lines()
        .find_map(|l| l.trim().strip_prefix("version: "))
        .unwrap();
    assert_eq!(
        version.trim_matches('\'').trim_matches('"').len(),
        40,
        "{yaml}"
    );

    let err = fails(
        &app.root,
        &["pkg", "install", "shared/web@no-such-ref", "--name", "x"],
    );
    assert!(err.contains("no-such-ref"), "{err}");
    assert!(!app.root.join("vendor/shared/x").exists());
}
