//! `import "….json"` is read as `std.parseJson(importstr …)` would read it where that gives
//! the same value (src/engine/json_import.rs). Property: for random JSON-like text, importing it as
//! `x.json` (rewritten when it reads as data) and as `x.libsonnet` (always parsed as
//! Jsonnet) gives the same value, or both fail. Texts come from random JSON printed with
//! random escapes, number forms and spacing, and some get one change that Jsonnet reads
//! differently from JSON (a duplicate key, `-0`, a comment, a trailing comma, a bare key).

use std::path::Path;

use kf::engine::json_import::reads_as_data;
use kf::engine::{Engine, EngineOptions};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value};

fn engine(dir: &Path) -> Engine {
    Engine::new(EngineOptions {
        display_root: dir.to_path_buf(),
        search_paths: vec![dir.to_path_buf()],
        aliases: vec![],
        sandbox: kf::sandbox::Sandbox::new([dir]),
        max_stack: kf::engine::DEFAULT_MAX_STACK,
        rewrite: None,
        overlay: vec![],
    })
}

/// `import name` in a file of its own, evaluated by a fresh engine, as JSON.
fn evaluate(dir: &Path, main: &str, code: &str) -> Result<Value, String> {
    let path = dir.join(main);
    std::fs::write(&path, code).unwrap();
    let engine = engine(dir);
    let val = engine.import_file(&path).map_err(|e| e.to_string())?;
    engine.to_json(&val).map_err(|e| e.to_string())
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[ -~]{0,6}|[\\u{e9}\\u{4e2d}\\u{1F600}\\n\\t\"'\\\\/\\u{7f}]{0,3}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z\\u{e9}\"]{0,3}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// `value` as JSON text, with `\u` escapes, exponents and spacing chosen by `style`.
fn print(value: &Value, style: &mut dyn Iterator<Item = u8>, out: &mut String) {
    fn pick(style: &mut dyn Iterator<Item = u8>, n: u8) -> u8 {
        style.next().unwrap_or(0) % n
    }
    match value {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(if pick(style, 3) == 0 { "\n  " } else { " " });
                string(k, pick(style, 2) == 0, out);
                out.push_str(": ");
                print(v, style, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                print(v, style, out);
            }
            out.push(']');
        }
        Value::String(s) => string(s, pick(style, 2) == 0, out),
        Value::Number(n) => match (n.as_f64(), pick(style, 3)) {
            (Some(f), 0) if n.is_f64() => out.push_str(&format!("{f:e}")),
            (Some(f), 1) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                out.push_str(&format!("{f:.1}"))
            }
            _ => out.push_str(&n.to_string()),
        },
        other => out.push_str(&other.to_string()),
    }
}

/// A JSON string, every non-ASCII character as `\u` escapes (surrogate pairs) if `escape`.
fn string(s: &str, escape: bool, out: &mut String) {
    if !escape {
        out.push_str(&serde_json::to_string(s).unwrap());
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            c if (c as u32) < 0x20 || !c.is_ascii() => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Changes after which Jsonnet and JSON may read the text differently, put in at a
/// place where they are syntactically possible.
fn mutate(text: &str, kind: u8) -> String {
    match kind {
        0 => text.replacen("{", "{\"k\": 1, \"k\": 2, ", 1),
        1 => text.replacen('[', "[-0, ", 1),
        2 => format!("// note\n{text}"),
        3 => text.replacen('}', ",}", 1),
        4 => text.replacen("{", "{k: 1, ", 1),
        5 => text.replacen('[', "[-0.0, -0e1, ", 1),
        _ => text.to_string(),
    }
}

#[test]
fn a_json_import_reads_the_value_jsonnet_reads() {
    let mut runner = TestRunner::new(Config {
        cases: 300,
        ..Config::default()
    });
    let data = std::cell::Cell::new(0usize);
    let strategy = (json(), prop::collection::vec(any::<u8>(), 1..64), 0u8..10);
    runner
        .run(&strategy, |(value, style, kind)| {
            let mut text = String::new();
            print(&value, &mut style.into_iter().cycle(), &mut text);
            let text = mutate(&text, kind);
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("x.json"), &text).unwrap();
            std::fs::write(dir.path().join("x.libsonnet"), &text).unwrap();
            let as_json = evaluate(dir.path(), "a.jsonnet", "import 'x.json'");
            let as_code = evaluate(dir.path(), "b.jsonnet", "import 'x.libsonnet'");
            if reads_as_data(&text) {
                data.set(data.get() + 1);
            }
            match (&as_json, &as_code) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", text),
                (Err(_), Err(_)) => {}
                _ => prop_assert!(false, "{text}\njson: {as_json:?}\ncode: {as_code:?}"),
            }
            Ok(())
        })
        .unwrap();
    // Most texts are plain JSON: the rewrite itself is what was compared.
    assert!(data.get() > 100, "only {} of 300 read as data", data.get());
}

/// The rewrite is of the importing file: `importstr` of the same file still gives its
/// bytes, whichever of the two is evaluated first, and a file that is not data (a
/// duplicate key) fails as Jsonnet says.
#[test]
fn importstr_of_an_imported_json_file_reads_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let text = "{\"a\": [1, 2.5],\n \"b\": \"\\u00e9\"}\n";
    std::fs::write(dir.path().join("x.json"), text).unwrap();
    for code in [
        "{ v: import 'x.json', s: importstr 'x.json' }",
        "{ s: importstr 'x.json', v: import \"x.json\" }",
        "local s = importstr 'x.json'; { v: import 'x.json', s: s }",
    ] {
        let out = evaluate(dir.path(), "main.jsonnet", code).unwrap();
        assert_eq!(out["s"], text, "{code}");
        assert_eq!(
            out["v"],
            serde_json::json!({ "a": [1, 2.5], "b": "é" }),
            "{code}"
        );
    }
    std::fs::write(dir.path().join("dup.json"), "{\"a\": 1, \"a\": 2}").unwrap();
    let err = evaluate(dir.path(), "dup.jsonnet", "import 'dup.json'").unwrap_err();
    assert!(err.contains("dup.json"), "{err}");
}

/// An import of data becomes a call of kf's native function with the id its value was
/// kept under when the import was checked; called with an id nothing is kept under (by
/// hand, or once an engine has forgotten), it reads the text it is given as
/// `std.parseJson` does, and only then.
#[test]
fn an_id_nothing_is_kept_under_reads_the_text_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let native = kf::engine::json_import::KEPT_JSON;
    let out = evaluate(
        dir.path(),
        "a.jsonnet",
        &format!("std.native('{native}')(123456789, '{{\"a\": [1, 2]}}')"),
    )
    .unwrap();
    assert_eq!(out, serde_json::json!({ "a": [1, 2] }));
    let err = evaluate(
        dir.path(),
        "b.jsonnet",
        &format!("std.native('{native}')(0.5, 5)"),
    )
    .unwrap_err();
    assert!(err.contains("string"), "{err}");
}

/// kf's `std.parseJson` makes Jsonnet values only where they are read, and renders
/// unchanged objects straight from the parsed text (src/engine/parse_json.rs): whatever
/// Jsonnet does with them gives what it gives with the values Jsonnet reads from the same
/// text as code (the text is data, so the two must agree).
#[test]
fn parsed_json_behaves_as_the_same_text_read_as_jsonnet() {
    let mut runner = TestRunner::new(Config {
        cases: 200,
        ..Config::default()
    });
    let strategy = (json(), prop::collection::vec(any::<u8>(), 1..64));
    runner
        .run(&strategy, |(value, style)| {
            let mut text = String::new();
            print(&value, &mut style.into_iter().cycle(), &mut text);
            prop_assume!(reads_as_data(&text));
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("x.txt"), &text).unwrap();
            std::fs::write(dir.path().join("x.libsonnet"), &text).unwrap();
            let uses = |v: &str| {
                format!(
                    "local v = {v}; local t = std.type(v); {{
                      v: v,
                      manifest: std.manifestJsonEx(v, ' '),
                      same: v == (import 'x.libsonnet'),
                      changed: if t == 'object' then v + {{ added: [v] }} else [v, v],
                      inner: if t == 'object' then [v[k] for k in std.objectFields(v)] else if t == 'array' then std.reverse(v) else v,
                      fields: if t == 'object' then std.objectFieldsAll(v) else null,
                      length: if std.member(['object', 'array', 'string'], t) then std.length(v) else null,
                    }}"
                )
            };
            let parsed = evaluate(dir.path(), "a.jsonnet", &uses("std.parseJson(importstr 'x.txt')"));
            let read = evaluate(dir.path(), "b.jsonnet", &uses("import 'x.libsonnet'"));
            prop_assert_eq!(&parsed, &read, "{}", text);
            prop_assert_eq!(&parsed.unwrap()["same"], &Value::Bool(true));
            Ok(())
        })
        .unwrap();
}

/// Where `std.parseJson` and Jsonnet code part ways, it is JSON's reading: a key given
/// twice keeps its last value; text after the value is an error, as is a text that is not
/// JSON.
#[test]
fn parse_json_reads_a_repeated_key_as_its_last_value_and_refuses_what_is_not_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = evaluate(
        dir.path(),
        "a.jsonnet",
        r#"local v = std.parseJson('{"a": 1, "b": {"c": [1]}, "a": {"d": 2}}'); { v: v, a: v.a.d }"#,
    )
    .unwrap();
    assert_eq!(
        out,
        serde_json::json!({ "v": { "a": { "d": 2 }, "b": { "c": [1] } }, "a": 2 })
    );
    for text in ["{} x", "{'a': 1}", "[1,]", ""] {
        let code = format!("std.parseJson({})", serde_json::to_string(text).unwrap());
        let err = evaluate(dir.path(), "b.jsonnet", &code).unwrap_err();
        assert!(err.contains("failed to parse json"), "{text}: {err}");
    }
}
