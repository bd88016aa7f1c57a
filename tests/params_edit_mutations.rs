//! The class behind "a missing comma made `param set` delete the next key": whatever
//! one-byte slip a real params file has, `param set` either refuses, naming the file and a
//! line and writing nothing, or writes a file where every value other than the one set
//! reads back as before.
//!
//! The files are a real ksonnet app's (tests/fixtures/params-edits/README.md) and kf's own
//! (a `kf generate`d one). Each byte is deleted in turn, and a sample of bytes that break
//! Jsonnet most often (`,` `:` `{` `}` `'` `"` a newline, a letter) is inserted at spread
//! positions. The oracle is the render's own reading of the params (what `kf show` and
//! `kf param list` use), taken before and after, not the editor's check.

mod support;

use std::path::Path;

use kf::app::App;
use kf::render::{RenderOptions, effective_params};
use kf::workflow::params::{ParamTarget, SetOptions, set};
use serde_json::Value;
use support::{ok, read, write};

const FIXTURE: &str = "tests/fixtures/params-edits/mnist_ks_app_2019-01";

/// A kf app with the fixture's params files and its `jlewi` env.
fn fixture_app() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &["init", "app", "--namespace", "ml"]);
    let root = dir.path().join("app");
    ok(&root, &["env", "add", "jlewi", "--namespace", "jlewi"]);
    for file in [
        "components/params.libsonnet",
        "environments/jlewi/params.libsonnet",
        "environments/jlewi/globals.libsonnet",
    ] {
        write(root.join(file), &read(Path::new(FIXTURE).join(file)));
    }
    // The components themselves are not what is tested: a file per params entry.
    let module =
        kf::params::literal::value_at(&read(root.join("components/params.libsonnet")), &[])
            .flatten()
            .expect("the fixture's module params are a literal");
    for name in module["components"].as_object().expect("components").keys() {
        write(root.join(format!("components/{name}.jsonnet")), "[]\n");
    }
    (dir, root)
}

/// Every env's effective params (`None` where they do not evaluate), by env name.
fn views(root: &Path) -> Vec<(String, Option<Value>)> {
    let app = App::load(root).expect("app");
    app.environments()
        .iter()
        .map(|env| {
            let view = effective_params(&app, env, &RenderOptions::default()).ok();
            (env.name.clone(), view)
        })
        .collect()
}

/// The view with `component.key` taken out (in every env).
fn without(mut view: Value, component: &str, key: &str) -> Value {
    if let Some(c) = view
        .get_mut("components")
        .and_then(|c| c.get_mut(component))
        .and_then(Value::as_object_mut)
    {
        c.remove(key);
        if c.is_empty() {
            view["components"]
                .as_object_mut()
                .expect("components")
                .remove(component);
        }
    }
    view
}

#[derive(Default, Debug)]
struct Tally {
    refused: usize,
    written: usize,
}

/// Put `mutated` in `file`, run `param set component key value [--env env]`, check the
/// outcome against the render's reading, and put the original text back.
fn try_one(
    root: &Path,
    file: &str,
    mutated: &str,
    target: &ParamTarget,
    value: &str,
    tally: &mut Tally,
) {
    let path = root.join(file);
    let original = read(&path);
    write(&path, mutated);
    let before = views(root);
    let app = App::load(root).expect("app");
    let outcome = set(&app, target, value, SetOptions::default());
    let after_text = read(&path);
    let component = target.component.as_deref().expect("a component");
    match outcome {
        Err(e) => {
            let message = e.to_string();
            assert_eq!(
                after_text, mutated,
                "refused ({message}) but {file} changed"
            );
            // The file is named, with a line where the refusal is about the text.
            assert!(message.contains(file), "{file}: {message}\n{mutated}");
            tally.refused += 1;
            if std::env::var("KF_SHOW_REFUSALS").is_ok() {
                eprintln!("REFUSAL {}", message.chars().take(160).collect::<String>());
            }
        }
        Ok(_) => {
            let after = views(root);
            // The env set, or for a module's param the `default` env, which overrides none.
            let reads_back_in = target.env.as_deref().unwrap_or("default");
            for ((env, b), (_, a)) in before.into_iter().zip(after) {
                let (Some(b), Some(a)) = (b, a) else {
                    continue;
                };
                let key = target.key.as_str();
                assert_eq!(
                    without(b, component, key),
                    without(a.clone(), component, key),
                    "param set {component} {key} changed another value; the file was:\n{mutated}\nand became:\n{after_text}"
                );
                if env != reads_back_in {
                    continue;
                }
                assert_eq!(
                    a["components"][component][key],
                    Value::from(value.parse::<i64>().expect("a number")),
                    "the key set does not read back"
                );
            }
            tally.written += 1;
        }
    }
    write(&path, &original);
}

fn mutations(text: &str, step: usize) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.char_indices() {
        let mut m = text.to_string();
        m.remove(i);
        out.push(m);
    }
    let boundaries: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain([text.len()])
        .collect();
    for (n, at) in boundaries.iter().step_by(step).enumerate() {
        for insert in [",", ":", "{", "}", "'", "\"", "\n", "x"] {
            if (n + insert.len()) % 2 == 0 {
                let mut m = text.to_string();
                m.insert_str(*at, insert);
                out.push(m);
            }
        }
    }
    out
}

fn run(root: &Path, file: &str, target: ParamTarget, value: &str) -> Tally {
    let text = read(root.join(file));
    let mut tally = Tally::default();
    for m in mutations(&text, 7) {
        try_one(root, file, &m, &target, value, &mut tally);
    }
    // Both outcomes occur: the test exercises the refusal and the edit.
    assert!(
        tally.refused > 100 && tally.written > 100,
        "{file}: {tally:?}"
    );
    tally
}

#[test]
fn every_one_byte_slip_in_a_real_module_params_file_is_refused_or_kept() {
    let (_dir, root) = fixture_app();
    let target = ParamTarget {
        component: Some("train".into()),
        key: "numPs".into(),
        env: None,
    };
    let tally = run(&root, "components/params.libsonnet", target, "3");
    eprintln!("module params: {tally:?}");
}

#[test]
fn every_one_byte_slip_in_a_real_env_params_file_is_refused_or_kept() {
    let (_dir, root) = fixture_app();
    let target = ParamTarget {
        component: Some("train".into()),
        key: "numWorkers".into(),
        env: Some("jlewi".into()),
    };
    let tally = run(&root, "environments/jlewi/params.libsonnet", target, "5");
    eprintln!("env params: {tally:?}");
}

#[test]
fn every_one_byte_slip_in_a_generated_params_file_is_refused_or_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &["init", "app", "--namespace", "ml"]);
    let root = dir.path().join("app");
    ok(
        &root,
        &["generate", "deployed-service", "web", "--image=nginx:1.27"],
    );
    ok(
        &root,
        &["generate", "configMap", "settings", "--data={\"A\":\"1\"}"],
    );
    let target = ParamTarget {
        component: Some("web".into()),
        key: "replicas".into(),
        env: None,
    };
    let tally = run(&root, "components/params.libsonnet", target, "4");
    eprintln!("generated params: {tally:?}");
}

/// The reported case: `replicas: 1` with its comma gone, `servicePort` on the next line.
#[test]
fn a_missing_comma_is_refused_at_the_users_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    ok(dir.path(), &["init", "app", "--namespace", "ml"]);
    let root = dir.path().join("app");
    ok(
        &root,
        &["generate", "deployed-service", "web", "--image=nginx:1.27"],
    );
    let path = root.join("components/params.libsonnet");
    let text = read(&path);
    let broken = text.replacen("replicas: 1,", "replicas: 1", 1);
    let line = broken
        .lines()
        .position(|l| l.contains("replicas: 1"))
        .expect("replicas")
        + 1;
    write(&path, &broken);
    for args in [
        ["param", "set", "web", "replicas", "2"],
        ["param", "set", "web", "image", "nginx:2"],
    ] {
        let err = support::fails(&root, &args);
        assert!(
            err.contains(&format!("components/params.libsonnet:{}:", line + 1))
                && err.contains(&format!("is a comma missing at the end of line {line}?"))
                && !err.contains("kf bug"),
            "{err}"
        );
        assert_eq!(read(&path), broken, "nothing is written");
    }
}

/// An edit never writes more than a read accepts, nor nests keys without end: the text a
/// key of n levels adds grows with n squared.
#[test]
fn an_edit_is_bounded_by_what_kf_reads_back() {
    use kf::params::{EditError, Inherit, ParamsFile, Root};
    let text = "{\n  global: {},\n  components: {\n    web: { replicas: 1 },\n  },\n}\n";
    let file = ParamsFile::parse("components/params.libsonnet", text).expect("parses");
    let cap = kf::sandbox::RENDER_FILE_CAP as usize;
    let big = format!("'{}'", "x".repeat(cap));
    let path = ["web".to_string(), "image".to_string()];
    match file.set(Root::Components, &path, &big, Inherit::Replace) {
        Err(e @ EditError::TooLarge { .. }) => {
            let m = e.to_string();
            assert!(
                m.starts_with("components/params.libsonnet: the edit would make the file"),
                "{m}"
            );
        }
        other => panic!("{:?}", other.map(|t| t.len())),
    }
    // Just under the cap is written.
    let fits = format!("'{}'", "x".repeat(cap - text.len() - 64));
    assert!(
        file.set(Root::Components, &path, &fits, Inherit::Replace)
            .is_ok()
    );
    let deep: Vec<String> = std::iter::once("web".to_string())
        .chain((0..50_000).map(|_| "a".to_string()))
        .collect();
    assert!(matches!(
        file.set(Root::Components, &deep, "1", Inherit::Replace),
        Err(EditError::TooDeep { depth: 50_001 })
    ));
}
