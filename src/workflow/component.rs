//! `kf component rm` and `kf import`: adding and removing component files and their params.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::app::{self, App, AppError, ComponentFormat};
use crate::atomic::FileSet;
use crate::params::{EditError, ParamsFile, Root};
use crate::prototype::generate::{ComponentWriteError, check_syntax};

/// Remove a component's file and its params from the module and from every environment.
pub fn remove(app: &App, name: &str) -> Result<(), ComponentWriteError> {
    let component = app.component(name)?;
    let mut files = FileSet::new(&app.root);
    let mut edit =
        |path: PathBuf, key: &str, env: Option<&str>| -> Result<(), ComponentWriteError> {
            let text = match app.read_text(&path) {
                Ok(t) => t,
                Err(AppError::Unreadable(e)) if e.is_not_found() => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            let display = crate::render::rel(app, &path);
            let (bom, body) = crate::params::split_bom(&text);
            match ParamsFile::parse(&display, body)?
                .unset(Root::Components, &[key.to_string()], false)
                .map(|e| format!("{bom}{e}"))
            {
                Ok(edited) => {
                    check_syntax(&display, &edited)?;
                    super::params::check_component_edit(app, &path, env, key, &text, &edited)
                        .map_err(ComponentWriteError::Refused)?;
                    files.write(path, edited);
                    Ok(())
                }
                Err(EditError::NotSet { .. }) => Ok(()),
                // An env params file kf cannot parse as ksonnet's shape keeps no entry kf could remove.
                Err(EditError::Shape { .. }) => Ok(()),
                Err(e) => Err(e.into()),
            }
        };
    edit(
        app.module_of(&component).params_path(),
        &component.local,
        None,
    )?;
    for env in app.environments() {
        edit(
            app.env_dir(&env).join("params.libsonnet"),
            &component.name,
            Some(&env.name),
        )?;
    }
    files.remove(component.path);
    files.commit()?;
    Ok(())
}

/// `kf generate`: the prototype's component and its params, the params edit checked by
/// evaluating the file as it is and as edited (every other value must read back the same).
pub fn generate(
    app: &App,
    catalog: &crate::prototype::Catalog,
    prototype: &str,
    component: &str,
    given: &std::collections::BTreeMap<String, crate::prototype::Given>,
) -> Result<(), ComponentWriteError> {
    let verify = |path: &Path, before: &str, edited: &str, key: &str| {
        super::params::check_component_edit(app, path, None, key, before, edited)
    };
    crate::prototype::generate::generate(app, catalog, prototype, component, given, &verify)
}

/// What `kf import` created.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub component: String,
    pub path: PathBuf,
}

/// Import a YAML/JSON/Jsonnet file, or every such file in a folder (not recursive).
/// Each YAML document becomes its own component `<kind>-<name>`; a JSON or Jsonnet file
/// becomes one component named after the file.
pub fn import(app: &App, source: &Path) -> Result<Vec<Imported>, ComponentWriteError> {
    let inputs: Vec<PathBuf> = if source.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(source)
            .map_err(|e| AppError::Read {
                path: source.into(),
                source: e,
            })?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && matches!(ext(p), "yaml" | "yml" | "json" | "jsonnet"))
            .collect();
        v.sort();
        v
    } else {
        vec![source.to_path_buf()]
    };
    let mut taken: Vec<String> = app.components()?.into_iter().map(|c| c.name).collect();
    let mut files = FileSet::new(&app.root);
    let mut created = Vec::new();
    for input in inputs {
        let text = crate::sandbox::read_named(&input, crate::sandbox::RENDER_FILE_CAP)
            .map_err(AppError::from)?;
        let invalid = |message: String| AppError::Invalid {
            path: input.clone(),
            message,
        };
        match ext(&input) {
            "yaml" | "yml" => {
                let docs: Vec<Value> = serde_saphyr::from_multiple(&text).map_err(|e| {
                    invalid(format!(
                        "invalid YAML: {}",
                        e.to_string().lines().next().unwrap_or("")
                    ))
                })?;
                for (i, doc) in docs.into_iter().filter(|d| !d.is_null()).enumerate() {
                    let kind = doc.get("kind").and_then(Value::as_str);
                    let name = doc.pointer("/metadata/name").and_then(Value::as_str);
                    let (Some(kind), Some(name)) = (kind, name) else {
                        return Err(invalid(format!(
                            "document {} has no kind and metadata.name",
                            i + 1
                        ))
                        .into());
                    };
                    let component = unique(
                        &format!("{}-{}", kind.to_lowercase(), sanitize(name)),
                        &taken,
                    );
                    app::validate_component_name(&component)?;
                    let path = app.components_dir().join(format!("{component}.yaml"));
                    files.write(&path, app::to_yaml(&doc));
                    taken.push(component.clone());
                    created.push(Imported { component, path });
                }
            }
            "json" | "jsonnet" => {
                let format = if ext(&input) == "json" {
                    ComponentFormat::Json
                } else {
                    ComponentFormat::Jsonnet
                };
                if format == ComponentFormat::Json {
                    serde_json::from_str::<Value>(&text)
                        .map_err(|e| invalid(format!("invalid JSON: {e}")))?;
                } else {
                    check_syntax(&input.display().to_string(), &text)?;
                }
                let stem = input
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("")
                    .to_string();
                app::validate_component_name(&stem)?;
                if taken.contains(&stem) {
                    return Err(ComponentWriteError::Exists(stem));
                }
                let path = app.components_dir().join(format!("{stem}.{}", ext(&input)));
                files.write(&path, text);
                taken.push(stem.clone());
                created.push(Imported {
                    component: stem,
                    path,
                });
            }
            other => {
                return Err(invalid(format!(
                    "cannot import a '.{other}' file; kf imports .yaml, .yml, .json and .jsonnet"
                ))
                .into());
            }
        }
    }
    if created.is_empty() {
        return Err(AppError::Invalid {
            path: source.into(),
            message: "holds no YAML, JSON or Jsonnet to import".into(),
        }
        .into());
    }
    files.commit()?;
    Ok(created)
}

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// ksonnet appended random letters; kf appends a counter so imports are reproducible.
fn unique(base: &str, taken: &[String]) -> String {
    if !taken.iter().any(|t| t == base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|c| !taken.contains(c))
        .unwrap_or_default()
}
