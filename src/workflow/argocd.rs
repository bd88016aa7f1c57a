//! Argo CD's config-management plugins (CMP v2) run `kf cmp discover` and `kf cmp
//! generate` in a sidecar of its repo server (argocd/plugin.yaml, docs/gitops.md). Argo CD
//! rendered ksonnet apps itself until 2.0; this is that, for kf.
//!
//! The repo server runs both in a fresh copy of the Application's source path, with the
//! Application's environment entries as `ARGOCD_ENV_<NAME>` and its plugin parameters as
//! JSON in `ARGOCD_APP_PARAMETERS` (`[{"name":"env","string":"prod"},{"map":
//! {"web.replicas":"3"},"name":"params"}]`; `null` when the Application's plugin block sets
//! none, absent when it has no plugin block). `generate` writes the manifests to stdout.

use serde_json::Value;

use crate::app::App;

/// The environment variable (an Application's `plugin.env` entry `KF_ENV`) naming the env.
pub const ENV_VAR: &str = "ARGOCD_ENV_KF_ENV";
/// The plugin parameters, as JSON.
pub const PARAMETERS_VAR: &str = "ARGOCD_APP_PARAMETERS";

/// What `generate` renders: the env and the param overrides, read from Argo CD's variables.
#[derive(Debug, Default, PartialEq)]
pub struct Request {
    pub env: Option<String>,
    /// `(component, param key, value)`, in the order given.
    pub params: Vec<(String, String, String)>,
    /// Library folders to search after app.yaml's `jpath` (the `jpath` parameter), each
    /// checked to be inside the app's repository.
    pub jpaths: Vec<std::path::PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum CmpError {
    #[error("{PARAMETERS_VAR}: {0}")]
    Parameters(String),
    #[error("{0}")]
    Invalid(String),
}

/// Whether `dir` is a ksonnet or kf app: an `app.yaml` of kind `ksonnet.io/app`.
pub fn discover(dir: &std::path::Path) -> bool {
    crate::sandbox::read_regular_text(&dir.join(crate::app::APP_FILE), 1 << 20)
        .ok()
        .and_then(|text| serde_saphyr::from_str::<Value>(&text).ok())
        .is_some_and(|v| v.get("kind").and_then(Value::as_str) == Some("ksonnet.io/app"))
}

/// The env and overrides from Argo CD's variables: the `env` parameter, else `env_var`
/// (`ARGOCD_ENV_KF_ENV`); `params` (a map of `component.param` to value) for overrides;
/// `jpath` (an array of library folders) for imports.
pub fn request(
    app: &App,
    parameters: Option<&str>,
    env_var: Option<&str>,
) -> Result<Request, CmpError> {
    let mut request = Request {
        env: env_var.filter(|e| !e.is_empty()).map(str::to_string),
        params: Vec::new(),
        jpaths: Vec::new(),
    };
    let Some(parameters) = parameters.filter(|p| !p.trim().is_empty()) else {
        return Ok(request);
    };
    let bad = |m: String| CmpError::Parameters(m);
    // Argo CD's repo server sends `null` for an Application whose plugin block sets no
    // parameters: it JSON-encodes a nil list (ApplicationSourcePluginParameters.Environ,
    // pkg/apis/application/v1alpha1/types.go). That is an empty list.
    let list: Vec<Value> = serde_json::from_str::<Option<Vec<Value>>>(parameters)
        .map_err(|e| {
            bad(format!(
                "not a JSON list of parameters ({}); Argo CD writes it from the Application's spec.source.plugin.parameters",
                crate::message::json_error_summary(&e)
            ))
        })?
        .unwrap_or_default();
    let components: Vec<String> = app
        .components()
        .map_err(|e| CmpError::Invalid(e.to_string()))?
        .into_iter()
        .map(|c| c.name)
        .collect();
    for p in &list {
        let name = p.get("name").and_then(Value::as_str).unwrap_or_default();
        match name {
            "env" => {
                let env = p.get("string").and_then(Value::as_str).unwrap_or_default();
                if !env.is_empty() {
                    request.env = Some(env.to_string());
                }
            }
            "params" => {
                // A parameter named with no value (Argo CD writes `{"name":"params"}`) sets
                // nothing.
                let given = ["string", "array"].iter().any(|k| p.get(*k).is_some());
                let map = match p.get("map") {
                    Some(Value::Object(map)) => map,
                    None if !given => continue,
                    _ => {
                        return Err(bad(
                            "parameter 'params' must be a map of component.param to value: in the Application, spec.source.plugin.parameters: [{name: params, map: {web.replicas: \"3\"}}]".into(),
                        ));
                    }
                };
                for (key, value) in map {
                    let value = match value {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    let (component, param) = split_key(&components, key).ok_or_else(|| {
                        bad(format!(
                            "'{key}' names no component's param: give component.param, one of the components {}",
                            components.join(", ")
                        ))
                    })?;
                    request.params.push((component, param, value));
                }
            }
            "jpath" => {
                let folders: Vec<&str> = match (p.get("array"), p.get("string")) {
                    (Some(Value::Array(items)), _) => {
                        items.iter().filter_map(Value::as_str).collect()
                    }
                    (None, Some(Value::String(one))) if !one.is_empty() => vec![one.as_str()],
                    (None, None | Some(_)) => Vec::new(),
                    _ => {
                        return Err(bad(
                            "parameter 'jpath' must be an array of library folders relative to the app: in the Application, spec.source.plugin.parameters: [{name: jpath, array: [../libs]}]".into(),
                        ));
                    }
                };
                for folder in folders {
                    let real = app
                        .library_folder(folder)
                        .map_err(|why| bad(format!("parameter 'jpath', entry '{folder}' {why}")))?;
                    request.jpaths.push(real);
                }
            }
            // Parameters of other plugins or announcements kf does not take are Argo CD's.
            _ => {}
        }
    }
    Ok(request)
}

/// `web.replicas` → (`web`, `replicas`): the longest component name the key starts with
/// (a module's component has dots, `team.serving.web.replicas`), then the param (itself
/// dotted for a nested one: `web.resources.limits.cpu`).
fn split_key(components: &[String], key: &str) -> Option<(String, String)> {
    components
        .iter()
        .filter(|c| {
            key.strip_prefix(c.as_str())
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|rest| !rest.is_empty())
        })
        .max_by_key(|c| c.len())
        .map(|c| (c.clone(), key[c.len() + 1..].to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_at_the_longest_component() {
        let cs: Vec<String> = ["web", "team.serving.web", "team"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            split_key(&cs, "web.replicas"),
            Some(("web".into(), "replicas".into()))
        );
        assert_eq!(
            split_key(&cs, "team.serving.web.image"),
            Some(("team.serving.web".into(), "image".into()))
        );
        assert_eq!(
            split_key(&cs, "web.resources.limits.cpu"),
            Some(("web".into(), "resources.limits.cpu".into()))
        );
        assert_eq!(split_key(&cs, "nope.replicas"), None);
        assert_eq!(split_key(&cs, "web."), None);
        assert_eq!(split_key(&cs, "web"), None);
    }
}
