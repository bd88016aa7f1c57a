//! What a component's render error says beyond jrsonnet's message: the file and line,
//! the param values its prototype refuses, the API a moved env no longer has.

use super::env_view::EnvView;
use super::params::env_params_path;
use super::rel;
use crate::app::{App, Component, Environment, Module};

/// A component that failed to render, with first the param values of it that its
/// prototype's types refuse, each with the params file and line that set it: such a
/// value (set with --force, or by hand) is the usual cause, and the Jsonnet trace ends
/// in the package's libraries, never in the params file (or, when jrsonnet loses the
/// error inside an array comprehension, says only "infinite recursion detected").
pub(super) fn blame_params(
    app: &App,
    env: &Environment,
    module: &Module,
    component: &Component,
    view: &EnvView,
    message: String,
) -> String {
    let Ok(Some(params)) = view.entry_json(&component.name) else {
        return message;
    };
    let off = crate::prototype::conformance::off_type_values(app, &component.name, &params);
    if off.is_empty() {
        return message;
    }
    // Where a value is set: the env's params override the module's (each file read once).
    let places: Vec<(String, String, &str, bool)> = [
        (env_params_path(app, env), component.name.as_str(), true),
        (module.params_path(), component.local.as_str(), false),
    ]
    .into_iter()
    .filter_map(|(path, key, in_env)| {
        Some((rel(app, &path), app.read_text(&path).ok()?, key, in_env))
    })
    .collect();
    let set_at = |param: &str| -> Option<(String, bool)> {
        places.iter().find_map(|(file, text, key, in_env)| {
            let path_in = ["components", *key, param];
            let line = crate::params::structure::line_of_field_path(text, path_in.into_iter())?;
            Some((format!("{file}:{line}"), *in_env))
        })
    };
    let mut out = String::new();
    for o in &off {
        let (place, in_env) = set_at(&o.param).unwrap_or_else(|| ("its params".to_string(), false));
        let flag = if in_env {
            format!(" --env {}", env.name)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{place}: param {}: {}; prototype {} declares it of type {} (`kf param set {} {} VALUE{flag}` sets it)\n",
            o.param, o.error, o.prototype, o.kind, component.name, o.param
        ));
    }
    format!("{out}rendering it failed: {message}")
}

/// A hint for a "no such field" error naming an API group or version ksonnet-era code
/// calls (`k.extensions.v1beta1.deployment`) and today's library lacks: the env's
/// k8sVersion gave it today's API, and `kf env set --api-spec` gives it ksonnet's back.
pub(super) fn api_hint(env: &Environment, message: &str) -> String {
    let Some(field) = message
        .split("no such field: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
    else {
        return String::new();
    };
    let versioned = field.strip_prefix('v').is_some_and(|v| {
        let digits = v.trim_start_matches(|c: char| c.is_ascii_digit());
        digits.len() < v.len() && (digits.starts_with("alpha") || digits.starts_with("beta"))
    });
    if !crate::ksonnetlib::is_todays(&env.k8s_version) || !(versioned || field == "extensions") {
        return String::new();
    }
    format!(
        "\nhint: environment '{}' is for Kubernetes {} (its k8sVersion), whose API and ksonnet-lib no longer have '{field}'; move the code to today's API (see `kf validate {}`), or give the environment ksonnet's with `kf env set {} --api-spec version:v1.10.3`",
        env.name, env.k8s_version, env.name, env.name
    )
}

/// jrsonnet errors about missing fields or imports carry no location; name the file.
pub(super) fn with_file(app: &App, component: &Component, message: String) -> String {
    let file = rel(app, &component.path);
    if message.contains(&format!("{file}:")) {
        return message;
    }
    let Ok(text) = app.read_text(&component.path) else {
        return format!("{file}: {message}");
    };
    // jrsonnet gives many runtime errors no span, only the chain of fields being
    // manifested; find that field in the component's source to name its line.
    let fields: Vec<&str> = message
        .lines()
        .filter_map(|l| l.trim().strip_prefix("field <")?.strip_suffix('>'))
        .collect();
    let line = crate::params::structure::line_of_field_path(&text, fields.iter().rev().copied());
    match (missing_field_access(&text, &message, line), line) {
        (Some((line, column)), _) => format!("{file}:{line}:{column}: {message}"),
        (None, Some(line)) => format!("{file}:{line}: {message}"),
        (None, None) => format!("{file}: {message}"),
    }
}

/// Where `source` reads the field a "no such field: NAME" error names (`params.imagee`):
/// the 1-based line and column of NAME in its one `.NAME` access, or in the one on
/// `near_line` when there are several. jrsonnet reports this error without a span.
pub(super) fn missing_field_access(
    source: &str,
    message: &str,
    near_line: Option<usize>,
) -> Option<(usize, usize)> {
    let name = message
        .lines()
        .next()?
        .strip_prefix("no such field: ")?
        .trim();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || !name.chars().all(is_ident) {
        return None;
    }
    let mut found = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or(line);
        for (at, _) in code.match_indices(&format!(".{name}")) {
            let end = at + 1 + name.len();
            let before = code[..at].chars().next_back();
            let after = code[end..].chars().next();
            // `a.NAME` or `a).NAME`, not `1.5` or `.NAMEs`.
            let accessor = before.is_some_and(|c| is_ident(c) || c == ')' || c == ']');
            if accessor && !after.is_some_and(is_ident) {
                found.push((index + 1, code[..at + 1].chars().count() + 1));
            }
        }
    }
    match found.as_slice() {
        [one] => Some(*one),
        _ => found.into_iter().find(|(l, _)| Some(*l) == near_line),
    }
}
