//! Property tests: the param value parser and the params editor never panic, and every
//! edit leaves a file that parses and says what was asked.

use kf::params::{Inherit, ParamsFile, Root, parse_value, to_jsonnet};
use proptest::prelude::*;

fn parses(code: &str) -> bool {
    let source = jrsonnet_ir::Source::new_virtual("t".into(), code.into());
    jrsonnet_ir_parser::parse(code, &jrsonnet_ir_parser::ParserSettings { source }).is_ok()
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-zA-Z0-9_]{0,8}",
        "[a-z][a-z0-9-]{0,6}",
        "[a-z]{1,3} [a-z]{1,3}"
    ]
}

fn value_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|f| f.to_string()),
        "[ -~]{0,12}",
        Just("TRUE".to_string()),
        Just("[1, \"a\", {\"b\": null}]".to_string()),
        Just("{\"x\": {\"y\": [true]}}".to_string()),
    ]
}

/// A params file with random components and fields, some with comments and expressions.
fn params_file() -> impl Strategy<Value = (String, Vec<(String, Vec<String>)>)> {
    prop::collection::vec(
        (key(), prop::collection::vec(key(), 0..4), any::<bool>()),
        0..4,
    )
    .prop_map(|comps| {
        let mut text = String::from("local base = 1;\n{\n  global: {},\n  components: {\n");
        let mut names = Vec::new();
        for (i, (name, fields, inline)) in comps.into_iter().enumerate() {
            let name = format!("{name}{i}");
            let mut uniq: Vec<String> = Vec::new();
            for f in fields {
                if !uniq.contains(&f) {
                    uniq.push(f);
                }
            }
            let quoted = serde_json::to_string(&name).unwrap();
            if inline {
                let body: Vec<String> = uniq
                    .iter()
                    .map(|f| format!("{}: base + 1", serde_json::to_string(f).unwrap()))
                    .collect();
                text.push_str(&format!("    {quoted}: {{ {} }},\n", body.join(", ")));
            } else {
                text.push_str(&format!("    // component {i}\n    {quoted}: {{\n"));
                for f in &uniq {
                    text.push_str(&format!(
                        "      {}: 'v', # note\n",
                        serde_json::to_string(f).unwrap()
                    ));
                }
                text.push_str("    },\n");
            }
            names.push((name, uniq));
        }
        text.push_str("  },\n}\n");
        (text, names)
    })
}

proptest! {
    #[test]
    fn value_parser_never_panics_and_round_trips(input in "\\PC{0,24}", as_string in any::<bool>()) {
        if let Ok(v) = parse_value(&input, as_string) {
            let code = to_jsonnet(&v);
            prop_assert!(parses(&code), "{code}");
            if as_string {
                prop_assert_eq!(v, serde_json::Value::String(input));
            }
        }
    }

    #[test]
    fn numbers_are_numbers(n in any::<i64>(), f in -1.0e9f64..1.0e9) {
        prop_assert_eq!(parse_value(&n.to_string(), false).unwrap(), serde_json::json!(n));
        let text = format!("{f:.3}");
        prop_assert!(parse_value(&text, false).unwrap().is_number(), "{}", text);
    }

    #[test]
    fn set_then_unset_restores_the_file((text, comps) in params_file(), k in key(), v in value_text(), pick in any::<usize>(), env in any::<bool>()) {
        let file = ParamsFile::parse("p", &text).unwrap();
        let target = if comps.is_empty() { "new".to_string() } else { comps[pick % comps.len()].0.clone() };
        let field = format!("{k}_new");
        let value = to_jsonnet(&parse_value(&v, false).unwrap_or(serde_json::Value::Null));
        let inherit = if env { Inherit::Extend } else { Inherit::Replace };
        let edited = file.set(Root::Components, &[target.clone(), field.clone()], &value, inherit).unwrap();
        prop_assert!(parses(&edited), "{}", edited);
        let again = ParamsFile::parse("p", &edited).unwrap();
        prop_assert!(again.keys_at(Root::Components, std::slice::from_ref(&target)).unwrap().contains(&field));
        let restored = again.unset(Root::Components, &[target.clone(), field], true).unwrap();
        prop_assert!(parses(&restored), "{}", restored);
        if comps.iter().any(|(n, fields)| n == &target && !fields.is_empty()) {
            // Only blank-line layout can differ for inline objects; multi-line ones restore exactly.
            let multi_line = text.contains(&format!("{}: {{\n", serde_json::to_string(&target).unwrap()));
            if multi_line {
                prop_assert_eq!(restored, text);
            }
        }
    }

    #[test]
    fn editor_never_panics_on_arbitrary_text(text in "\\PC{0,80}", k in key()) {
        if let Ok(f) = ParamsFile::parse("p", &text) {
            let _ = f.set(Root::Components, &["c".into(), k.clone()], "1", Inherit::Replace);
            let _ = f.unset(Root::Components, &["c".into(), k], true);
        }
    }

    /// The shapes where the field kf edits may not be the one that wins (issue 13): the
    /// editor never panics on them and whatever it returns parses; `kf param set` then
    /// evaluates the result and refuses when the value did not change (tests/safety.rs).
    #[test]
    fn editor_never_panics_on_the_shapes_where_another_field_wins(
        (text, comps) in params_file(),
        shape in 0usize..6,
        k in key(),
        pick in any::<usize>(),
    ) {
        let target = if comps.is_empty() { "new".to_string() } else { comps[pick % comps.len()].0.clone() };
        let quoted = serde_json::to_string(&target).unwrap();
        let shaped = match shape {
            0 => text.replacen(&format!("{quoted}: {{"), &format!("[{quoted} + '']: {{"), 1),
            1 => format!(
                "{} + {{ components+: {{ {quoted}+: {{ {}: 7 }} }} }}\n",
                text.trim_end(),
                serde_json::to_string(&k).unwrap()
            ),
            2 => format!("local c = {{ {quoted}: {{}} }};\n{{ global: {{}}, components: c }}\n"),
            3 => format!("local p = {};\np + {{ components+: {{}} }}\n", text.trim_end().trim_start_matches("local base = 1;\n")),
            4 => format!("\u{feff}{text}"),
            _ => format!("{}{}{}", "[".repeat(2500), text, "]".repeat(2500)),
        };
        let (_, body) = kf::params::split_bom(&shaped);
        prop_assert!(shape == 5 || parses(body), "{}", body);
        if let Ok(file) = ParamsFile::parse("p", body) {
            for inherit in [Inherit::Replace, Inherit::Extend] {
                if let Ok(edited) = file.set(Root::Components, &[target.clone(), k.clone()], "1", inherit) {
                    prop_assert!(parses(&edited), "{}", edited);
                }
            }
            let _ = file.unset(Root::Components, &[target.clone(), k.clone()], true);
        }
    }
}
