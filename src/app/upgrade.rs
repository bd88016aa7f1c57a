//! `kf upgrade`: rewrite an app.yaml of ksonnet 0.11 (apiVersion 0.1.0) or 0.12 (0.2.0)
//! in the 0.3.0 shape. kf reads the old shapes as they are (migrating them in memory);
//! this makes the migration permanent, as `ks upgrade` did.

use std::path::PathBuf;

use serde_json::Value;

use super::{App, AppError, spec};
use crate::atomic::FileSet;

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub from: String,
    /// One line per change, for the user.
    pub changes: Vec<String>,
    /// The new app.yaml, if it changes.
    pub app_yaml: Option<String>,
    /// Files that the 0.3.0 shape no longer has (environments/<env>/spec.json).
    pub removed: Vec<PathBuf>,
    /// The app's .gitignore with kf's lock and staging files added, if it lacked them.
    pub gitignore: Option<String>,
}

impl Plan {
    pub fn is_noop(&self) -> bool {
        self.changes.is_empty()
    }
}

/// What upgrading would change.
pub fn plan(app: &App) -> Plan {
    let mut spec = app.spec.clone();
    let from = spec.api_version.clone();
    let mut changes = Vec::new();
    let mut removed = Vec::new();
    if from != spec::CURRENT_API_VERSION {
        changes.push(format!(
            "app.yaml: apiVersion {from} -> {}",
            spec::CURRENT_API_VERSION
        ));
        spec.api_version = spec::CURRENT_API_VERSION.to_string();
    }
    for (name, env) in spec.environments.iter_mut() {
        if env.k8s_version.is_empty() {
            changes.push(format!(
                "environment '{name}': k8sVersion recorded as {} (what kf renders it with)",
                spec::DEFAULT_K8S_VERSION
            ));
            env.k8s_version = spec::DEFAULT_K8S_VERSION.to_string();
        }
    }
    if matches!(from.as_str(), "0.0.1" | "0.1.0") {
        for (name, env) in &spec.environments {
            let spec_json = app.environments_dir().join(&env.path).join("spec.json");
            if spec_json.is_file() {
                changes.push(format!(
                    "environment '{name}': destination moved from environments/{}/spec.json into app.yaml",
                    env.path
                ));
                removed.push(spec_json);
            }
        }
    }
    if spec.id.is_none() {
        let id = spec::new_app_id();
        changes.push(format!(
            "app.yaml: id {id} recorded, so that on a cluster this app's objects are told apart from those of any other app named '{}' (commit app.yaml)",
            spec.name
        ));
        spec.id = Some(id);
    }
    // 0.3.0 keys libraries by `<registry>/<name>`.
    let old: Vec<(String, Value)> = spec
        .libraries
        .iter()
        .filter(|(k, _)| !k.contains('/'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (key, lib) in old {
        if let Some(reg) = lib.get("registry").and_then(Value::as_str) {
            let name = lib.get("name").and_then(Value::as_str).unwrap_or(&key);
            let new_key = format!("{reg}/{name}");
            if spec.libraries.contains_key(&new_key) {
                changes.push(format!(
                    "library '{key}' dropped: '{new_key}' is already recorded and kept"
                ));
                spec.libraries.remove(&key);
                continue;
            }
            changes.push(format!("library '{key}' is now keyed '{new_key}'"));
            spec.libraries.remove(&key);
            spec.libraries.insert(new_key, lib);
        }
    }
    let app_yaml = (!changes.is_empty()).then(|| app.spec_text(&spec));
    let gitignore = gitignore_with_kf_files(app);
    if gitignore.is_some() {
        changes.push(".gitignore: ignore kf's lock and staging files (/.kf.lock, .kf-*)".into());
    }
    Plan {
        from,
        changes,
        app_yaml,
        removed,
        gitignore,
    }
}

/// An app made by ksonnet or an older kf may not ignore `.kf.lock` and the `.kf-*` files
/// a killed kf can leave; an app without a .gitignore is left without one.
fn gitignore_with_kf_files(app: &App) -> Option<String> {
    let text = app.read_text(&app.root.join(".gitignore")).ok()?;
    let has = |entry: &str| text.lines().any(|l| l.trim() == entry);
    let mut out = text.clone();
    for (entry, also) in [("/.kf.lock", ".kf.lock"), (".kf-*", "**/.kf-*")] {
        if !has(entry) && !has(also) {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(entry);
            out.push('\n');
        }
    }
    (out != text).then_some(out)
}

/// Carry out a plan in one atomic step.
pub fn apply(app: &App, plan: &Plan) -> Result<(), AppError> {
    if plan.is_noop() {
        return Ok(());
    }
    let mut files = FileSet::new(&app.root);
    if let Some(y) = &plan.app_yaml {
        files.write(app.root.join(super::APP_FILE), y.clone());
    }
    if let Some(g) = &plan.gitignore {
        files.write(app.root.join(".gitignore"), g.clone());
    }
    for f in &plan.removed {
        files.remove(f);
    }
    files.commit()?;
    Ok(())
}
