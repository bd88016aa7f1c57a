//! Property tests (bounded fuzzing) for the other parsers of user input: prototype headers
//! and app.yaml. Neither may panic, whatever the bytes; what they accept must be usable.

use kf::app::App;
use kf::prototype::parse_prototype;
use proptest::prelude::*;

fn header_line() -> impl Strategy<Value = String> {
    let name = "[a-zA-Z][a-zA-Z0-9_]{0,6}";
    let kind = prop_oneof![
        Just("string"),
        Just("number"),
        Just("numberOrString"),
        Just("object"),
        Just("array"),
        Just("boolean"),
        Just("bogus"),
    ];
    let default = prop_oneof![
        Just("null".to_string()),
        Just("{}".to_string()),
        Just("[1,2]".to_string()),
        "[ -~]{0,6}",
    ];
    prop_oneof![
        (name, kind.clone(), "[ -~]{0,20}").prop_map(|(n, k, d)| format!("// @param {n} {k} {d}")),
        (name, kind, default, "[ -~]{0,20}")
            .prop_map(|(n, k, v, d)| format!("// @optionalParam {n} {k} {v} {d}")),
        "[a-z.-]{0,20}".prop_map(|n| format!("// @name {n}")),
        "[ -~]{0,30}".prop_map(|d| format!("// @description {d}")),
        "[ -~]{0,30}".prop_map(|d| format!("// @shortDescription {d}")),
        "[ -~]{0,30}".prop_map(|d| format!("// {d}")),
        "\\PC{0,30}",
    ]
}

fn app_yaml() -> impl Strategy<Value = String> {
    let version = prop_oneof![
        Just("0.1.0"),
        Just("0.2.0"),
        Just("0.3.0"),
        Just("9.9.9"),
        Just("'0.3.0'"),
        Just("[]"),
    ];
    let env = (
        "[a-z][a-z0-9/-]{0,8}",
        prop_oneof![Just("ns"), Just("''"), Just("[1]"), Just("{a: b}")],
        prop_oneof![Just("https://x"), Just("1.10"), Just("~"), Just("yes")],
    )
        .prop_map(|(name, ns, server)| {
            format!("  {name}:\n    destination:\n      namespace: {ns}\n      server: {server}\n")
        });
    (version, prop::collection::vec(env, 0..3), "\\PC{0,20}").prop_map(|(v, envs, junk)| {
        format!(
            "apiVersion: {v}\nkind: ksonnet.io/app\nname: a\nenvironments:\n{}{junk}\n",
            envs.concat()
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn prototype_headers_never_panic(lines in prop::collection::vec(header_line(), 0..8), body in "\\PC{0,40}") {
        let text = format!("{}\n{body}", lines.join("\n"));
        if let Ok(proto) = parse_prototype(&text, "fuzz.jsonnet") {
            // What parses has a name and only well-typed params.
            prop_assert!(!proto.name.is_empty());
            for p in &proto.params {
                prop_assert!(!p.name.is_empty());
            }
        }
    }

    #[test]
    fn app_yaml_loading_never_panics(text in app_yaml()) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app.yaml"), &text).unwrap();
        if let Ok(app) = App::load(dir.path()) {
            // A loaded app answers every question about its environments.
            for env in app.environments() {
                prop_assert!(!env.namespace.is_empty());
                let _ = app.environment(&env.name).unwrap();
            }
            let _ = App::render_spec(&app.spec);
        }
    }

    #[test]
    fn arbitrary_app_yaml_bytes_never_panic(text in "\\PC{0,200}") {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("app.yaml"), &text).unwrap();
        let _ = App::load(dir.path());
    }
}

/// kf's `// @kubernetes` directive needs a version and the API that needs it; anything
/// else is an error naming the line.
#[test]
fn a_kubernetes_directive_needs_a_version_and_an_api() {
    let head = "// @name io.ksonnet.pkg.x\n// @description X\n";
    let good = parse_prototype(
        &format!("{head}// @kubernetes v1.21.0 batch/v1 CronJob\n{{}}"),
        "x.jsonnet",
    )
    .unwrap();
    assert_eq!(
        good.kubernetes,
        Some(("v1.21.0".to_string(), "batch/v1 CronJob".to_string()))
    );
    assert!(good.served_by("v1.33.0") && good.served_by("1.21") && !good.served_by("v1.20.9"));
    for bad in [
        "// @kubernetes v1.21.0",
        "// @kubernetes soon batch/v1 CronJob",
    ] {
        let e = parse_prototype(&format!("{head}{bad}\n{{}}"), "x.jsonnet")
            .unwrap_err()
            .to_string();
        assert!(e.contains("@kubernetes needs") && e.contains(":3"), "{e}");
    }
}

/// `// @nameRule dns1035 <who>` names who refuses other names; any other shape is an
/// error naming the line.
#[test]
fn a_name_rule_directive_names_its_rule_and_who_keeps_it() {
    let head = "// @name io.ksonnet.pkg.x\n// @description X\n";
    let good = parse_prototype(
        &format!("{head}// @nameRule dns1035 the X operator's webhook\n{{}}"),
        "x.jsonnet",
    )
    .unwrap();
    assert_eq!(good.name_rule.as_deref(), Some("the X operator's webhook"));
    assert!(good.name_problem("x-1").is_none());
    let e = good.name_problem("1-x").unwrap();
    assert!(e.contains("the X operator's webhook refuses it"), "{e}");
    for bad in ["// @nameRule dns1035", "// @nameRule dns1123 someone"] {
        let e = parse_prototype(&format!("{head}{bad}\n{{}}"), "x.jsonnet")
            .unwrap_err()
            .to_string();
        assert!(e.contains("@nameRule needs") && e.contains(":3"), "{e}");
    }
}
