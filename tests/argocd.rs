//! The Argo CD plugin (argocd/plugin.yaml) run as Argo CD's CMP server runs it
//! (cmpserver/plugin/plugin.go: `discover.find.command` and `generate.command` in the
//! Application's source folder, with the server's environment plus the request's entries,
//! the parameters as JSON in ARGOCD_APP_PARAMETERS, the Application's plugin env as
//! ARGOCD_ENV_*), checked against `kf show`. .ci/argocd-corpus does the same on the
//! corpus apps.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::*;

fn plugin() -> Value {
    let text = read(Path::new(env!("CARGO_MANIFEST_DIR")).join("argocd/plugin.yaml"));
    serde_saphyr::from_str(&text).unwrap()
}

fn command_of(plugin: &Value, pointer: &str) -> Vec<String> {
    plugin
        .pointer(pointer)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("plugin.yaml has no {pointer}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Run a plugin command as the CMP server does: in `dir`, `kf` found on PATH, the build
/// environment of an Application, and `extra` (its plugin env and parameters).
fn as_cmp_server(command: &[String], dir: &Path, extra: &[(&str, &str)]) -> (i32, String, String) {
    assert_eq!(command[0], "kf", "{command:?}");
    let bin = Path::new(env!("CARGO_BIN_EXE_kf")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = dir.parent().unwrap().join("cmp-home");
    let mut cmd = Command::new(&command[0]);
    cmd.args(&command[1..])
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &home)
        .env("ARGOCD_APP_NAME", "ml")
        .env("ARGOCD_APP_NAMESPACE", "argocd")
        .env(
            "ARGOCD_APP_REVISION",
            "0123456789abcdef0123456789abcdef01234567",
        )
        .env("ARGOCD_APP_SOURCE_PATH", "apps/ml")
        .env(
            "ARGOCD_APP_SOURCE_REPO_URL",
            "https://git.example.com/ml.git",
        )
        .env("ARGOCD_APP_SOURCE_TARGET_REVISION", "HEAD")
        .env("KUBE_VERSION", "1.33")
        .env("KUBE_API_VERSIONS", "v1,apps/v1,batch/v1");
    for (k, v) in extra {
        // The server leaves out entries with an empty value (plugin.go environ).
        if !v.is_empty() {
            cmd.env(k, v);
        }
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn discover_claims_ksonnet_and_kf_apps_only() {
    let discover = command_of(&plugin(), "/spec/discover/find/command");
    let app = web_and_settings_app();
    let (code, out, err) = as_cmp_server(&discover, &app.root, &[]);
    assert_eq!((code, out.trim()), (0, "app.yaml"), "{err}");
    // Another tool's app.yaml (Google App Engine's), or none: no output, so not kf's.
    let other = app.root.parent().unwrap().join("gae");
    write(other.join("app.yaml"), "runtime: python39\n");
    assert_eq!(as_cmp_server(&discover, &other, &[]).1, "");
    let empty = app.root.parent().unwrap().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    assert_eq!(as_cmp_server(&discover, &empty, &[]).1, "");
}

#[test]
fn generate_prints_what_kf_show_prints_for_the_env_and_params_asked() {
    let generate = command_of(&plugin(), "/spec/generate/command");
    // The env from the Application's plugin env KF_ENV.
    let app = web_and_settings_app();
    let (code, out, err) = as_cmp_server(&generate, &app.root, &[("ARGOCD_ENV_KF_ENV", "prod")]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, ok(&app.root, &["show", "prod"]));

    // The `env` parameter wins over KF_ENV; `params` are set in that env first.
    let params = r#"[{"name":"env","string":"default"},{"name":"params","map":{"web.replicas":"5","settings.data":"{\"MODE\":\"slow\"}"}}]"#;
    let mine = web_and_settings_app();
    let (code, out, err) = as_cmp_server(
        &generate,
        &mine.root,
        &[
            ("ARGOCD_ENV_KF_ENV", "prod"),
            ("ARGOCD_APP_PARAMETERS", params),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let expected = web_and_settings_app();
    ok(
        &expected.root,
        &["param", "set", "web", "replicas", "5", "--env", "default"],
    );
    ok(
        &expected.root,
        &[
            "param",
            "set",
            "settings",
            "data",
            r#"{"MODE":"slow"}"#,
            "--env",
            "default",
        ],
    );
    assert_eq!(out, ok(&expected.root, &["show", "default"]));
    assert!(
        out.contains("replicas: 5") && out.contains("MODE: slow"),
        "{out}"
    );

    // Unknown parameters (another plugin's) are Argo CD's business; a bad override or no
    // env at all fails with a message the Argo CD UI shows.
    let (code, _, err) = as_cmp_server(
        &generate,
        &app.root,
        &[
            (
                "ARGOCD_APP_PARAMETERS",
                r#"[{"name":"params","map":{"nope.replicas":"1"}}]"#,
            ),
            ("ARGOCD_ENV_KF_ENV", "prod"),
        ],
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("'nope.replicas' names no component's param"),
        "{err}"
    );
    let (code, _, err) = as_cmp_server(&generate, &app.root, &[]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no environment: give the plugin parameter `env`"),
        "{err}"
    );
    let (code, out, err) = as_cmp_server(
        &generate,
        &app.root,
        &[
            (
                "ARGOCD_APP_PARAMETERS",
                r#"[{"name":"values-files","array":["x.yaml"]}]"#,
            ),
            ("ARGOCD_ENV_KF_ENV", "prod"),
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, ok(&app.root, &["show", "prod"]));
}
