//! An app's modules and components: the folders below `components/` that hold a
//! params.libsonnet, and the component files in each, found by a walk that never leaves
//! the app.

use std::fs;
use std::path::{Path, PathBuf};

use super::{App, AppError, Component, ComponentFormat, Module};
use crate::suggest;

impl App {
    /// The app's modules: the root (`components/`) first, then every folder below it that
    /// holds a params.libsonnet, sorted by name.
    pub fn modules(&self) -> Result<Vec<Module>, AppError> {
        let root = self.components_dir();
        let mut out = vec![Module {
            name: String::new(),
            dir: root.clone(),
        }];
        let mut walk = Walk::of(&self.root, &root)?;
        let mut stack = vec![(root.clone(), walk.start.clone())];
        while let Some((dir, real)) = stack.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => return Err(AppError::Read { path: dir, source }),
            };
            for entry in entries.flatten() {
                if entry.file_name().as_encoded_bytes().starts_with(b".") || !is_dir(&entry) {
                    continue;
                }
                let path = entry.path();
                let Some(real) = walk.enter(&entry, &real)? else {
                    continue;
                };
                if path.join("params.libsonnet").is_file() {
                    let rel = path.strip_prefix(&root).unwrap_or(&path);
                    let name: Vec<String> = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    out.push(Module {
                        name: name.join("."),
                        dir: path.clone(),
                    });
                }
                stack.push((path, real));
            }
        }
        out[1..].sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The module a component lives in.
    pub fn module_of(&self, component: &Component) -> Module {
        let dir = component
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.components_dir());
        Module {
            name: component.module.clone(),
            dir,
        }
    }

    /// Components of the app: `*.{jsonnet,yaml,yml,json}` of every module (not
    /// params.libsonnet), sorted by full name.
    pub fn components(&self) -> Result<Vec<Component>, AppError> {
        let mut out = Vec::new();
        for module in self.modules()? {
            module_components(&module, &mut out)?;
        }
        // Unstable is faster on thousands; the module breaks ties as the listing order
        // did (the root module first, then by name), and the path those it leaves
        // (`x.yaml` and `x.yml`), which the listing's order left to the file system.
        out.sort_unstable_by(|a, b| {
            (a.name.as_str(), a.format, a.module.as_str(), &a.path).cmp(&(
                b.name.as_str(),
                b.format,
                b.module.as_str(),
                &b.path,
            ))
        });
        Ok(out)
    }

    pub fn component(&self, name: &str) -> Result<Component, AppError> {
        find_component(&self.components()?, name).cloned()
    }

    /// The component [`App::component`] finds, looked up at the paths its name can have
    /// (`components/<name>.<ext>`, or `<local>.<ext>` in a module folder for each way of
    /// splitting the name at a dot) instead of by listing components/: what a command on
    /// one component of an app of thousands needs. Lists only to report a missing name.
    pub fn component_by_path(&self, name: &str) -> Result<Component, AppError> {
        let parts: Vec<&str> = name.split('.').collect();
        let mut found: Option<Component> = None;
        for at in 0..parts.len() {
            let (module, local) = parts.split_at(at);
            if module.iter().any(|p| p.is_empty() || p.starts_with('.')) {
                continue;
            }
            let dir = module
                .iter()
                .fold(self.components_dir(), |dir, p| dir.join(p));
            if at > 0 && !dir.join("params.libsonnet").is_file() {
                continue;
            }
            let local = local.join(".");
            if local.is_empty() || local.starts_with('.') {
                continue;
            }
            for (ext, format) in COMPONENT_EXTENSIONS {
                let path = dir.join(format!("{local}.{ext}"));
                // Like the sorted listing: the first format, and the outermost module.
                if found.as_ref().is_none_or(|f| *format < f.format) && path.is_file() {
                    found = Some(Component {
                        name: name.to_string(),
                        local: local.clone(),
                        module: module.join("."),
                        path,
                        format: *format,
                    });
                }
            }
        }
        match found {
            Some(c) => Ok(c),
            None => self.component(name),
        }
    }
}

/// The file extensions of components, in the order of their formats.
pub(super) const COMPONENT_EXTENSIONS: &[(&str, ComponentFormat)] = &[
    ("jsonnet", ComponentFormat::Jsonnet),
    ("yaml", ComponentFormat::Yaml),
    ("yml", ComponentFormat::Yaml),
    ("json", ComponentFormat::Json),
];

pub(super) fn module_components(module: &Module, out: &mut Vec<Component>) -> Result<(), AppError> {
    let entries = match fs::read_dir(&module.dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(AppError::Read {
                path: module.dir.clone(),
                source,
            });
        }
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if file_name.starts_with('.') {
            continue;
        }
        let Some((name, ext)) = file_name.rsplit_once('.') else {
            continue;
        };
        let Some((_, format)) = COMPONENT_EXTENSIONS.iter().find(|(e, _)| *e == ext) else {
            continue;
        };
        let format = *format;
        // A folder of that name is no component. Anything else (a FIFO, a device, a
        // symlink out of the app) is listed, so that reading it fails with its reason
        // instead of the component vanishing.
        if is_dir(&entry) {
            continue;
        }
        let path = entry.path();
        out.push(Component {
            name: module.full_name(name),
            local: name.to_string(),
            module: module.name.clone(),
            path,
            format,
        });
    }
    Ok(())
}

/// A walk of a folder of the app (components/ for its modules, a 0.1.0 app's
/// environments/): it goes into a symlinked folder only once, by its real path (two
/// symlinks to `.` would otherwise make 2^40 paths to walk), and never out of the app.
pub(super) struct Walk {
    app: PathBuf,
    /// The real path of the folder the walk starts in.
    pub(super) start: PathBuf,
    seen: std::collections::BTreeSet<PathBuf>,
}

impl Walk {
    pub(super) fn of(app_root: &Path, start: &Path) -> Result<Walk, AppError> {
        let app = crate::sandbox::real_dir(app_root).map_err(|source| AppError::Read {
            path: app_root.to_path_buf(),
            source,
        })?;
        let start = crate::sandbox::real_dir(start)
            .unwrap_or_else(|_| app.join(start.strip_prefix(app_root).unwrap_or(start)));
        Ok(Walk {
            app,
            seen: std::collections::BTreeSet::from([start.clone()]),
            start,
        })
    }

    /// The real path of the folder `entry` (listed in the folder whose real path is
    /// `parent`), if the walk goes into it: not when it was walked already; an error when
    /// it resolves outside the app.
    pub(super) fn enter(
        &mut self,
        entry: &fs::DirEntry,
        parent: &Path,
    ) -> Result<Option<PathBuf>, AppError> {
        let path = entry.path();
        let real = match entry.file_type() {
            Ok(t) if !t.is_symlink() => parent.join(entry.file_name()),
            _ => path.canonicalize().map_err(|source| AppError::Read {
                path: path.clone(),
                source,
            })?,
        };
        if !real.starts_with(&self.app) {
            return Err(crate::sandbox::ReadError::Outside {
                path,
                resolved: real,
                allowed: self.app.display().to_string(),
            }
            .into());
        }
        Ok(self.seen.insert(real.clone()).then_some(real))
    }
}

/// Whether a listed entry is a folder, following a symlink as `Path::is_dir` does; the
/// listing's file type spares a `stat` per entry where it is not a symlink.
pub(super) fn is_dir(entry: &fs::DirEntry) -> bool {
    match entry.file_type() {
        Ok(t) if !t.is_symlink() => t.is_dir(),
        _ => entry.path().is_dir(),
    }
}

/// The component named `name` in `all` (a listing from [`App::components`], sorted by
/// name): a binary search, so that commands that already listed the components do not
/// list them again for each name they look up.
pub fn find_component<'a>(all: &'a [Component], name: &str) -> Result<&'a Component, AppError> {
    let first = all.partition_point(|c| c.name.as_str() < name);
    match all.get(first) {
        Some(c) if c.name == name => Ok(c),
        _ => Err(AppError::UnknownComponent {
            name: name.to_string(),
            hint: suggest::hint(name, all.iter().map(|c| c.name.as_str())),
        }),
    }
}
