//! An edit of a params file is checked before it is written: the file as it is and the
//! file as edited are both evaluated (from memory), and every value other than the one
//! set must read back as it was. The editor finds fields by pairing brackets; were it ever
//! to splice the wrong span (as it did with a comma missing after `replicas: 1`, deleting
//! `servicePort`), this is where that is caught, whatever the shape that fooled it.

use serde_json::Value;

use super::{Located, ParamError, ParamTarget};
use crate::app::{App, AppError};
use crate::params::Root;
use crate::render::{self, RenderOptions};

/// A file that reads an external variable (`std.extVar('IMAGE_TAG')`, given to `kf show`
/// with `--ext-str`) cannot be evaluated by an edit, which is given none: such a file is
/// edited with its syntax checked, as before kf read edits back.
fn needs_ext_vars(why: &str) -> bool {
    why.contains("external variable")
}

/// The key's value with `edited` (`Some(None)`: unset), once every other value of the
/// file's view reads the same with `before` and `edited`; `None` when the file reads
/// external variables kf is not given, and cannot be evaluated here.
pub(super) fn read_back(
    app: &App,
    target: &ParamTarget,
    at: &Located,
    before: &str,
    edited: &str,
    verb: &str,
) -> Result<Option<Option<Value>>, ParamError> {
    let path = view_path(at);
    let was = match view(app, target, at, before) {
        Ok(v) => v,
        Err(why) if needs_ext_vars(&why) => return Ok(None),
        Err(why) => {
            return Err(ParamError::Usage(format!(
                "{}: the file does not evaluate as it is ({why}); kf edits only a file it can read back. Fix it (`kf validate` shows where), then run the command again; nothing was written",
                at.display
            )));
        }
    };
    let is = view(app, target, at, edited).map_err(|why| {
        refused(
            target,
            at,
            verb,
            format!("the edited file does not evaluate ({why})"),
        )
    })?;
    if let Some(other) = first_other_change(&was, &is, &path) {
        return Err(ParamError::Usage(format!(
            "{}: kf's edit of {} would also change {other}; nothing was written. This is a kf bug: please report it with this file",
            at.display, target.key
        )));
    }
    Ok(Some(path.iter().try_fold(&is, |v, k| v.get(k)).cloned()))
}

/// `kf generate` and `kf component rm` edit one component's entry of a params file (a
/// module's, or an env's when `env` is named): the file as it is and as edited must both
/// evaluate, and every value but `components.<key>` read back the same. The message says
/// why not, with the file.
pub fn check_component_edit(
    app: &App,
    path: &std::path::Path,
    env: Option<&str>,
    key: &str,
    before: &str,
    edited: &str,
) -> Result<(), String> {
    let display = render::rel(app, path);
    let target = ParamTarget {
        component: Some(key.to_string()),
        key: key.to_string(),
        env: env.map(str::to_string),
    };
    let at = Located {
        path: path.to_path_buf(),
        display: display.clone(),
        root: Root::Components,
        keys: vec![key.to_string()],
        inherit: crate::params::Inherit::Replace,
        prune: false,
    };
    let was = match view(app, &target, &at, before) {
        Ok(v) => v,
        Err(why) if needs_ext_vars(&why) => return Ok(()),
        Err(why) => {
            return Err(format!(
                "{display}: the file does not evaluate as it is ({why}); kf edits only a file it can read back. Fix it (`kf validate` shows where), then run the command again; nothing was written"
            ));
        }
    };
    let is = view(app, &target, &at, edited).map_err(|why| {
        format!("{display}: the edited file would not evaluate ({why}); nothing was written")
    })?;
    match first_other_change(&was, &is, &view_path(&at)) {
        Some(other) => Err(format!(
            "{display}: editing component '{key}' would also change {other}; this file's shape decides its values elsewhere: edit it by hand; nothing was written"
        )),
        None => Ok(()),
    }
}

/// Where the key sits in [`view`]'s value.
fn view_path(at: &Located) -> Vec<String> {
    let head = match at.root {
        Root::Components => Some("components"),
        Root::Global => Some("global"),
        Root::TopLevel => None,
    };
    head.map(str::to_string)
        .into_iter()
        .chain(at.keys.iter().cloned())
        .collect()
}

/// What the file says, evaluated with `text` in its place: a module's params file or an
/// env's globals.libsonnet, its own value; an env's params.libsonnet, the env's effective
/// params (the file reads the module's through `std.extVar`).
fn view(app: &App, target: &ParamTarget, at: &Located, text: &str) -> Result<Value, String> {
    // A module's params file in ksonnet's shape, a plain literal, says its value itself.
    if target.env.is_none()
        && let Some(Some(found)) = crate::params::literal::value_at(text, &[])
    {
        return Ok(found);
    }
    let env = match &target.env {
        Some(e) => app.environment(e).map_err(|e| e.to_string())?,
        // Module params need no environment; any env's search paths will do.
        None => match app.environments().into_iter().next() {
            Some(env) => env,
            None => return Ok(Value::Null),
        },
    };
    let real = at.path.canonicalize().map_err(|source| {
        AppError::Read {
            path: at.path.clone(),
            source,
        }
        .to_string()
    })?;
    let options = RenderOptions {
        overlay: vec![(real, text.to_string())],
        ..RenderOptions::default()
    };
    if target.env.is_some() && at.root == Root::Components {
        return render::effective_params(app, &env, &options)
            .map_err(|e| crate::message::error_summary_with_place(&e.to_string()));
    }
    let engine = render::new_engine(app, &env, &options);
    engine
        .file_json(&at.path)
        .map_err(|e| crate::message::error_summary_with_place(&e.message))
}

/// The first value other than the one at `path` (and the objects on the way to it that
/// hold nothing else) that differs between `was` and `is`, as a dotted path.
fn first_other_change(was: &Value, is: &Value, path: &[String]) -> Option<String> {
    let (mut was, mut is) = (was.clone(), is.clone());
    cut(&mut was, path);
    cut(&mut is, path);
    first_difference(&was, &is, "")
}

/// Remove `path`'s value, then each object on the way to it that is left empty.
fn cut(v: &mut Value, path: &[String]) {
    let Some((key, rest)) = path.split_first() else {
        return;
    };
    let Value::Object(map) = v else {
        return;
    };
    if rest.is_empty() {
        map.remove(key);
        return;
    }
    if let Some(inner) = map.get_mut(key) {
        cut(inner, rest);
        if inner.as_object().is_some_and(|o| o.is_empty()) {
            map.remove(key);
        }
    }
}

fn first_difference(a: &Value, b: &Value, at: &str) -> Option<String> {
    let name = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x
            .iter()
            .find_map(|(k, v)| match y.get(k) {
                Some(w) => first_difference(v, w, &name(k)),
                None => Some(first_leaf(v, name(k))),
            })
            .or_else(|| {
                y.iter()
                    .find(|(k, _)| !x.contains_key(*k))
                    .map(|(k, v)| first_leaf(v, name(k)))
            }),
        _ if same_value(a, b) => None,
        _ => Some(if at.is_empty() {
            "the file's value".into()
        } else {
            at.to_string()
        }),
    }
}

/// The path of the first value inside `v` (itself when it is not a non-empty object).
fn first_leaf(v: &Value, at: String) -> String {
    match v.as_object().and_then(|o| o.iter().next()) {
        Some((k, inner)) => first_leaf(inner, format!("{at}.{k}")),
        None => at,
    }
}

/// JSON equality with numbers compared as numbers (`1e3` and `1000` are one value).
pub(super) fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// An edit that evaluates to something else than was asked: a params file of another
/// shape — a computed key, a later `+ { components+: … }`, components held in a `local` —
/// could otherwise take an edit that changes nothing, or a duplicate field that breaks the
/// file; kf refuses instead.
pub(super) fn refused(target: &ParamTarget, at: &Located, verb: &str, why: String) -> ParamError {
    ParamError::Usage(format!(
        "{}: kf cannot {verb} {} here: {why}; this file's shape (a computed key, a later `+ {{ components+: … }}`, or components held in a `local`) decides the value elsewhere. Edit it by hand; nothing was written",
        at.display, target.key
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Vec<String> {
        s.split('.').map(String::from).collect()
    }

    #[test]
    fn only_the_key_set_and_its_emptied_parents_may_change() {
        let was = json!({"components": {"web": {"replicas": 1, "port": 80}}});
        let is = json!({"components": {"web": {"replicas": 2, "port": 80}}});
        assert_eq!(
            first_other_change(&was, &is, &p("components.web.replicas")),
            None
        );
        let lost = json!({"components": {"web": {"replicas": 2}}});
        assert_eq!(
            first_other_change(&was, &lost, &p("components.web.replicas")).as_deref(),
            Some("components.web.port")
        );
        let added = json!({"components": {"web": {"replicas": 2, "port": 80, "x": 1}}});
        assert_eq!(
            first_other_change(&was, &added, &p("components.web.replicas")).as_deref(),
            Some("components.web.x")
        );
        // A new component's entry, made for the key, is the key's own.
        let none = json!({"components": {}});
        let made = json!({"components": {"db": {"size": 3}}});
        assert_eq!(
            first_other_change(&none, &made, &p("components.db.size")),
            None
        );
        // 1e3 is 1000.
        let a = json!({"x": 1000, "k": 1});
        let b = json!({"x": 1e3, "k": 2});
        assert_eq!(first_other_change(&a, &b, &p("k")), None);
        assert_eq!(
            first_other_change(&a, &json!({"x": 7}), &p("k")).as_deref(),
            Some("x")
        );
    }
}
