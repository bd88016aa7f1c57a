//! ksonnet 0.1.0's app layout, read into today's: each environment's destination kept in
//! `environments/<env>/spec.json`.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use super::components::{Walk, is_dir};
use super::{AppError, AppSpec, Destination, EnvironmentSpec};

/// ksonnet 0.1.0 kept each environment's destination in `environments/<env>/spec.json`.
pub(super) fn migrate_legacy_environments(root: &Path, spec: &mut AppSpec) -> Result<(), AppError> {
    let envs_dir = root.join("environments");
    let mut walk = Walk::of(root, &envs_dir)?;
    let mut stack = vec![(envs_dir.clone(), walk.start.clone())];
    while let Some((dir, real)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if !is_dir(&entry) {
                continue;
            }
            let Some(real) = walk.enter(&entry, &real)? else {
                continue;
            };
            let spec_json = path.join("spec.json");
            if spec_json.is_file() {
                let text = crate::sandbox::Sandbox::new([root]).read_text(&spec_json)?;
                let dest: Destination =
                    serde_json::from_str(&text).map_err(|e| AppError::Invalid {
                        path: spec_json.clone(),
                        message: format!(
                            "not a valid environment spec: {}",
                            crate::message::json_error_summary(&e)
                        ),
                    })?;
                let rel = path
                    .strip_prefix(&envs_dir)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                spec.environments
                    .entry(rel.clone())
                    .or_insert_with(|| EnvironmentSpec {
                        destination: dest,
                        k8s_version: String::new(),
                        path: rel,
                        targets: Vec::new(),
                        extra: BTreeMap::new(),
                    });
            } else {
                stack.push((path, real));
            }
        }
    }
    Ok(())
}
