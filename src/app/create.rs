//! Creating apps and environments on disk.

use std::fs;
use std::path::{Path, PathBuf};

use super::spec::{
    DEFAULT_K8S_VERSION, Destination, EnvironmentSpec, NEW_APP_K8S_VERSION, OverrideSpec,
};
use super::{App, AppError, AppSpec, templates, validate_env_name};
use crate::atomic::{self, FileSet};

pub const DEFAULT_SERVER: &str = "https://kubernetes.default.svc";

#[derive(Debug, Clone)]
pub struct EnvOptions {
    pub name: String,
    pub server: Option<String>,
    pub namespace: Option<String>,
    /// The API the env targets and its ksonnet-lib ([`read_api_spec`], or a server's
    /// spec); `None` for the default.
    pub api_spec: Option<ApiSpec>,
    pub is_override: bool,
}

/// What `--api-spec` names: `version:v1.x.y` or `file:path/to/swagger.json` (the CLI
/// reads `server`, the env's cluster's own spec, and passes it to [`api_spec_of`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ApiSpec {
    pub version: String,
    /// lib/ksonnet-lib/<version>/: k.libsonnet, k8s.libsonnet and swagger.json, generated
    /// from the given spec or, without one, the spec kf carries.
    pub lib: Vec<(String, Vec<u8>)>,
}

impl ApiSpec {
    /// `version` with ksonnet-lib from the spec kf carries for it (v1.33.0's for today's
    /// versions, v1.10.3's for ksonnet-era ones).
    pub fn carried(version: &str) -> Result<ApiSpec, AppError> {
        let spec = crate::ksonnetlib::CARRIED[crate::ksonnetlib::carried_for(version)].1;
        let lib = crate::ksonnetlib::lib_files(spec.as_bytes()).map_err(|e| AppError::Invalid {
            path: PathBuf::from("kf's Kubernetes spec"),
            message: e.to_string(),
        })?;
        Ok(ApiSpec {
            version: version.to_string(),
            lib,
        })
    }
}

pub fn read_api_spec(arg: &str) -> Result<ApiSpec, AppError> {
    if let Some(v) = arg.strip_prefix("version:") {
        let v = if v.starts_with('v') {
            v.to_string()
        } else {
            format!("v{v}")
        };
        return ApiSpec::carried(&v);
    }
    let Some(path) = arg.strip_prefix("file:") else {
        return Err(AppError::Invalid {
            path: PathBuf::from(arg),
            message: "--api-spec takes `version:v1.x.y`, `file:<swagger.json>` or `server`".into(),
        });
    };
    let bytes =
        crate::sandbox::read_named(Path::new(path), crate::sandbox::RENDER_FILE_CAP)?.into_bytes();
    api_spec_of(bytes, path)
}

/// The API a swagger 2.0 spec (`bytes`, from `path`: a file, a server's URL) describes:
/// its version from `info.version` and ksonnet-lib generated from it.
pub fn api_spec_of(bytes: Vec<u8>, path: &str) -> Result<ApiSpec, AppError> {
    let spec: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| AppError::Invalid {
            path: path.into(),
            message: format!("not a JSON OpenAPI spec: {e}"),
        })?;
    let version = spec
        .pointer("/info/version")
        .and_then(|v| v.as_str())
        .ok_or_else(|| AppError::Invalid {
            path: path.into(),
            message: "has no info.version; is it a Kubernetes swagger.json?".into(),
        })?;
    let version = version
        .split(['-', '+'])
        .next()
        .unwrap_or(version)
        .to_string();
    // It names the env's library folder, and becomes its k8sVersion.
    if !crate::k8s_version::is_k8s_version(&version) {
        return Err(AppError::Invalid {
            path: path.into(),
            message: "its info.version is not a Kubernetes version (such as v1.10.3)".into(),
        });
    }
    let _generating =
        crate::engine::watchdog::Evaluating::generating(|| format!("ksonnet-lib from {path}"));
    let lib = crate::ksonnetlib::lib_files(&bytes).map_err(|e| AppError::Invalid {
        path: path.into(),
        message: e.to_string(),
    })?;
    Ok(ApiSpec { version, lib })
}

/// Stage an environment's three files (and its ksonnet-lib spec) into `files`.
fn stage_env_files(root: &Path, env_path: &str, api: &ApiSpec, files: &mut FileSet) {
    let dir = root.join("environments").join(env_path);
    files.write(dir.join("main.jsonnet"), templates::ENV_MAIN);
    files.write(dir.join("params.libsonnet"), templates::ENV_PARAMS);
    files.write(dir.join("globals.libsonnet"), templates::ENV_GLOBALS);
    stage_lib(root, &api.version, &api.lib, files);
}

/// Stage `lib` as the whole of `lib/ksonnet-lib/<version>/`: a library made anew replaces
/// the folder, so no file of the spec it replaces stays behind (nothing when `lib` is
/// empty: the carried version's library is made when rendering).
fn stage_lib(root: &Path, version: &str, lib: &atomic::DirFiles, files: &mut FileSet) {
    if lib.is_empty() {
        return;
    }
    let dir = root.join("lib").join("ksonnet-lib").join(version);
    files.remove_dir(&dir);
    files.write_dir(dir, lib.clone());
}

/// `kf init`: build the whole app in a hidden sibling folder, then rename it into place,
/// so a failure never leaves a half-made app.
pub fn init_app(target: &Path, env: &EnvOptions) -> Result<PathBuf, AppError> {
    if target.exists() {
        return Err(AppError::Invalid {
            path: target.to_path_buf(),
            message:
                "already exists; kf init creates a new folder (pick another name or remove it)"
                    .into(),
        });
    }
    validate_env_name(&env.name)?;
    let name = target
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| AppError::Invalid {
            path: target.to_path_buf(),
            message: "has no usable folder name".into(),
        })?
        .to_string();
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(AppError::Invalid {
            path: parent,
            message: "parent folder does not exist".into(),
        });
    }
    if let Some(message) = destination_problem(env.server.as_deref(), env.namespace.as_deref()) {
        return Err(AppError::Invalid {
            path: parent.join(&name),
            message: format!("{message}; nothing was created"),
        });
    }
    let api = match &env.api_spec {
        Some(a) => a.clone(),
        None => ApiSpec::carried(NEW_APP_K8S_VERSION)?,
    };
    let staging = tempfile::Builder::new()
        .prefix(".kf-init-")
        .tempdir_in(&parent)
        .map_err(|source| AppError::Read {
            path: parent.clone(),
            source,
        })?;
    let root = staging.path();

    let mut spec = AppSpec::new(&name);
    spec.environments.insert(
        env.name.clone(),
        EnvironmentSpec {
            destination: Destination {
                namespace: env.namespace.clone().unwrap_or_else(|| "default".into()),
                server: env.server.clone().unwrap_or_else(|| DEFAULT_SERVER.into()),
            },
            k8s_version: api.version.clone(),
            path: env.name.clone(),
            ..Default::default()
        },
    );
    let mut files = FileSet::new(root);
    files.write(root.join(super::APP_FILE), App::render_spec(&spec));
    files.write(root.join(".gitignore"), templates::GITIGNORE);
    files.write(
        root.join("components").join("params.libsonnet"),
        templates::COMPONENT_PARAMS,
    );
    files.write(
        root.join("environments").join("base.libsonnet"),
        templates::BASE,
    );
    stage_env_files(root, &env.name, &api, &mut files);
    for dir in ["lib", "vendor", "components", "environments"] {
        fs::create_dir_all(root.join(dir)).map_err(|source| AppError::Read {
            path: root.join(dir),
            source,
        })?;
    }
    files.commit()?;
    let staged = staging.keep();
    fs::rename(&staged, target).map_err(|source| {
        let _ = fs::remove_dir_all(&staged);
        AppError::Read {
            path: target.to_path_buf(),
            source,
        }
    })?;
    Ok(target.to_path_buf())
}

/// `kf env add`.
pub fn add_env(app: &App, env: &EnvOptions) -> Result<(), AppError> {
    validate_env_name(&env.name)?;
    check_destination(app, env.server.as_deref(), env.namespace.as_deref())?;
    if app.environments().iter().any(|e| e.name == env.name) {
        return Err(AppError::Invalid {
            path: app.root.join(super::APP_FILE),
            message: format!(
                "environment '{}' already exists; `kf env set` changes it",
                env.name
            ),
        });
    }
    let env_dir = app.environments_dir().join(&env.name);
    if env_dir.join("main.jsonnet").exists() {
        return Err(AppError::Invalid {
            path: env_dir,
            message: "already holds an environment's files; remove them or pick another name"
                .into(),
        });
    }
    let api = match &env.api_spec {
        Some(a) => a.clone(),
        None => ApiSpec {
            version: app
                .environments()
                .first()
                .map(|e| e.k8s_version.clone())
                .unwrap_or_else(|| DEFAULT_K8S_VERSION.to_string()),
            // That version's lib is the app's already (or generated when rendering).
            lib: Vec::new(),
        },
    };
    let default_server = app
        .environments()
        .first()
        .map(|e| e.server.clone())
        .unwrap_or_else(|| DEFAULT_SERVER.to_string());
    let entry = EnvironmentSpec {
        destination: Destination {
            namespace: env.namespace.clone().unwrap_or_else(|| "default".into()),
            server: env.server.clone().unwrap_or(default_server),
        },
        k8s_version: api.version.clone(),
        path: env.name.clone(),
        targets: Vec::new(),
        extra: Default::default(),
    };
    let mut files = FileSet::new(&app.root);
    if env.is_override {
        let mut o = app.overrides.clone().unwrap_or_default();
        o.environments.insert(env.name.clone(), entry);
        stage_override(app, &o, &mut files);
    } else {
        let mut spec = app.spec.clone();
        spec.environments.insert(env.name.clone(), entry);
        files.write(app.root.join(super::APP_FILE), app.spec_text(&spec));
    }
    stage_env_files(&app.root, &env.name, &api, &mut files);
    files.commit()?;
    Ok(())
}

fn destination_problem(server: Option<&str>, namespace: Option<&str>) -> Option<String> {
    server
        .and_then(super::server_problem)
        .or_else(|| namespace.and_then(super::namespace_problem))
}

/// A server or namespace the API server would refuse is refused before it is written.
fn check_destination(
    app: &App,
    server: Option<&str>,
    namespace: Option<&str>,
) -> Result<(), AppError> {
    match destination_problem(server, namespace) {
        Some(message) => Err(AppError::Invalid {
            path: app.root.join(super::APP_FILE),
            message: format!("{message}; nothing was changed"),
        }),
        None => Ok(()),
    }
}

/// `kf env rm`: the entry, its folder and the current-env marker if it named it, in one
/// atomic step. Now-empty parents of a nested env (us-west/prod → us-west) go too.
pub fn remove_env(app: &App, name: &str, from_override: bool) -> Result<(), AppError> {
    let env = app.environment(name)?;
    let mut files = FileSet::new(&app.root);
    if from_override || env.is_override {
        let mut o: OverrideSpec = app.overrides.clone().unwrap_or_default();
        if o.environments.remove(name).is_none() {
            return Err(AppError::UnknownEnvironment {
                name: name.into(),
                hint: " in app.override.yaml".into(),
            });
        }
        stage_override(app, &o, &mut files);
    } else {
        let mut spec = app.spec.clone();
        spec.environments.remove(name);
        files.write(app.root.join(super::APP_FILE), app.spec_text(&spec));
    }
    if app.current_environment().ok().flatten().as_deref() == Some(name) {
        files.remove(app.root.join(super::CURRENT_ENV_FILE));
    }
    let dir = app.env_dir(&env);
    if fs::symlink_metadata(&dir).is_ok() {
        files.remove_dir(&dir);
    }
    files.commit()?;
    // Drop now-empty parents of a nested env; remove_dir never removes a non-empty folder.
    let envs = app.environments_dir();
    let mut parent = dir.parent();
    while let Some(p) = parent {
        if p == envs || !p.starts_with(&envs) || atomic::resolve_inside(&app.root, p).is_err() {
            break;
        }
        if fs::remove_dir(p).is_err() {
            break;
        }
        parent = p.parent();
    }
    Ok(())
}

#[derive(Debug, Clone, Default)]
pub struct EnvChanges {
    pub rename: Option<String>,
    pub server: Option<String>,
    pub namespace: Option<String>,
    pub api_spec: Option<ApiSpec>,
    /// The modules it renders (`kf env targets`), each `/`, `a/b` or `a.b`.
    pub targets: Option<Vec<String>>,
}

/// `kf env set`: change destination, version or name (renaming moves the folder).
pub fn update_env(app: &App, name: &str, changes: &EnvChanges) -> Result<(), AppError> {
    let env = app.environment(name)?;
    check_destination(app, changes.server.as_deref(), changes.namespace.as_deref())?;
    let mut entry = env.spec.clone();
    if let Some(s) = &changes.server {
        entry.destination.server = s.clone();
    }
    if let Some(n) = &changes.namespace {
        entry.destination.namespace = n.clone();
    }
    if let Some(targets) = &changes.targets {
        let modules = app.modules()?;
        for t in targets {
            if !modules.iter().any(|m| m.is_targeted_by(t)) {
                let names: Vec<&str> = modules.iter().map(|m| m.display_name()).collect();
                return Err(AppError::Invalid {
                    path: app.components_dir(),
                    message: format!(
                        "no module '{t}' here (modules: {}); a module is a folder of components/ with a params.libsonnet",
                        names.join(", ")
                    ),
                });
            }
        }
        entry.targets = targets.clone();
    }
    let mut swagger = None;
    if let Some(a) = &changes.api_spec {
        entry.k8s_version = a.version.clone();
        swagger = Some((a.version.clone(), a.lib.clone()));
    }
    let mut new_name = name.to_string();
    if let Some(r) = &changes.rename {
        validate_env_name(r)?;
        if r != name && app.environments().iter().any(|e| &e.name == r) {
            return Err(AppError::Invalid {
                path: app.root.join(super::APP_FILE),
                message: format!("environment '{r}' already exists"),
            });
        }
        new_name = r.clone();
        entry.path = r.clone();
    }
    let mut files = FileSet::new(&app.root);
    if env.is_override {
        let mut o = app.overrides.clone().unwrap_or_default();
        o.environments.remove(name);
        o.environments.insert(new_name.clone(), entry);
        stage_override(app, &o, &mut files);
    } else {
        let mut spec = app.spec.clone();
        spec.environments.remove(name);
        spec.environments.insert(new_name.clone(), entry);
        files.write(app.root.join(super::APP_FILE), app.spec_text(&spec));
    }
    if let Some((version, lib)) = swagger {
        stage_lib(&app.root, &version, &lib, &mut files);
    }
    if new_name != name {
        let from = app.env_dir(&env);
        let to = app.environments_dir().join(&new_name);
        if to.exists() {
            return Err(AppError::Invalid {
                path: to,
                message: "already exists".into(),
            });
        }
        if fs::symlink_metadata(&from).is_ok() {
            files.move_dir(from, to);
        }
        if app.current_environment().ok().flatten().as_deref() == Some(name) {
            files.write(app.root.join(super::CURRENT_ENV_FILE), new_name.clone());
        }
    }
    files.commit()?;
    Ok(())
}

/// `kf env current --set`.
pub fn set_current_env(app: &App, name: Option<&str>) -> Result<(), AppError> {
    let path = app.root.join(super::CURRENT_ENV_FILE);
    match name {
        Some(n) => {
            app.environment(n)?;
            atomic::write_atomic(&app.root, &path, n.as_bytes())?;
        }
        None => {
            let mut f = FileSet::new(&app.root);
            f.remove(path);
            f.commit()?;
        }
    }
    Ok(())
}

/// Write app.override.yaml, or remove it when it would define nothing (as ksonnet did).
fn stage_override(app: &App, o: &OverrideSpec, files: &mut FileSet) {
    let path = app.root.join(super::OVERRIDE_FILE);
    if o.is_empty() {
        if path.exists() {
            files.remove(path);
        }
    } else {
        files.write(path, App::render_override(o));
    }
}
