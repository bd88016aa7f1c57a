//! Property test of `param set`'s engine-free read (kf::params::literal): whenever it says a
//! params file is a plain literal and gives the value at a path, jrsonnet evaluates the same
//! text without error to the same value there. Files are printed from random JSON in the
//! syntax ksonnet apps use (bare, double- and single-quoted keys, escapes, comments,
//! trailing commas), and some get one token of a shape the reader must leave to the engine.
//! The value must be exactly the engine's, numbers written the same way, because `kf show`
//! prints module params read this way.

use kf::engine::{Engine, EngineOptions};
use kf::params::literal::{fields_along, value, value_at};
use proptest::prelude::*;
use serde_json::{Map, Value};

fn engine() -> Engine {
    Engine::new(EngineOptions {
        display_root: std::env::temp_dir(),
        search_paths: vec![],
        aliases: vec![],
        sandbox: kf::sandbox::Sandbox::none(),
        max_stack: kf::engine::DEFAULT_MAX_STACK,
        rewrite: None,
        overlay: vec![],
    })
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| Value::from(i64::from(n))),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        "[ -~]{0,6}|[\\u{e9}\\u{4e2d}\\n\\t\"'\\\\]{0,3}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Mostly names ksonnet apps use; now and then a keyword, which only quotes make a name.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z_][a-z0-9_-]{0,4}",
        1 => Just("local".to_string()),
        1 => Just("true".to_string()),
    ]
}

/// `value` as Jsonnet, with the syntax choices taken from `style` bits.
fn print(value: &Value, style: &mut dyn Iterator<Item = bool>, out: &mut String) {
    fn pick(style: &mut dyn Iterator<Item = bool>) -> bool {
        style.next().unwrap_or(false)
    }
    match value {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if pick(style) {
                    out.push_str(" // note\n");
                }
                let bare = k.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
                    && !k.starts_with(|c: char| c.is_ascii_digit());
                if bare && pick(style) {
                    out.push_str(k);
                } else if pick(style) && !k.contains(['\'', '\\']) {
                    out.push_str(&format!("'{k}'"));
                } else {
                    out.push_str(&serde_json::to_string(k).unwrap());
                }
                out.push_str(": ");
                print(v, style, out);
                if i + 1 < m.len() || pick(style) {
                    out.push(',');
                }
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                print(v, style, out);
                if i + 1 < a.len() {
                    out.push_str(", ");
                }
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

const BREAKERS: &[&str] = &[
    "+",
    "-",
    "::",
    ":::",
    "+:",
    "local",
    "self",
    "$",
    "1 +",
    "[",
    "}",
    ",",
    ", ,",
    "'",
    "\\",
    "@'v'",
    "|||\n x\n|||",
    "01",
    "1_0",
    "a.b",
    "x",
    "(1)",
    "if",
    "true",
    "#",
    "/*",
    "\"\\q\"",
];

/// A random params-like file (some with one breaker token) and a path into its value.
fn printed(
    root: std::collections::BTreeMap<String, Value>,
    style: Vec<bool>,
    breaker: Option<(usize, prop::sample::Index)>,
    path_pick: &[prop::sample::Index],
) -> (String, Vec<String>) {
    let root = Value::Object(root.into_iter().collect());
    let mut text = String::new();
    print(&root, &mut style.into_iter().cycle(), &mut text);
    if let Some((b, at)) = breaker {
        let mut cut = at.index(text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.insert_str(cut, &format!(" {} ", BREAKERS[b]));
    }
    // A path into the value as printed (the breaker may move it; then it is absent).
    let mut path: Vec<String> = Vec::new();
    let mut here = &root;
    for pick in path_pick {
        let Value::Object(m) = here else { break };
        if m.is_empty() {
            break;
        }
        let (k, v) = m.iter().nth(pick.index(m.len())).unwrap();
        path.push(k.clone());
        here = v;
    }
    (text, path)
}

/// [`printed`] of random values, styles, breakers and paths.
fn case() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        prop::collection::btree_map("[a-z]{1,3}", json(), 1..4),
        prop::collection::vec(any::<bool>(), 64),
        prop::option::of((0usize..BREAKERS.len(), any::<prop::sample::Index>())),
        prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    )
        .prop_map(|(root, style, breaker, path_pick)| printed(root, style, breaker, &path_pick))
}

/// What jrsonnet makes of `text`: a file the reader called plain must evaluate.
fn evaluated(text: &str) -> Value {
    let engine = engine();
    match engine
        .eval_snippet("params.libsonnet", text)
        .and_then(|v| engine.to_json(&v))
    {
        Ok(v) => v,
        Err(e) => panic!("read as plain, but jrsonnet fails:\n{text}\n{}", e.message),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn a_value_the_literal_reader_gives_is_the_one_jsonnet_evaluates(
        (text, path) in case(),
    ) {
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        if let Some(found) = value_at(&text, &keys) {
            let evaluated = evaluated(&text);
            let at = keys.iter().try_fold(&evaluated, |v, k| v.get(*k));
            match (found, at) {
                (None, None) => {}
                // Exactly equal, numbers included: `kf show` prints what the reader gives.
                (Some(f), Some(e)) => prop_assert_eq!(&f, e, "{}\n{:?}", text, keys),
                (f, e) => prop_assert!(false, "{text}\n{keys:?}: read {f:?}, jrsonnet {e:?}"),
            }
        }
    }

    /// `kf show` reads a module's params entries from the ranges `fields_along` gives:
    /// at each level, the fields are exactly the object's, and each range reads as
    /// exactly the value jrsonnet gives the field.
    #[test]
    fn the_fields_along_a_path_read_as_jsonnet_evaluates_them(
        (text, path) in case(),
    ) {
        let keys: Vec<&str> = path.iter().map(String::as_str).collect();
        if let Some(levels) = fields_along(&text, &keys) {
            let evaluated = evaluated(&text);
            let mut here = Some(&evaluated);
            for (i, fields) in levels.iter().enumerate() {
                let Some(Value::Object(object)) = here else {
                    return Err(TestCaseError::fail(format!(
                        "{text}\n{keys:?}: level {i} is not an object"
                    )));
                };
                let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
                let mut expected: Vec<&str> = object.keys().map(String::as_str).collect();
                let mut sorted = names.clone();
                sorted.sort_unstable();
                expected.sort_unstable();
                prop_assert_eq!(sorted, expected, "{}\n{:?} level {}", text, keys, i);
                for (name, range) in fields {
                    let read = value(&text[range.clone()]);
                    prop_assert_eq!(read.as_ref(), object.get(name), "{}\n{}", text, name);
                }
                here = keys.get(i).and_then(|k| object.get(*k));
            }
            // Every object on the path has its level; the path stops at anything else.
            let mut expected_levels = 1;
            let mut v = &evaluated;
            for k in &keys {
                match v.get(*k) {
                    Some(next @ Value::Object(_)) => {
                        expected_levels += 1;
                        v = next;
                    }
                    _ => break,
                }
            }
            prop_assert_eq!(levels.len(), expected_levels, "{}\n{:?}", text, keys);
        }
    }
}
