//! ksonnet-lib as the library tests read it: a generated library in a temp folder, a
//! Jsonnet program evaluated over it with kf's engine, and the check that every kind of
//! a spec has `new()`.

use std::collections::BTreeSet;
use std::path::Path;

use kf::engine::{Engine, EngineOptions};
use serde_json::{Value, json};

/// The library kf generates from `spec` (a swagger.json's text), written to a temp folder.
pub fn generated(spec: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in kf::ksonnetlib::lib_files(spec.as_bytes()).unwrap() {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    dir
}

/// What kf's engine gives `code`, with imports read from `dir`: its value, or `Err` with
/// the message.
pub fn eval_in(dir: &Path, code: &str) -> Result<Value, String> {
    let engine = Engine::new(EngineOptions {
        display_root: dir.to_path_buf(),
        search_paths: vec![dir.to_path_buf()],
        aliases: Vec::new(),
        sandbox: kf::sandbox::Sandbox::new([dir]),
        max_stack: 500,
        rewrite: None,
        overlay: Vec::new(),
    });
    let v = engine
        .eval_snippet("program.jsonnet", code)
        .map_err(|e| e.message)?;
    engine.to_json(&v).map_err(|e| e.message)
}

/// [`eval_in`], failing the test with the engine's message.
pub fn eval(dir: &Path, code: &str) -> Value {
    eval_in(dir, code).unwrap_or_else(|e| panic!("{e}"))
}

/// Every kind a POST, PATCH or PUT of `spec` takes (the shared `Patch` body aside) has
/// `new()` in the library in `dir`, giving its apiVersion and kind. Returns how many.
pub fn assert_every_kind_has_new(spec: &Value, dir: &Path) -> usize {
    let mut kinds = BTreeSet::new();
    for item in spec["paths"].as_object().unwrap().values() {
        for op in item.as_object().unwrap().values() {
            let gvk = &op["x-kubernetes-group-version-kind"];
            let body = op["parameters"][0]["schema"]["$ref"].as_str().unwrap();
            let d =
                kf::ksonnetlib::names::parse_description(body.trim_start_matches("#/definitions/"))
                    .unwrap();
            if d.kind == "Patch" {
                continue;
            }
            kinds.insert((
                d.group_or_core().to_string(),
                gvk["group"].as_str().unwrap().to_string(),
                gvk["version"].as_str().unwrap().to_string(),
                gvk["kind"].as_str().unwrap().to_string(),
            ));
        }
    }
    let mut exprs = Vec::new();
    let mut expected = Vec::new();
    for (group, g, v, k) in &kinds {
        exprs.push(format!(
            "(local o = k8s[{}][{}][{}].new(); {{ apiVersion: o.apiVersion, kind: o.kind }})",
            json!(group),
            json!(v),
            json!(kf::ksonnetlib::format_kind(k))
        ));
        expected.push(json!({
            "apiVersion": if g.is_empty() { v.to_string() } else { format!("{g}/{v}") },
            "kind": k,
        }));
    }
    let got = eval(
        dir,
        &format!(
            "local k8s = import 'k8s.libsonnet';\n[{}]",
            exprs.join(",\n")
        ),
    );
    assert_eq!(got, Value::Array(expected));
    kinds.len()
}
