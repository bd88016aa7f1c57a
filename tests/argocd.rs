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
///
/// What Argo CD sets, from its source (argo-cd v3, reposerver/repository/repository.go):
/// `newEnv` gives nine ARGOCD_APP_* entries, always all of them, empty values included;
/// `getPluginEnvs` adds KUBE_VERSION (`parseKubeVersion`: no leading v) and
/// KUBE_API_VERSIONS (util/argo `APIResourcesToStrings` with kinds: sorted, comma-joined
/// group-versions and group-version/Kind); `getPluginParamEnvs` adds ARGOCD_ENV_<name> per
/// plugin env entry and the parameters (see [`application_entries`]). The sidecar appends
/// them to its own environment (cmpserver/plugin/plugin.go `environ`, which drops only an
/// entry with an empty name).
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
        .env("HOME", &home);
    let revision = "f913b6cbf58aa5ae5ca1f8a2b149477aebcbd9d8";
    for (k, v) in [
        ("ARGOCD_APP_NAME", "ml"),
        ("ARGOCD_APP_NAMESPACE", "ml-prod"),
        ("ARGOCD_APP_PROJECT_NAME", "default"),
        ("ARGOCD_APP_REVISION", revision),
        ("ARGOCD_APP_REVISION_SHORT", &revision[..7]),
        ("ARGOCD_APP_REVISION_SHORT_8", &revision[..8]),
        (
            "ARGOCD_APP_SOURCE_REPO_URL",
            "https://git.example.com/ml.git",
        ),
        ("ARGOCD_APP_SOURCE_PATH", "apps/ml"),
        ("ARGOCD_APP_SOURCE_TARGET_REVISION", "HEAD"),
        ("KUBE_VERSION", "1.33.1"),
        (
            "KUBE_API_VERSIONS",
            "apps/v1,apps/v1/Deployment,batch/v1,batch/v1/Job,v1,v1/ConfigMap,v1/Service",
        ),
    ] {
        cmd.env(k, v);
    }
    for (k, v) in extra {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An Application's `spec.source.plugin`: its `env` entries and its `parameters`.
type PluginBlock<'a> = (&'a [(&'a str, &'a str)], &'a [Param<'a>]);

/// One of an Application's `spec.source.plugin.parameters`.
enum Param<'a> {
    String(&'a str, &'a str),
    Array(&'a str, &'a [&'a str]),
    Map(&'a str, &'a [(&'a str, &'a str)]),
    NameOnly(&'a str),
}

/// A JSON string as Go's encoding/json writes it: `<`, `>` and `&` escaped as \u003c,
/// \u003e, \u0026 (its HTML-safe default).
fn go_string(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// The entries `getPluginParamEnvs` adds for an Application with a plugin block (`None`:
/// none, as when the plugin is found by discovery): ARGOCD_ENV_<name> verbatim per env
/// entry, then ARGOCD_APP_PARAMETERS, the parameters as `json.Marshal` writes them
/// (ApplicationSourcePluginParameter.MarshalJSON marshals a map, so keys come sorted —
/// array, map, name, string — and a nil list is `null`), then PARAM_<NAME> entries
/// (`escaped`: upper case, anything but [A-Z0-9_] as `_`; arrays `_<i>`, maps `_<KEY>`).
fn application_entries(plugin: Option<PluginBlock>) -> Vec<(String, String)> {
    let Some((env, params)) = plugin else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| (format!("ARGOCD_ENV_{k}"), v.to_string()))
        .collect();
    let escaped = |s: &str| -> String {
        s.to_uppercase()
            .chars()
            .map(|c| {
                if c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let list: Vec<String> = params
        .iter()
        .map(|p| match p {
            Param::String(n, v) => {
                format!("{{\"name\":{},\"string\":{}}}", go_string(n), go_string(v))
            }
            Param::Array(n, items) => format!(
                "{{\"array\":[{}],\"name\":{}}}",
                items
                    .iter()
                    .map(|i| go_string(i))
                    .collect::<Vec<_>>()
                    .join(","),
                go_string(n)
            ),
            Param::Map(n, entries) => {
                let mut sorted = entries.to_vec();
                sorted.sort();
                format!(
                    "{{\"map\":{{{}}},\"name\":{}}}",
                    sorted
                        .iter()
                        .map(|(k, v)| format!("{}:{}", go_string(k), go_string(v)))
                        .collect::<Vec<_>>()
                        .join(","),
                    go_string(n)
                )
            }
            Param::NameOnly(n) => format!("{{\"name\":{}}}", go_string(n)),
        })
        .collect();
    let json = if list.is_empty() {
        "null".to_string()
    } else {
        format!("[{}]", list.join(","))
    };
    out.push(("ARGOCD_APP_PARAMETERS".into(), json));
    for p in params {
        match p {
            Param::String(n, v) => out.push((format!("PARAM_{}", escaped(n)), v.to_string())),
            Param::Array(n, items) => {
                for (i, v) in items.iter().enumerate() {
                    out.push((format!("PARAM_{}_{i}", escaped(n)), v.to_string()));
                }
            }
            Param::Map(n, entries) => {
                for (k, v) in *entries {
                    out.push((
                        format!("PARAM_{}_{}", escaped(n), escaped(k)),
                        v.to_string(),
                    ));
                }
            }
            Param::NameOnly(_) => {}
        }
    }
    out
}

/// `generate` for an Application with this plugin block.
fn generate_for(dir: &Path, plugin: Option<PluginBlock>) -> (i32, String, String) {
    let entries = application_entries(plugin);
    let extra: Vec<(&str, &str)> = entries
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    as_cmp_server(
        &command_of(&plugin_yaml(), "/spec/generate/command"),
        dir,
        &extra,
    )
}

fn plugin_yaml() -> Value {
    plugin()
}

#[test]
fn generate_takes_every_shape_argo_cd_sends() {
    let app = web_and_settings_app();
    let prod = ok(&app.root, &["show", "prod"]);
    // `plugin: {env: [{name: KF_ENV, value: prod}]}` and no parameters: `null`.
    let entries = application_entries(Some((&[("KF_ENV", "prod")], &[])));
    assert!(entries.contains(&("ARGOCD_APP_PARAMETERS".into(), "null".into())));
    let (code, out, err) = generate_for(&app.root, Some((&[("KF_ENV", "prod")], &[])));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, prod);
    // The env as a string parameter, with parameters of every other shape beside it: an
    // empty array, an empty map, a name alone, another plugin's array, a value Go escapes.
    let params = [
        Param::String("env", "prod"),
        Param::Array("values-files", &[]),
        Param::Map("helm-parameters", &[]),
        Param::NameOnly("params"),
        Param::Array("other", &["a.yaml", "b.yaml"]),
        Param::String("a.b-c", "x&y <z>"),
    ];
    let plugin_env = [("EMPTY", ""), ("rev", "test-f913b6c")];
    let (code, out, err) = generate_for(&app.root, Some((&plugin_env, &params)));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, prod);
    // Overrides as a map, a value Go escapes among them.
    let mine = web_and_settings_app();
    let data = r#"{"MODE":"x&y <z>"}"#;
    let params = [
        Param::Map("params", &[("web.replicas", "4"), ("settings.data", data)]),
        Param::String("env", "prod"),
    ];
    let (code, out, err) = generate_for(&mine.root, Some((&[], &params)));
    assert_eq!(code, 0, "{err}");
    let expected = web_and_settings_app();
    ok(
        &expected.root,
        &["param", "set", "web", "replicas", "4", "--env", "prod"],
    );
    ok(
        &expected.root,
        &["param", "set", "settings", "data", data, "--env", "prod"],
    );
    assert_eq!(out, ok(&expected.root, &["show", "prod"]));
    assert!(out.contains("MODE: x&y <z>"), "{out}");
    // No plugin block (found by discovery): nothing but the build environment, so the
    // app's current env, or an error saying what to set in the Application.
    let (code, out, err) = generate_for(&app.root, None);
    if code == 0 {
        assert!(!out.is_empty(), "{err}");
    } else {
        assert!(err.contains("spec.source.plugin"), "{err}");
    }
    // `params` given as a string: what to write in the Application instead.
    let (code, _, err) = generate_for(
        &app.root,
        Some((
            &[("KF_ENV", "prod")],
            &[Param::String("params", "web.replicas=3")],
        )),
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("spec.source.plugin.parameters: [{name: params, map:"),
        "{err}"
    );
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

/// A Tanka-style monorepo: jsonnetfile.json and vendor/ (tanka-util, doc-util) at the
/// repository's root, the app in apps/ml with `vendor -> ../../vendor`, as jsonnet-bundler
/// users keep one vendor/ for many apps. `show`, `export` and the plugin read the
/// libraries from the root's vendor/ without copying; nothing above the repository counts.
#[test]
fn a_monorepo_with_vendor_at_its_root_renders_under_show_export_and_the_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tanka");
    copy_dir(&fixture.join("vendor"), &repo.join("vendor"));
    std::fs::copy(
        fixture.join("jsonnetfile.json"),
        repo.join("jsonnetfile.json"),
    )
    .unwrap();
    std::fs::create_dir_all(repo.join("apps")).unwrap();
    let app = init_ml_app(&repo.join("apps"));
    std::fs::remove_dir_all(app.join("vendor")).unwrap();
    std::os::unix::fs::symlink("../../vendor", app.join("vendor")).unwrap();
    write(
        app.join("components/team.jsonnet"),
        "local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';\ntanka.k8s.patchLabels({ cm: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-vendor' } } }, { team: 'ml' })\n",
    );
    let shown = ok(&app, &["show", "default"]);
    assert!(
        shown.contains("name: from-vendor") && shown.contains("team: ml"),
        "{shown}"
    );
    ok(&app, &["export", "out", "default"]);
    let exported = snapshot(&app.join("out"));
    assert!(
        exported
            .iter()
            .any(|(_, bytes)| String::from_utf8_lossy(bytes).contains("name: from-vendor")),
        "{exported:?}"
    );
    let (code, out, err) = as_cmp_server(
        &command_of(&plugin(), "/spec/generate/command"),
        &app,
        &[("ARGOCD_ENV_KF_ENV", "default")],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, shown);

    // Without the symlink, the root's vendor/ is still searched.
    std::fs::remove_file(app.join("vendor")).unwrap();
    assert_eq!(ok(&app, &["show", "default"]), shown);
    // A jsonnetfile.json above the repository is not the repository's.
    std::fs::rename(
        repo.join("jsonnetfile.json"),
        dir.path().join("jsonnetfile.json"),
    )
    .unwrap();
    std::fs::rename(repo.join("vendor"), dir.path().join("vendor")).unwrap();
    let err = fails(&app, &["show", "default"]);
    assert!(
        err.contains("is in none of the folders kf searched"),
        "{err}"
    );
    // Nor above an app that is a repository of its own.
    std::fs::rename(
        dir.path().join("jsonnetfile.json"),
        repo.join("jsonnetfile.json"),
    )
    .unwrap();
    std::fs::rename(dir.path().join("vendor"), repo.join("vendor")).unwrap();
    assert_eq!(ok(&app, &["show", "default"]), shown);
    std::fs::create_dir(app.join(".git")).unwrap();
    let err = fails(&app, &["show", "default"]);
    assert!(
        err.contains("is in none of the folders kf searched"),
        "{err}"
    );
}

/// The plugin's `jpath` parameter (an array, as Argo CD sends one) adds library folders
/// inside the app's repository; one outside it is refused, naming the parameter.
#[test]
fn the_jpath_parameter_adds_library_folders_inside_the_repository() {
    let dir = tempfile::tempdir().unwrap();
    let (_, app) = app_in_repository(dir.path());
    write(
        app.join("components/cm.jsonnet"),
        "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { team: (import 'team.libsonnet').team } } }\n",
    );
    let params = [Param::Array("jpath", &["../libs/team"])];
    let (code, out, err) = generate_for(&app, Some((&[("KF_ENV", "default")], &params)));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("team: vision"), "{out}");

    write(
        dir.path().join("outside/team.libsonnet"),
        "{ team: 'other' }\n",
    );
    let params = [Param::Array("jpath", &["../../outside"])];
    let (code, _, err) = generate_for(&app, Some((&[("KF_ENV", "default")], &params)));
    assert_ne!(code, 0);
    assert!(
        err.contains("parameter 'jpath', entry '../../outside'")
            && err.contains("inside the app's repository"),
        "{err}"
    );
}

/// The image's build context was the whole checkout, `target/` (gigabytes) and `.git`
/// included: `argocd/Dockerfile.dockerignore` leaves them out, and leaves in every folder
/// and file `cargo build --release --locked` reads (the manifest, the build script, the
/// embedded prototypes, registry and schemas, the declared bench).
#[test]
fn the_image_build_context_leaves_out_build_output_and_history_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ignore = read(root.join("argocd/Dockerfile.dockerignore"));
    let patterns: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for left_out in ["target", ".git"] {
        assert!(patterns.contains(&left_out), "{left_out} is sent: {ignore}");
    }
    let needed = [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "src",
        "crates",
        "prototypes",
        "registry",
        "schemas",
        "benches",
    ];
    for path in needed {
        assert!(root.join(path).exists(), "{path} is not in the repository");
        for pattern in &patterns {
            let first = pattern.trim_start_matches('/').split('/').next().unwrap();
            assert_ne!(
                first, path,
                "{pattern} leaves out {path}, which the build reads"
            );
        }
    }
    let dockerfile = read(root.join("argocd/Dockerfile"));
    assert!(dockerfile.contains("ARG KF_BUILD_COMMIT"), "{dockerfile}");
}
