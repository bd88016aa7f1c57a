//! `kf registry` and `kf pkg`: the registries an app knows (app.yaml `registries`, the
//! override file's, and the built-in `kubeflow`) and the packages vendored from them.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use super::remote::{self, FetchDeadline, Source};
use super::{BUILTIN, Package, PackageRef, RegistryError, builtin_packages, vendored_dir};
use crate::app::{self, App, AppError};
use crate::atomic::FileSet;

/// One registry as `kf registry list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Registry {
    pub name: String,
    pub protocol: String,
    pub uri: String,
    /// Defined in app.override.yaml.
    pub is_override: bool,
}

impl Registry {
    pub fn is_builtin(&self) -> bool {
        self.protocol == "builtin"
    }
}

fn entry(name: &str, v: &Value, is_override: bool) -> Registry {
    Registry {
        name: name.to_string(),
        protocol: v["protocol"].as_str().unwrap_or_default().to_string(),
        uri: v["uri"].as_str().unwrap_or_default().to_string(),
        is_override,
    }
}

/// Every registry of the app: app.yaml's, the override file's (which win), and the
/// built-in `kubeflow` unless the app names its own registry `kubeflow`.
pub fn registries(app: &App) -> Vec<Registry> {
    let mut all: BTreeMap<String, Registry> = BTreeMap::new();
    all.insert(
        BUILTIN.to_string(),
        Registry {
            name: BUILTIN.to_string(),
            protocol: "builtin".into(),
            uri: "(built into kf)".into(),
            is_override: false,
        },
    );
    for (n, v) in &app.spec.registries {
        all.insert(n.clone(), entry(n, v, false));
    }
    if let Some(o) = &app.overrides {
        for (n, v) in &o.registries {
            all.insert(n.clone(), entry(n, v, true));
        }
    }
    all.into_values().collect()
}

pub fn registry(app: &App, name: &str) -> Result<Registry, RegistryError> {
    let all = registries(app);
    all.iter()
        .find(|r| r.name == name)
        .cloned()
        .ok_or_else(|| RegistryError::Invalid {
            path: "app.yaml".into(),
            message: format!(
                "unknown registry '{name}'{}; `kf registry list` shows them",
                crate::suggest::hint(name, all.iter().map(|r| r.name.as_str()))
            ),
        })
}

fn check_name(name: &str) -> Result<(), RegistryError> {
    let ok = !name.is_empty()
        && name.len() <= 253
        && name.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_' || c == '.'
        })
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(RegistryError::Invalid {
            path: name.into(),
            message: "invalid registry name: use lower-case letters, digits, '-', '_' and '.'"
                .into(),
        })
    }
}

fn write_registries(
    app: &App,
    is_override: bool,
    change: impl FnOnce(&mut BTreeMap<String, Value>),
) -> Result<(), RegistryError> {
    let mut files = FileSet::new(&app.root);
    if is_override {
        let mut o = app.overrides.clone().unwrap_or_default();
        change(&mut o.registries);
        files.write(app.root.join(app::OVERRIDE_FILE), App::render_override(&o));
    } else {
        let mut spec = app.spec.clone();
        change(&mut spec.registries);
        files.write(app.root.join(app::APP_FILE), app.spec_text(&spec));
    }
    files.commit().map_err(AppError::from)?;
    Ok(())
}

/// `kf registry add`: check (within `deadline`) that the URI holds a registry, then
/// record it.
pub fn add(
    app: &App,
    name: &str,
    uri: &str,
    cwd: &Path,
    is_override: bool,
    deadline: &FetchDeadline,
) -> Result<Registry, RegistryError> {
    check_name(name)?;
    if registries(app)
        .iter()
        .any(|r| r.name == name && !r.is_builtin())
    {
        return Err(RegistryError::Invalid {
            path: name.into(),
            message: format!(
                "registry '{name}' already exists; `kf registry set {name} --uri …` changes it"
            ),
        });
    }
    let source = remote::parse_uri(uri, cwd)?;
    remote::fetch(&source, None, deadline)?;
    let stored = match &source {
        Source::Fs(p) => p.display().to_string(),
        Source::Git { .. } => uri.to_string(),
    };
    let value = json!({ "protocol": source.protocol(), "uri": stored });
    write_registries(app, is_override, |r| {
        r.insert(name.to_string(), value.clone());
    })?;
    Ok(entry(name, &value, is_override))
}

/// `kf registry set NAME --uri URI`, checked within `deadline`.
pub fn set_uri(
    app: &App,
    name: &str,
    uri: &str,
    cwd: &Path,
    deadline: &FetchDeadline,
) -> Result<(), RegistryError> {
    let r = registry(app, name)?;
    if r.is_builtin() {
        return Err(RegistryError::Invalid {
            path: name.into(),
            message: "the built-in registry cannot be changed; `kf registry add` another".into(),
        });
    }
    let source = remote::parse_uri(uri, cwd)?;
    remote::fetch(&source, None, deadline)?;
    let stored = match &source {
        Source::Fs(p) => p.display().to_string(),
        Source::Git { .. } => uri.to_string(),
    };
    write_registries(app, r.is_override, |regs| {
        regs.insert(
            name.to_string(),
            json!({ "protocol": source.protocol(), "uri": stored }),
        );
    })
}

/// `kf registry rm NAME`.
pub fn remove(app: &App, name: &str) -> Result<(), RegistryError> {
    let r = registry(app, name)?;
    if r.is_builtin() {
        return Err(RegistryError::Invalid {
            path: name.into(),
            message: "the built-in registry is always present".into(),
        });
    }
    write_registries(app, r.is_override, |regs| {
        regs.remove(name);
    })
}

/// A registry's packages, fetched.
pub struct Opened {
    pub registry: Registry,
    /// Package name → its files (read lazily for remote registries by [`Opened::package`]).
    names: Vec<String>,
    builtin: Option<BTreeMap<String, Package>>,
    fetched: Option<(remote::Fetched, BTreeMap<String, std::path::PathBuf>)>,
}

impl Opened {
    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn version(&self) -> Option<String> {
        self.fetched.as_ref().and_then(|(f, _)| f.version.clone())
    }

    /// The version registry.yaml lists a package at (`master`), if any.
    pub fn listed_version(&self, name: &str) -> Option<String> {
        let (f, _) = self.fetched.as_ref()?;
        remote::package_versions(&f.root).remove(name)
    }

    pub fn package(&self, name: &str) -> Result<Package, RegistryError> {
        let missing = || RegistryError::Invalid {
            path: self.registry.name.clone(),
            message: format!(
                "no package '{name}' in registry '{}'{}",
                self.registry.name,
                crate::suggest::hint(name, self.names.iter().map(String::as_str))
            ),
        };
        if let Some(b) = &self.builtin {
            return b.get(name).cloned().ok_or_else(missing);
        }
        let Some((fetched, dirs)) = self.fetched.as_ref() else {
            return Err(missing());
        };
        if let Some(dir) = dirs.get(name) {
            return remote::read_package(&self.registry.name, name, dir);
        }
        // ksonnet installs a package folder that registry.yaml does not list, as long as
        // it has its parts.yaml (the name is a plain folder name, never a path).
        let plain = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
            && !name.starts_with('.');
        let dir = fetched.root.join(name);
        let inside = match (dir.canonicalize(), fetched.root.canonicalize()) {
            (Ok(d), Ok(r)) => d.starts_with(&r),
            _ => false,
        };
        if plain && inside && dir.join("parts.yaml").is_file() {
            return remote::read_package(&self.registry.name, name, &dir);
        }
        Err(missing())
    }
}

/// Fetch a registry (at `reference` for git registries), within `deadline`.
pub fn open(
    app: &App,
    name: &str,
    reference: Option<&str>,
    deadline: &FetchDeadline,
) -> Result<Opened, RegistryError> {
    let registry = registry(app, name)?;
    if registry.is_builtin() {
        if reference.is_some() {
            return Err(RegistryError::Invalid {
                path: name.into(),
                message: "the built-in registry has one version, kf's own; drop the @ref".into(),
            });
        }
        let b = builtin_packages();
        return Ok(Opened {
            names: b.keys().cloned().collect(),
            registry,
            builtin: Some(b),
            fetched: None,
        });
    }
    let source = remote::parse_uri(&registry.uri, &app.root)?;
    let fetched = remote::fetch(&source, reference, deadline)?;
    let dirs = remote::packages(&fetched.root)?;
    Ok(Opened {
        names: dirs.keys().cloned().collect(),
        registry,
        builtin: None,
        fetched: Some((fetched, dirs)),
    })
}

/// `registry/package[@ref]`.
pub fn parse_package_ref(spec: &str) -> Result<(String, String, Option<String>), RegistryError> {
    let (head, reference) = match spec.split_once('@') {
        Some((h, r)) if !r.is_empty() => (h, Some(r.to_string())),
        Some(_) => ("", None),
        None => (spec, None),
    };
    match head.split_once('/') {
        Some((r, p)) if !r.is_empty() && !p.is_empty() && !p.contains('/') => {
            // Names, never paths: `../components` or `.kf-old-x` must not reach vendor/.
            check_name(r)?;
            crate::app::validate_component_name(p).map_err(|e| RegistryError::Invalid {
                path: spec.into(),
                message: format!("{e}; a package is named <registry>/<package>"),
            })?;
            if let Some(r) = &reference {
                remote::check_ref(r)?;
            }
            Ok((r.to_string(), p.to_string(), reference))
        }
        _ => Err(RegistryError::Invalid {
            path: spec.into(),
            message: "name a package as <registry>/<package>[@ref], e.g. kubeflow/tf-training"
                .into(),
        }),
    }
}

/// Options of `kf pkg install`.
#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// Vendor it under this name instead of the package's.
    pub alias: Option<String>,
    /// Record the library for this environment only.
    pub env: Option<String>,
    /// Replace an installed copy.
    pub force: bool,
}

/// `kf pkg install`: vendor a package into `vendor/<registry>/<name>/` and record it; its
/// registry is fetched within `deadline`.
pub fn install(
    app: &App,
    spec: &str,
    options: &InstallOptions,
    deadline: &FetchDeadline,
) -> Result<PackageRef, RegistryError> {
    let (reg, name, reference) = parse_package_ref(spec)?;
    let alias = options.alias.clone().unwrap_or_else(|| name.clone());
    crate::app::validate_component_name(&alias).map_err(|e| RegistryError::Invalid {
        path: alias.clone(),
        message: e.to_string(),
    })?;
    if let Some(env) = &options.env {
        app.environment(env)?;
    }
    let opened = open(app, &reg, reference.as_deref(), deadline)?;
    let pkg = opened.package(&name)?;
    let id = PackageRef {
        registry: reg.clone(),
        name: alias.clone(),
    };
    let existing = vendored_dir(app, &id);
    if existing.is_some() && !options.force {
        return Err(RegistryError::Invalid {
            path: format!("vendor/{id}"),
            message: format!("package {id} is already installed; --force replaces it"),
        });
    }
    let mut files = FileSet::new(&app.root);
    if let Some(dir) = existing {
        files.remove_dir(dir);
    }
    files.write_dir(
        app.root.join("vendor").join(&reg).join(&alias),
        pkg.files
            .iter()
            .map(|(r, b)| (r.clone(), b.clone()))
            .collect(),
    );
    // A folder registry has no version of its own: ksonnet records "".
    let version = opened.version().or(reference).unwrap_or_else(|| {
        if opened.registry.is_builtin() {
            crate::registry::builtin_version()
        } else {
            String::new()
        }
    });
    let library = json!({ "name": alias, "registry": reg, "version": version });
    let mut spec_out = app.spec.clone();
    match &options.env {
        None => {
            spec_out.libraries.insert(id.to_string(), library);
        }
        Some(env) => {
            let Some(e) = spec_out.environments.get_mut(env) else {
                return Err(RegistryError::Invalid {
                    path: "app.yaml".into(),
                    message: format!(
                        "environment '{env}' is in app.override.yaml; install it for all environments instead"
                    ),
                });
            };
            let libs = e
                .extra
                .entry("libraries".to_string())
                .or_insert_with(|| json!({}));
            if !libs.is_object() {
                *libs = json!({});
            }
            libs[id.to_string()] = library;
        }
    }
    files.write(app.root.join(app::APP_FILE), app.spec_text(&spec_out));
    files.commit().map_err(AppError::from)?;
    Ok(id)
}

/// `kf pkg remove`: the vendored folder and every `libraries` entry naming it.
pub fn uninstall(app: &App, spec: &str) -> Result<(), RegistryError> {
    let (reg, name, _) = parse_package_ref(spec)?;
    let id = PackageRef {
        registry: reg,
        name,
    };
    let Some(dir) = vendored_dir(app, &id) else {
        return Err(RegistryError::Invalid {
            path: format!("vendor/{id}"),
            message: format!(
                "package {id} is not installed; `kf pkg list --installed` shows what is"
            ),
        });
    };
    let mut spec_out = app.spec.clone();
    spec_out.libraries.remove(&id.to_string());
    for e in spec_out.environments.values_mut() {
        if let Some(Value::Object(l)) = e.extra.get_mut("libraries") {
            l.remove(&id.to_string());
            if l.is_empty() {
                e.extra.remove("libraries");
            }
        }
    }
    let mut files = FileSet::new(&app.root);
    files.remove_dir(dir);
    files.write(app.root.join(app::APP_FILE), app.spec_text(&spec_out));
    files.commit().map_err(AppError::from)?;
    Ok(())
}

/// Installed packages: (registry/name, version) from app.yaml and what vendor/ holds.
pub fn installed(app: &App) -> Result<Vec<(PackageRef, String)>, RegistryError> {
    let mut out = BTreeMap::new();
    for pkg in super::vendored_packages(app)? {
        let version = app
            .spec
            .libraries
            .get(&pkg.id.to_string())
            .and_then(|l| l["version"].as_str())
            .unwrap_or("")
            .to_string();
        out.insert(pkg.id.clone(), version);
    }
    Ok(out.into_iter().collect())
}
