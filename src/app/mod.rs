//! The app on disk: where it is, what `app.yaml` says, its environments and components.

mod components;
pub mod create;
mod discovery;
mod legacy;
pub mod lock;
mod names;
pub mod spec;
pub mod templates;
pub mod upgrade;
pub mod yaml_edit;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::atomic::{JOURNAL_FILE, WriteError};
pub use components::find_component;
pub use discovery::locate;
use legacy::migrate_legacy_environments;
pub use names::{
    dns1035_problem, namespace_problem, server_problem, validate_component_name, validate_env_name,
};
pub use spec::{AppSpec, Destination, EnvironmentSpec, OverrideSpec};

use crate::suggest;

pub const APP_FILE: &str = "app.yaml";
pub const OVERRIDE_FILE: &str = "app.override.yaml";
pub const CURRENT_ENV_FILE: &str = ".ks_environment";

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(
        "no ksonnet app here: no {APP_FILE} in {start} or any folder above it{stopped}; run `kf init <name>` to create one, or pass --dir"
    )]
    NotFound {
        start: PathBuf,
        /// Why the search stopped below the file system's root, if it did.
        stopped: String,
    },
    #[error(
        "an earlier kf command was interrupted while changing this app (its plan is in {journal}); run `kf recover` to finish that change first: commands that only read never write"
    )]
    Unfinished { journal: PathBuf },
    #[error(transparent)]
    Unreadable(#[from] crate::sandbox::ReadError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("unknown environment '{name}'{hint}; `kf env list` shows them")]
    UnknownEnvironment { name: String, hint: String },
    #[error("unknown component '{name}'{hint}; `kf component list` shows them")]
    UnknownComponent { name: String, hint: String },
    #[error("invalid {what} name '{name}': {why}")]
    InvalidName {
        what: &'static str,
        name: String,
        why: &'static str,
    },
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// A resolved environment: app.yaml (or app.override.yaml) entry plus where its files live.
#[derive(Debug, Clone, PartialEq)]
pub struct Environment {
    pub name: String,
    pub server: String,
    pub namespace: String,
    pub k8s_version: String,
    /// Folder below `environments/`.
    pub path: String,
    /// Defined in app.override.yaml rather than app.yaml.
    pub is_override: bool,
    /// Modules rendered in this environment; empty means all.
    pub targets: Vec<String>,
    pub spec: EnvironmentSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ComponentFormat {
    Jsonnet,
    Yaml,
    Json,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    /// Full name: `name` in the root module, `<module>.name` in a nested one.
    pub name: String,
    /// Name within its module (the key of its module's params.libsonnet).
    pub local: String,
    /// Module name: empty for the root module, `a.b` for `components/a/b/`.
    pub module: String,
    pub path: PathBuf,
    pub format: ComponentFormat,
}

/// A ksonnet module: `components/` itself, or a folder below it holding a params.libsonnet.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// Empty for the root module, `a.b` for `components/a/b/`.
    pub name: String,
    pub dir: PathBuf,
}

impl Module {
    pub fn params_path(&self) -> PathBuf {
        self.dir.join("params.libsonnet")
    }

    /// The component's full name: `local` in the root module, `<module>.local` elsewhere.
    pub fn full_name(&self, local: &str) -> String {
        if self.name.is_empty() {
            local.to_string()
        } else {
            format!("{}.{local}", self.name)
        }
    }

    /// How ksonnet names it in `targets` and messages: `/` for the root.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            "/"
        } else {
            &self.name
        }
    }

    /// Whether an env `targets` entry names this module (`/`, `a.b` or `a/b`).
    pub fn is_targeted_by(&self, target: &str) -> bool {
        let t = target.trim_matches('/').replace('/', ".");
        t == self.name
    }
}

#[derive(Debug, Clone)]
pub struct App {
    pub root: PathBuf,
    pub spec: AppSpec,
    pub overrides: Option<OverrideSpec>,
    /// The app's folder as the one place its files are read from.
    files: crate::sandbox::Sandbox,
}

impl App {
    /// The app `start` is in, for a command that only reads: refused while a change a
    /// killed kf left half done is pending (`kf recover`, or any command that writes,
    /// finishes it), since reading never writes.
    pub fn find(start: &Path) -> Result<App, AppError> {
        let root = discovery::locate(start)?;
        if crate::atomic::has_journal(&root) {
            return Err(AppError::Unfinished {
                journal: root.join(JOURNAL_FILE),
            });
        }
        App::load(&root)
    }

    pub fn load(root: &Path) -> Result<App, AppError> {
        // Paths inside the app are joined to `root` and compared with it: a relative root
        // (`kf demo --keep demo-app`) would be taken from a different folder on each join.
        let root = &std::path::absolute(root).map_err(|source| AppError::Read {
            path: root.to_path_buf(),
            source,
        })?;
        let app_path = root.join(APP_FILE);
        let sandbox = crate::sandbox::Sandbox::new([root]);
        let text = sandbox.read_text(&app_path)?;
        let mut spec: AppSpec = parse_yaml(&app_path, &text)?;
        if spec.kind != spec::APP_KIND {
            return Err(AppError::Invalid {
                path: app_path,
                message: format!("kind is '{}', expected '{}'", spec.kind, spec::APP_KIND),
            });
        }
        if !spec::SUPPORTED_API_VERSIONS.contains(&spec.api_version.as_str()) {
            return Err(AppError::Invalid {
                path: app_path,
                message: format!(
                    "unknown apiVersion '{}'; kf reads ksonnet apps of apiVersion {}",
                    spec.api_version,
                    spec::SUPPORTED_API_VERSIONS.join(", ")
                ),
            });
        }
        if matches!(spec.api_version.as_str(), "0.0.1" | "0.1.0") {
            migrate_legacy_environments(root, &mut spec)?;
        }
        let override_path = root.join(OVERRIDE_FILE);
        let overrides = if fs::symlink_metadata(&override_path).is_ok() {
            let text = sandbox.read_text(&override_path)?;
            Some(parse_yaml::<OverrideSpec>(&override_path, &text)?)
        } else {
            None
        };
        let app = App {
            root: root.to_path_buf(),
            spec,
            overrides,
            files: sandbox,
        };
        app.check_env_paths(&text)?;
        app.check_jpaths(&text)?;
        if let Some(id) = &app.spec.id
            && !spec::is_app_id(id)
        {
            return Err(AppError::Invalid {
                path: app.root.join(APP_FILE),
                message: "`id` is not an app id (8 to 63 lower-case letters and digits); remove it and run `kf upgrade` to record a new one".into(),
            });
        }
        Ok(app)
    }

    /// The values of app.yaml (and app.override.yaml) that name folders must be names:
    /// an environment's `path` stays below `environments/` (`../x` or `/x` in an
    /// untrusted app.yaml would make kf write and delete elsewhere), and its `k8sVersion`
    /// names a folder below `lib/ksonnet-lib/`, so it must be a version.
    fn check_env_paths(&self, text: &str) -> Result<(), AppError> {
        for env in self.environments() {
            let (field, problem) = if validate_env_name(&env.path).is_err() {
                let problem = format!(
                    "environment '{}' has path '{}'; an environment's folder must be below environments/ ('/'-separated names of letters, digits, '-', '_' and '.', no '..' and not absolute): fix its `path`",
                    env.name, env.path
                );
                ("path", problem)
            } else if !crate::k8s_version::is_k8s_version(&env.k8s_version) {
                let problem = format!(
                    "environment '{}' has a k8sVersion that is not a Kubernetes version; write one such as v1.10.3 (`v`, then major.minor.patch)",
                    env.name
                );
                ("k8sVersion", problem)
            } else {
                continue;
            };
            let (file, text) = if env.is_override {
                let path = self.root.join(OVERRIDE_FILE);
                (OVERRIDE_FILE, self.read_text(&path).unwrap_or_default())
            } else {
                (APP_FILE, text.to_string())
            };
            let shown = match line_of_env_field(&text, &env.name, field) {
                Some(line) => format!("{file}:{line}"),
                None => file.to_string(),
            };
            return Err(AppError::Invalid {
                path: self.root.join(shown),
                message: problem,
            });
        }
        Ok(())
    }

    /// The text of a file of the app, read as every file kf did not write is: only if
    /// it resolves inside the app, is a regular file and is not oversized (see
    /// [`crate::sandbox`]).
    pub fn read_text(&self, path: &Path) -> Result<String, AppError> {
        Ok(self.files.read_text(path)?)
    }

    /// The folder the app's files are read from, as a sandbox.
    pub fn sandbox(&self) -> &crate::sandbox::Sandbox {
        &self.files
    }

    /// The library folders app.yaml's `jpath` lists, in its order (checked when the app
    /// is read: each is a folder inside the app's repository).
    pub fn jpaths(&self) -> Vec<PathBuf> {
        self.spec.jpath.iter().map(|p| self.root.join(p)).collect()
    }

    /// Each `jpath` entry names a library folder ([`App::library_folder`]): an app.yaml
    /// from elsewhere must not make kf read `~/.kube` or `/etc` into a manifest.
    fn check_jpaths(&self, text: &str) -> Result<(), AppError> {
        for entry in &self.spec.jpath {
            if let Err(why) = self.library_folder(entry) {
                let line = text
                    .lines()
                    .position(|l| l.contains(entry.as_str()))
                    .map_or(String::new(), |i| format!(" (line {})", i + 1));
                return Err(AppError::Invalid {
                    path: self.root.join(APP_FILE),
                    message: format!("jpath entry '{entry}'{line} {why}"),
                });
            }
        }
        Ok(())
    }

    /// The real folder `entry` (relative to the app) names, if it is a folder inside the
    /// repository the app is in (the nearest folder holding `.git`; the app itself when
    /// it is in none); else why not.
    pub fn library_folder(&self, entry: &str) -> Result<PathBuf, String> {
        if entry.is_empty() || Path::new(entry).is_absolute() {
            return Err("is not a relative path; name a library folder relative to the app".into());
        }
        let top = discovery::repository_root(&self.root)
            .or_else(|| self.root.canonicalize().ok())
            .unwrap_or_else(|| self.root.clone());
        let real = self
            .root
            .join(entry)
            .canonicalize()
            .map_err(|e| format!("names no folder ({e}); create it or remove the entry"))?;
        if !real.is_dir() || !real.starts_with(&top) {
            return Err(format!(
                "resolves to {}, which is not a folder inside {}; kf reads libraries only inside the app's repository (pass others with -J)",
                real.display(),
                top.display()
            ));
        }
        Ok(real)
    }

    /// The `vendor/` of the jsonnet-bundler project above the app, if there is one
    /// ([`discovery::bundler_vendor`]).
    pub fn bundler_vendor(&self) -> Option<PathBuf> {
        discovery::bundler_vendor(&self.root)
    }

    pub fn components_dir(&self) -> PathBuf {
        self.root.join("components")
    }

    pub fn component_params_path(&self) -> PathBuf {
        self.components_dir().join("params.libsonnet")
    }

    pub fn environments_dir(&self) -> PathBuf {
        self.root.join("environments")
    }

    pub fn env_dir(&self, env: &Environment) -> PathBuf {
        self.environments_dir().join(&env.path)
    }

    /// Every environment, app.yaml's and app.override.yaml's, sorted by name; an override
    /// entry replaces the app.yaml entry of the same name.
    pub fn environments(&self) -> Vec<Environment> {
        let mut all: BTreeMap<&str, Environment> = BTreeMap::new();
        for (name, spec) in &self.spec.environments {
            all.insert(name, Environment::from_spec(name, spec, false));
        }
        if let Some(o) = &self.overrides {
            for (name, spec) in &o.environments {
                let merged = match self.spec.environments.get(name) {
                    Some(base) => base.overridden_by(spec),
                    None => spec.clone(),
                };
                all.insert(name, Environment::from_spec(name, &merged, true));
            }
        }
        all.into_values().collect()
    }

    pub fn environment(&self, name: &str) -> Result<Environment, AppError> {
        let envs = self.environments();
        if let Some(env) = envs.iter().find(|e| e.name == name) {
            return Ok(env.clone());
        }
        Err(AppError::UnknownEnvironment {
            name: name.to_string(),
            hint: suggest::hint(name, envs.iter().map(|e| e.name.as_str())),
        })
    }

    /// The env named in `.ks_environment`, if any. The file is a state file in an
    /// untrusted folder: read without following a symlink, capped, and its content is
    /// used only if it is an environment name — never echoed otherwise (a symlink to
    /// `~/.kube/config` must not print a token).
    pub fn current_environment(&self) -> Result<Option<String>, AppError> {
        use crate::sandbox::{self, ReadError};
        let path = self.root.join(CURRENT_ENV_FILE);
        let bytes = match sandbox::read_regular(&path, 4096) {
            Ok(b) => b,
            Err(ReadError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let name = std::str::from_utf8(&bytes).map(str::trim).unwrap_or("\0");
        if name.is_empty() {
            return Ok(None);
        }
        if validate_env_name(name).is_err() {
            return Err(AppError::Invalid {
                path,
                message: "it does not hold an environment name; set one with `kf env current --set <env>` (or remove the file)".into(),
            });
        }
        Ok(Some(name.to_string()))
    }

    /// Serialize app.yaml for writing (0.3.0 shape).
    /// app.yaml for `spec`, in ksonnet's style (block maps, `0.3.0` unquoted).
    pub fn render_spec(spec: &AppSpec) -> String {
        serde_json::to_value(spec)
            .ok()
            .and_then(|v| yaml_edit::render(&v))
            .unwrap_or_else(|| to_yaml(spec))
    }

    /// app.yaml holding `spec`, changed from the file on disk only where `spec` differs
    /// from it (comments, key order and ksonnet's bare versions kept); a full rewrite when
    /// the file's shape does not allow an edit in place.
    pub fn spec_text(&self, spec: &AppSpec) -> String {
        let path = self.root.join(APP_FILE);
        let edited = self.read_text(&path).ok().and_then(|text| {
            let old: serde_json::Value = serde_saphyr::from_str(&text).ok()?;
            let new = serde_json::to_value(spec).ok()?;
            yaml_edit::edit(&text, &old, &new)
        });
        edited.unwrap_or_else(|| App::render_spec(spec))
    }

    pub fn render_override(spec: &OverrideSpec) -> String {
        to_yaml(spec)
    }
}

impl Environment {
    fn from_spec(name: &str, spec: &EnvironmentSpec, is_override: bool) -> Environment {
        Environment {
            name: name.to_string(),
            server: spec.destination.server.clone(),
            namespace: if spec.destination.namespace.is_empty() {
                "default".to_string()
            } else {
                spec.destination.namespace.clone()
            },
            k8s_version: if spec.k8s_version.is_empty() {
                spec::DEFAULT_K8S_VERSION.to_string()
            } else {
                spec.k8s_version.clone()
            },
            path: if spec.path.is_empty() {
                name.to_string()
            } else {
                spec.path.clone()
            },
            is_override,
            targets: spec.targets.clone(),
            spec: spec.clone(),
        }
    }
}

fn parse_yaml<T: serde::de::DeserializeOwned>(path: &Path, text: &str) -> Result<T, AppError> {
    serde_saphyr::from_str(text).map_err(|e| AppError::Invalid {
        path: path.to_path_buf(),
        message: format!(
            "not a valid app file: {}",
            crate::message::error_summary(&e.to_string())
        ),
    })
}

/// The line (1-based) of `field` of environment `env` in an app.yaml written in YAML's
/// block style (`environments:`, then `  <env>:`, then its fields indented below it).
fn line_of_env_field(text: &str, env: &str, field: &str) -> Option<usize> {
    let key = |line: &str| {
        let (key, _) = line.trim().split_once(':')?;
        Some(key.trim().trim_matches(['"', '\'']).to_string())
    };
    // Inside `environments:` (with the indentation of its environments, once seen), and
    // inside `env`'s block.
    let mut environments: Option<Option<usize>> = None;
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = line.len() - trimmed.len();
        if indent == 0 {
            environments = (key(line).as_deref() == Some("environments")).then_some(None);
            inside = false;
            continue;
        }
        let Some(level) = environments.as_mut() else {
            continue;
        };
        let level = *level.get_or_insert(indent);
        if indent == level {
            inside = key(line).as_deref() == Some(env);
        } else if inside && indent > level && key(line).as_deref() == Some(field) {
            return Some(i + 1);
        }
    }
    None
}

pub fn to_yaml<T: serde::Serialize>(value: &T) -> String {
    // Serializing plain data to a string cannot fail; an error here would be a kf bug.
    serde_saphyr::to_string(value).unwrap_or_else(|e| panic!("YAML serialization failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_environment_field_is_found_on_its_line() {
        let text = "apiVersion: 0.3.0\nenvironments:\n  path:\n    destination:\n      namespace: a\n    k8sVersion: v1.10.3\n    path: path\n  \"prod\":\n    # the cluster\n    k8sVersion: vX\n    path: prod\nkind: ksonnet.io/app\n";
        assert_eq!(
            super::line_of_env_field(text, "prod", "k8sVersion"),
            Some(10)
        );
        assert_eq!(super::line_of_env_field(text, "path", "path"), Some(7));
        assert_eq!(super::line_of_env_field(text, "dev", "k8sVersion"), None);
        assert_eq!(
            super::line_of_env_field(
                "environments: {prod: {k8sVersion: x}}\n",
                "prod",
                "k8sVersion"
            ),
            None
        );
    }

    #[test]
    fn component_by_path_finds_what_the_listing_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("app.yaml"),
            "apiVersion: 0.3.0\nkind: ksonnet.io/app\nname: a\nversion: 0.0.1\n",
        )
        .unwrap();
        let files = [
            "components/params.libsonnet",
            "components/web.jsonnet",
            "components/a.b.jsonnet",
            "components/m/params.libsonnet",
            "components/m/x.yaml",
            "components/m/x.jsonnet",
            "components/m/n/params.libsonnet",
            "components/m/n/y.json",
            "components/plain/z.jsonnet",
        ];
        for f in files {
            let path = root.join(f);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "{}").unwrap();
        }
        let app = App::load(root).unwrap();
        for name in ["web", "a.b", "m.x", "m.n.y"] {
            assert_eq!(
                app.component_by_path(name).unwrap(),
                app.component(name).unwrap(),
                "{name}"
            );
        }
        // A folder without params.libsonnet is no module; its files are no components.
        for name in ["plain.z", "params", "m.params", "nope"] {
            assert!(app.component_by_path(name).is_err(), "{name}");
        }
    }
}
