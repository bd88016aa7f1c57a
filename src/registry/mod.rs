//! Registries and packages in ksonnet's formats (`registry.yaml`, `parts.yaml`,
//! `prototypes/*.jsonnet`, libraries), and vendoring them into an app.
//!
//! The built-in `kubeflow` registry is embedded in the binary. Its packages are vendored
//! into `vendor/kubeflow/<package>/` the first time a component is generated from one of
//! their prototypes, so the app holds every file it renders with (as a ksonnet app did
//! after `ks pkg install`) and a newer kf never changes an existing app's output.

mod git;
pub mod manage;
pub mod remote;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::{App, AppError, AppSpec};
use crate::atomic::FileSet;
use crate::embedded;
use crate::sandbox::RENDER_FILE_CAP;

/// The registry built into kf.
pub const BUILTIN: &str = "kubeflow";

/// `<registry>/<package>`, as app.yaml's `libraries` keys name a package.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct PackageRef {
    pub registry: String,
    pub name: String,
}

impl std::fmt::Display for PackageRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.registry, self.name)
    }
}

/// Where a package's files are.
#[derive(Debug, Clone, PartialEq)]
pub enum Origin {
    /// Embedded in kf.
    Builtin,
    /// In the app's `vendor/` folder.
    Vendored(PathBuf),
}

/// One package: its identity, its parts.yaml description and its files.
#[derive(Debug, Clone)]
pub struct Package {
    pub id: PackageRef,
    pub description: String,
    pub origin: Origin,
    /// Path within the package folder → its bytes (packages may hold images).
    pub files: BTreeMap<String, Vec<u8>>,
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error(transparent)]
    App(#[from] AppError),
    #[error(transparent)]
    Read(#[from] crate::sandbox::ReadError),
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl Package {
    /// Packages of the same registry this one imports (`import 'kubeflow/common/…'`).
    pub fn dependencies(&self) -> BTreeSet<String> {
        let prefix = format!("{}/", self.id.registry);
        let mut deps = BTreeSet::new();
        for (rel, bytes) in &self.files {
            if !(rel.ends_with(".jsonnet") || rel.ends_with(".libsonnet")) {
                continue;
            }
            let Ok(text) = std::str::from_utf8(bytes) else {
                continue;
            };
            for quote in ['\'', '"'] {
                let opener = format!("{quote}{prefix}");
                let mut rest = text;
                while let Some(at) = rest.find(&opener) {
                    rest = &rest[at + opener.len()..];
                    if let Some((name, _)) = rest.split_once('/')
                        && name != self.id.name
                        && !name.is_empty()
                        && name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    {
                        deps.insert(name.to_string());
                    }
                }
            }
        }
        deps
    }
}

/// The packages of the built-in registry, by name.
pub fn builtin_packages() -> BTreeMap<String, Package> {
    let prefix = format!("registry/{BUILTIN}/");
    let mut packages: BTreeMap<String, Package> = BTreeMap::new();
    for (path, text) in embedded::files_under(&prefix) {
        let rel = &path[prefix.len()..];
        let Some((name, file)) = rel.split_once('/') else {
            continue;
        };
        let pkg = packages.entry(name.to_string()).or_insert_with(|| Package {
            id: PackageRef {
                registry: BUILTIN.to_string(),
                name: name.to_string(),
            },
            description: String::new(),
            origin: Origin::Builtin,
            files: BTreeMap::new(),
        });
        pkg.files.insert(file.to_string(), text.as_bytes().to_vec());
    }
    for pkg in packages.values_mut() {
        pkg.description = parts_description(
            pkg.files
                .get("parts.yaml")
                .and_then(|b| std::str::from_utf8(b).ok()),
        );
    }
    packages
}

fn parts_description(parts: Option<&str>) -> String {
    parts
        .and_then(|t| serde_saphyr::from_str::<Value>(t).ok())
        .and_then(|v| {
            v.get("description")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default()
}

/// The folder a vendored package lives in: `vendor/<registry>/<name>` (ksonnet 0.11/0.12),
/// or `vendor/<registry>/<name>@<version>` (ksonnet 0.13).
pub fn vendored_dir(app: &App, id: &PackageRef) -> Option<PathBuf> {
    let reg = app.root.join("vendor").join(&id.registry);
    let plain = reg.join(&id.name);
    if plain.is_dir() {
        return Some(plain);
    }
    let versioned = format!("{}@", id.name);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&reg)
        .ok()?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&versioned))
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found.pop()
}

/// Each library app.yaml declares (and `env`'s own, when given) that vendor/ has no copy
/// of, as one sentence naming it and the command that restores it. ksonnet 0.13 refused
/// every command of such an app ("checking for app upgrades: listing packages: …
/// parts.yaml: no such file"); kf refuses the verbs that render and warns on the listing
/// ones (docs/commands.md).
pub fn missing_libraries(app: &App, env: Option<&crate::app::Environment>) -> Vec<String> {
    let env_libraries = env
        .and_then(|e| e.spec.extra.get("libraries"))
        .and_then(Value::as_object);
    let declared = app
        .spec
        .libraries
        .iter()
        .chain(env_libraries.into_iter().flatten());
    let mut out = Vec::new();
    for (key, entry) in declared {
        let field = |f: &str| {
            entry
                .get(f)
                .and_then(Value::as_str)
                .filter(|v| !v.is_empty())
        };
        let (key_registry, key_name) = match key.split_once('/') {
            Some((r, n)) => (Some(r), n),
            None => (None, key.as_str()),
        };
        let Some(registry) = field("registry").or(key_registry) else {
            continue;
        };
        let id = PackageRef {
            registry: registry.to_string(),
            name: field("name").unwrap_or(key_name).to_string(),
        };
        if vendored_dir(app, &id).is_some() {
            continue;
        }
        // kf's own `kf-<version>` marks a copy of its built-in registry: no ref to give.
        let version = field("version")
            .filter(|v| !v.starts_with("kf-"))
            .map(|v| format!("@{v}"))
            .unwrap_or_default();
        out.push(format!(
            "library '{key}' is declared, but vendor/{} has no copy of it; restore it with `kf pkg install {id}{version}` (or `git checkout -- vendor/`), or drop it from app.yaml",
            id.registry
        ));
    }
    out
}

/// The version kf records in app.yaml for a package it vendored from its built-in registry.
pub fn builtin_version() -> String {
    format!("kf-{}", env!("CARGO_PKG_VERSION"))
}

/// Whether `id` was vendored from kf's built-in registry (by `kf generate` or `kf pkg
/// install`): app.yaml records it with a `kf-<version>` version.
pub fn vendored_by_kf(app: &App, id: &PackageRef) -> bool {
    id.registry == BUILTIN
        && app
            .spec
            .libraries
            .get(&id.to_string())
            .and_then(|l| l.get("version"))
            .and_then(Value::as_str)
            .is_some_and(|v| v.starts_with("kf-"))
}

/// Packages vendored in the app (`vendor/<registry>/<package>[@version]/`).
pub fn vendored_packages(app: &App) -> Result<Vec<Package>, RegistryError> {
    let vendor = app.root.join("vendor");
    let mut out = Vec::new();
    let Ok(registries) = std::fs::read_dir(&vendor) else {
        return Ok(out);
    };
    let mut registries: Vec<PathBuf> = registries.flatten().map(|e| e.path()).collect();
    registries.sort();
    for reg_dir in registries.into_iter().filter(|p| p.is_dir()) {
        let registry = file_name(&reg_dir);
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&reg_dir)
            .map_err(|source| AppError::Read {
                path: reg_dir.clone(),
                source,
            })?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            let dir_name = file_name(&dir);
            // kf's own staging folders (.kf-*) left by a crash are not packages.
            if dir_name.starts_with('.') {
                continue;
            }
            let name = dir_name.split('@').next().unwrap_or(&dir_name).to_string();
            let mut files = BTreeMap::new();
            if let Some(t) = read_vendored(app, &dir.join("parts.yaml"), remote::INDEX_FILE_CAP)? {
                files.insert("parts.yaml".to_string(), t);
            }
            if let Ok(entries) = std::fs::read_dir(dir.join("prototypes")) {
                for e in entries.flatten() {
                    let n = file_name(&e.path());
                    if n.ends_with(".jsonnet")
                        && let Some(t) = read_vendored(app, &e.path(), RENDER_FILE_CAP)?
                    {
                        files.insert(format!("prototypes/{n}"), t);
                    }
                }
            }
            let description = parts_description(
                files
                    .get("parts.yaml")
                    .and_then(|b| std::str::from_utf8(b).ok()),
            );
            out.push(Package {
                id: PackageRef {
                    registry: registry.clone(),
                    name,
                },
                description,
                origin: Origin::Vendored(dir),
                files,
            });
        }
    }
    Ok(out)
}

/// A file of a vendored package, `None` when there is none; a FIFO or a device in its
/// place is refused (naming it), never waited on. It is read as every file of the app is,
/// through the app's sandbox: a `vendor/<registry>`, package or `prototypes` folder
/// symlinked out of the app is refused, not read from wherever it points.
fn read_vendored(app: &App, path: &Path, cap: u64) -> Result<Option<Vec<u8>>, RegistryError> {
    match app.sandbox().read_at_most(path, cap) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Stage the vendoring of a built-in package and the packages it imports, and their
/// `libraries` entries in app.yaml. Packages already vendored are left as they are.
/// Returns the packages staged.
pub fn stage_install(
    app: &App,
    package: &str,
    spec: &mut AppSpec,
    files: &mut FileSet,
) -> Result<Vec<PackageRef>, RegistryError> {
    let builtin = builtin_packages();
    let mut todo = vec![package.to_string()];
    let mut seen = BTreeSet::new();
    let mut staged = Vec::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(pkg) = builtin.get(&name) else {
            return Err(RegistryError::Invalid {
                path: format!("registry {BUILTIN}"),
                message: format!("package '{name}' is not in the built-in registry"),
            });
        };
        todo.extend(pkg.dependencies());
        if vendored_dir(app, &pkg.id).is_some() {
            continue;
        }
        let dir = app
            .root
            .join("vendor")
            .join(&pkg.id.registry)
            .join(&pkg.id.name);
        files.write_dir(
            dir,
            pkg.files
                .iter()
                .map(|(rel, bytes)| (rel.clone(), bytes.clone()))
                .collect(),
        );
        spec.libraries.insert(
            pkg.id.to_string(),
            serde_json::json!({
                "name": pkg.id.name,
                "registry": pkg.id.registry,
                "version": builtin_version(),
            }),
        );
        staged.push(pkg.id.clone());
    }
    Ok(staged)
}

/// ksonnet 0.13 vendored packages as `vendor/<registry>/<pkg>@<version>/` but imported
/// them as `<registry>/<pkg>/…`: map each such prefix to its folder (when app.yaml names
/// a version, that one; else the last by name).
pub fn version_aliases(app: &App) -> Vec<(PathBuf, PathBuf)> {
    let vendor = app.root.join("vendor");
    let Ok(registries) = std::fs::read_dir(&vendor) else {
        return Vec::new();
    };
    let mut out: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    for reg in registries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
    {
        let registry = file_name(&reg);
        let Ok(entries) = std::fs::read_dir(&reg) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs.into_iter().filter(|p| p.is_dir()) {
            let dir_name = file_name(&dir);
            if dir_name.starts_with('.') {
                continue;
            }
            let Some((name, version)) = dir_name.split_once('@') else {
                continue;
            };
            if reg.join(name).is_dir() {
                continue;
            }
            let prefix = PathBuf::from(&registry).join(name);
            let pinned = app
                .spec
                .libraries
                .get(&format!("{registry}/{name}"))
                .and_then(|l| l.get("version"))
                .and_then(Value::as_str);
            match pinned {
                Some(v) if v != version && out.contains_key(&prefix) => {}
                _ => {
                    out.insert(prefix, dir);
                }
            }
        }
    }
    out.into_iter().collect()
}
