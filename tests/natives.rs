//! The natives of ksonnet 0.13.1 and Tanka (src/engine/natives.rs), each against the
//! upstream's own tests: ksonnet's pkg/util/jsonnet/vm_test.go (tag v0.13.1) and Tanka's
//! pkg/jsonnet/native/funcs_test.go (grafana/tanka 9cbf2517), plus the edges their Go
//! code decides (docs/rendering.md, "Native functions").

mod support;

use kf::engine::{Engine, EngineOptions};
use serde_json::{Value, json};

fn evaluate(code: &str) -> Result<Value, String> {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(EngineOptions {
        display_root: dir.path().to_path_buf(),
        search_paths: vec![dir.path().to_path_buf()],
        aliases: vec![],
        sandbox: kf::sandbox::Sandbox::new([dir.path()]),
        max_stack: kf::engine::DEFAULT_MAX_STACK,
        rewrite: None,
        overlay: vec![],
    });
    let val = engine
        .eval_snippet("natives.jsonnet", code)
        .map_err(|e| e.to_string())?;
    engine.to_json(&val).map_err(|e| e.to_string())
}

fn answers(code: &str, expected: Value) {
    match evaluate(code) {
        Ok(got) => assert_eq!(got, expected, "{code}"),
        Err(e) => panic!("{code}: {e}"),
    }
}

fn refuses(code: &str, words: &str) {
    match evaluate(code) {
        Ok(got) => panic!("{code} gave {got}, not an error"),
        Err(e) => assert!(e.contains(words), "{code}: {e}"),
    }
}

#[test]
fn parse_json_and_yaml_answer_as_upstream() {
    answers(r#"std.native('parseJson')('{}')"#, json!({}));
    answers(r#"std.native('parseJson')('{"a": 47}')"#, json!({"a": 47}));
    refuses(r#"std.native('parseJson')('')"#, "parseJson");
    // Named arguments take the upstream's parameter names.
    answers(r#"std.native('parseJson')(json='[1]')"#, json!([1]));

    answers(r#"std.native('parseYaml')('')"#, json!([]));
    answers(r#"std.native('parseYaml')('a: 47')"#, json!([{"a": 47}]));
    refuses(r#"std.native('parseYaml')("'")"#, "parseYaml");
    refuses(r#"std.native('parseYaml')('[barf')"#, "parseYaml");
    answers(
        r#"std.native('parseYaml')('foo:\n- 3\n- 4\n')[0].foo"#,
        json!([3, 4]),
    );
    answers(
        r#"std.native('parseYaml')('---\nhello\n---\nworld')"#,
        json!(["hello", "world"]),
    );
    // YAML 1.1's booleans, as ksonnet's reader (ghodss/yaml) and kubectl's read them
    // (Tanka's yaml.v3 keeps `yes` a string).
    answers(
        r#"std.native('parseYaml')('a: yes\nb: true\nc: ~\nd: "1"\ne: off')"#,
        json!([{"a": true, "b": true, "c": null, "d": "1", "e": false}]),
    );
    // Separators with nothing between them add no document, as ksonnet's line splitter
    // (apimachinery's YAMLReader) skips an empty chunk.
    answers(
        r#"std.native('parseYaml')('a: 1\n---\n')"#,
        json!([{"a": 1}]),
    );
    answers(
        r#"std.native('parseYaml')('---\na: 1\n---\n---\nb: 2\n')"#,
        json!([{"a": 1}, {"b": 2}]),
    );
    answers(
        r#"std.native('parseYaml')('# only a comment\n')"#,
        json!([]),
    );
    // A real 2018 app's shape: a ConfigMap's YAML read into an object.
    answers(
        r#"local docs = std.native('parseYaml')(|||
           apiVersion: v1
           kind: ConfigMap
           metadata:
             name: cfg
           ---
           apiVersion: v1
           kind: Service
           metadata:
             name: svc
         |||);
         [d.kind + '/' + d.metadata.name for d in docs]"#,
        json!(["ConfigMap/cfg", "Service/svc"]),
    );
}

#[test]
fn manifest_natives_write_what_tanka_writes() {
    answers(
        r#"std.native('manifestJsonFromJson')('{}', 4)"#,
        json!("{}\n"),
    );
    answers(
        r#"std.native('manifestJsonFromJson')('{ "a": 47}', 4)"#,
        json!("{\n    \"a\": 47\n}\n"),
    );
    refuses(
        r#"std.native('manifestJsonFromJson')('', 4)"#,
        "manifestJsonFromJson",
    );
    // Key order, number forms and escapes are the text's own.
    answers(
        r#"std.native('manifestJsonFromJson')('{"b":1.50,"a":["\\u00e9", {}]}', 2)"#,
        json!("{\n  \"b\": 1.50,\n  \"a\": [\n    \"\\u00e9\",\n    {}\n  ]\n}\n"),
    );
    refuses(
        r#"std.native('manifestJsonFromJson')('{}', -1)"#,
        "0 to 64 spaces",
    );

    answers(r#"std.native('manifestYamlFromJson')('{}')"#, json!("{}\n"));
    answers(
        r#"std.native('manifestYamlFromJson')('{ "a": 47}')"#,
        json!("a: 47\n"),
    );
    answers(
        r#"std.native('manifestYamlFromJson')('{ "list": ["a", "b", "c"]}')"#,
        json!("list:\n    - a\n    - b\n    - c\n"),
    );
    answers(
        r#"std.native('manifestYamlFromJson')('{"b": [1, "x"], "a": {"c": true}}')"#,
        json!("a:\n    c: true\nb:\n    - 1\n    - x\n"),
    );
    // A string that reads as another type stays a string.
    let yaml =
        evaluate(r#"std.native('manifestYamlFromJson')('{"t": "true", "n": "1"}')"#).unwrap();
    let back: Value = serde_saphyr::from_str(yaml.as_str().unwrap()).unwrap();
    assert_eq!(back, json!({"t": "true", "n": "1"}), "{yaml}");
    refuses(
        r#"std.native('manifestYamlFromJson')('')"#,
        "manifestYamlFromJson",
    );
}

#[test]
fn regex_natives_are_gos_regexp() {
    answers(r#"std.native('escapeStringRegex')('')"#, json!(""));
    answers(
        r#"std.native('escapeStringRegex')('([0-9]+).*\\s')"#,
        json!("\\(\\[0-9\\]\\+\\)\\.\\*\\\\s"),
    );
    answers(
        r#"std.native('escapeStringRegex')('([0-9]+')"#,
        json!("\\(\\[0-9\\]\\+"),
    );
    // What it escapes matches itself only.
    answers(
        r#"local s = 'a.b*c$(d)|[e]{f}^+?\\'; std.native('regexMatch')('^' + std.native('escapeStringRegex')(s) + '$', s)"#,
        json!(true),
    );

    answers(r#"std.native('regexMatch')('', 'a')"#, json!(true));
    answers(r#"std.native('regexMatch')('a', 'b')"#, json!(false));
    answers(
        r#"std.native('regexMatch')('foo.*', 'seafood')"#,
        json!(true),
    );
    answers(
        r#"std.native('regexMatch')('bar.*', 'seafood')"#,
        json!(false),
    );
    refuses(r#"std.native('regexMatch')('[0-', 'b')"#, "is not valid");
    refuses(r#"std.native('regexMatch')('[f', 'foo')"#, "regexMatch");

    answers(r#"std.native('regexSubst')('a', 'b', 'c')"#, json!("b"));
    answers(
        r#"std.native('regexSubst')('p[^m]*', 'pm', 'poe')"#,
        json!("poem"),
    );
    refuses(
        r#"std.native('regexSubst')('p[^m*', 'pm', 'poe')"#,
        "regexSubst",
    );
    answers(
        r#"std.native('regexSubst')('a(x*)b', '-ab-axxb-', 'T')"#,
        json!("-T-T-"),
    );
    answers(
        r#"std.native('regexSubst')('a(x*)b', '-ab-axxb-', '${1}W')"#,
        json!("-W-xxW-"),
    );
    // Go reads `$1W` as the group named 1W (none: empty), and `$$` as `$`.
    answers(
        r#"std.native('regexSubst')('a(x*)b', '-ab-axxb-', '$1W')"#,
        json!("---"),
    );
    answers(
        r#"std.native('regexSubst')('(?P<n>x+)', 'axxb', '[$n$$]')"#,
        json!("a[xx$]b"),
    );
}

#[test]
fn sha256_is_lower_case_hex_of_the_bytes() {
    answers(
        r#"std.native('sha256')('foo')"#,
        json!("2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae"),
    );
    answers(
        r#"std.native('sha256')('')"#,
        json!("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    );
}

#[test]
fn a_component_calling_parse_yaml_renders_under_kf_show() {
    let app = support::new_app();
    support::write(
        app.root.join("components/from-yaml.jsonnet"),
        "std.native('parseYaml')(importstr '../data/cfg.yaml')\n",
    );
    support::write(
        app.root.join("data/cfg.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: 'yes'\n",
    );
    let out = support::ok(
        &app.root,
        &["show", "default", "-c", "from-yaml", "-o", "json"],
    );
    let shown: Value = serde_json::from_str(&out).unwrap();
    let items = shown["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{out}");
    assert_eq!(items[0]["metadata"]["name"], "from-yaml");
    assert_eq!(items[0]["data"]["a"], "yes");
}
