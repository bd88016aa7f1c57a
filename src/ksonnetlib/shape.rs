//! The shape of a ksonnet-lib: every field below `k.libsonnet` and below its `hidden`
//! types (hidden fields included), each with what it is and, for the setters and
//! constructors, what calling it gives. Two libraries with the same shape answer every
//! path an app can call in the same way, which is how kf's generated library is checked
//! against the one ksonnet generated (`examples/ksonnet-lib-shape.rs`, run by CI on the
//! real one) and against a digest of it in `cargo test`.
//!
//! `xType` links are followed only to say whether they lead to an object: the types they
//! lead to are walked once, from `hidden`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::engine::{Engine, EngineOptions};

/// What to walk: the library folder and how to reach its `hidden` types from there.
pub struct Library<'a> {
    pub dir: &'a Path,
    /// A Jsonnet expression for the `hidden` object, e.g. `import 'k8s/hidden.libsonnet'`.
    pub hidden: &'a str,
}

/// Fields of the public tree left out of the comparison: `meta` holds whichever kind
/// ksonnet's generator last saw the shared `Patch` body under (it differs run to run),
/// and `__hidden` is the hook a test adds to reach ksonnet's `local hidden`.
const UNSTABLE: &[&str] = &["k.meta", "k.__hidden"];

/// A field of the library whose fields could not be listed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct WalkError {
    /// `k.apps.v1.deployment`
    pub path: String,
    pub message: String,
}

/// `path` → description, for every field of the library.
pub fn walk(lib: &Library) -> Result<BTreeMap<String, String>, WalkError> {
    let engine = Engine::new(EngineOptions {
        display_root: lib.dir.to_path_buf(),
        search_paths: vec![lib.dir.to_path_buf()],
        aliases: Vec::new(),
        sandbox: crate::sandbox::Sandbox::new([lib.dir]),
        max_stack: 2000,
        rewrite: None,
        overlay: Vec::new(),
    });
    let mut out = BTreeMap::new();
    let roots = [
        ("k", "import 'k.libsonnet'".to_string()),
        ("hidden", lib.hidden.to_string()),
    ];
    for (name, expr) in &roots {
        let mut todo = vec![vec![name.to_string()]];
        while let Some(path) = todo.pop() {
            let joined = path.join(".");
            let object = object_expr(expr, &path);
            let fields = engine
                .eval_snippet("walk.jsonnet", &format!("std.objectFieldsAll({object})"))
                .and_then(|v| engine.to_json(&v))
                .map_err(|e| WalkError {
                    path: joined.clone(),
                    message: e.message,
                })?;
            for field in fields
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let mut child = path.clone();
                child.push(field.to_string());
                if UNSTABLE.contains(&child.join(".").as_str()) {
                    continue;
                }
                let (desc, descend) = describe(&engine, &object, field);
                if descend {
                    todo.push(child.clone());
                }
                out.insert(child.join("."), desc);
            }
        }
    }
    Ok(out)
}

fn object_expr(root: &str, path: &[String]) -> String {
    let mut out = format!("({root})");
    for p in &path[1..] {
        out.push_str(&format!("[{}]", super::names::quote(p)));
    }
    out
}

/// One field: (what it is, whether to walk into it).
fn describe(engine: &Engine, object: &str, field: &str) -> (String, bool) {
    let f = super::names::quote(field);
    // Setters take one value; the probe is a string, which array setters wrap.
    let code = format!(
        r#"local o = {object}; local f = {f}; local v = o[f];
if std.endsWith(f, 'Type') then {{ t: if std.isObject(v) then 'link' else std.type(v) }}
else if std.isFunction(v) then
  local n = std.length(v);
  {{ t: 'function', n: n }} +
  (if n == 1 && (std.startsWith(f, 'with') || f == 'mixinInstance' || f == 'items') then
     local r = v('S');
     {{ result: std.toString(r), keeps: std.isObject(r) && std.length(std.setDiff(std.objectFieldsAll(o), std.objectFieldsAll(r))) == 0 }}
   else {{}})
else if std.isObject(v) then {{ t: 'object' }}
else {{ t: std.type(v), value: v }}"#
    );
    let info = match engine
        .eval_snippet("walk.jsonnet", &code)
        .and_then(|v| engine.to_json(&v))
    {
        Ok(v) => v,
        Err(_) => return ("error".into(), false),
    };
    let kind = info["t"].as_str().unwrap_or_default();
    match kind {
        "object" => ("object".into(), true),
        "function" => {
            let mut desc = format!("function/{}", info["n"]);
            if let Some(sig) = signature(engine, object, field) {
                desc = format!("function{sig}");
            }
            if let Some(r) = info["result"].as_str() {
                desc.push_str(&format!(" -> {r}"));
                if info["keeps"] == true {
                    desc.push_str(" (chains)");
                }
            } else if field.starts_with("new") || field.starts_with("from") {
                desc.push_str(&constructed(engine, object, field));
            }
            (desc, false)
        }
        _ => (
            format!(
                "{kind} {}",
                info.get("value").map(Value::to_string).unwrap_or_default()
            ),
            false,
        ),
    }
}

fn signature(engine: &Engine, object: &str, field: &str) -> Option<String> {
    let v = engine
        .eval_snippet(
            "walk.jsonnet",
            &format!("{object}[{}]", super::names::quote(field)),
        )
        .ok()?;
    engine.function_signature(&v)
}

/// What a constructor builds with its defaults (` => error` when it needs arguments).
fn constructed(engine: &Engine, object: &str, field: &str) -> String {
    let code = format!("std.toString({object}[{}]())", super::names::quote(field));
    match engine
        .eval_snippet("walk.jsonnet", &code)
        .and_then(|v| engine.to_json(&v))
    {
        Ok(Value::String(s)) => format!(" => {s}"),
        _ => " => error".into(),
    }
}

/// The differences between two walks, one line each: `- path` (only in `want`),
/// `+ path` (only in `got`), `~ path` (both, described differently).
pub fn differences(want: &BTreeMap<String, String>, got: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, w) in want {
        match got.get(path) {
            None => out.push(format!("- {path}: {w}")),
            Some(g) if g != w => out.push(format!("~ {path}: want {w}\n    got  {g}")),
            Some(_) => {}
        }
    }
    for (path, g) in got {
        if !want.contains_key(path) {
            out.push(format!("+ {path}: {g}"));
        }
    }
    out
}

/// A digest of a walk, so a test can hold the shape of a 3.7 MB library in one line.
pub fn digest(walk: &BTreeMap<String, String>) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for (path, desc) in walk {
        h.update(path.as_bytes());
        h.update(b"\t");
        h.update(desc.as_bytes());
        h.update(b"\n");
    }
    super::hex(&h.finalize())
}
