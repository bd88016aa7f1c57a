//! A big ksonnet-lib an app commits (`lib/ksonnet-lib/<v>/k8s.libsonnet`, 3.7 MB in real
//! apps) is read as lazily imported parts (src/engine/split_library.rs). The parts must
//! mean what the file means: an app renders the same objects from the library read
//! whole (wrapped in parentheses, which kf never splits) and read as parts, and an error
//! inside the library names the library's own file and line.

mod support;

use std::fmt::Write as _;
use std::path::PathBuf;

use support::*;

/// A library in the shape ksonnet generated: groups, versions with `local apiVersion`,
/// kinds with `local kind`, mixins through a local function, types in the top-level
/// `local hidden`, reached from the kinds, and enough comment to be split.
fn library() -> String {
    let mut text = String::from(
        "{\n  __ksonnet: {\n    checksum: 'test',\n    kubernetesVersion: '1.10.3',\n  },\n",
    );
    let comment = format!("        // {}\n", "doc ".repeat(60));
    for g in 0..8 {
        let _ = writeln!(text, "  g{g}:: {{");
        for v in ["v1", "v1beta1"] {
            let _ = writeln!(text, "    {v}:: {{");
            let _ = writeln!(
                text,
                "      local apiVersion = {{ apiVersion: 'g{g}.example.com/{v}' }},"
            );
            for k in 0..6 {
                let _ = writeln!(text, "      kind{k}:: {{");
                let _ = writeln!(text, "        local kind = {{ kind: 'Kind{k}' }},");
                for _ in 0..18 {
                    text.push_str(&comment);
                }
                let _ = writeln!(
                    text,
                    "        new(name):: apiVersion + kind + self.mixin.metadata.withName(name),"
                );
                let _ = writeln!(
                    text,
                    "        withReplicas(replicas):: self + {{ spec+: {{ replicas: replicas }} }},"
                );
                let _ = writeln!(
                    text,
                    "        fail(why):: error 'kind{k} of g{g}/{v} refuses: ' + why,"
                );
                let _ = writeln!(text, "        mixin:: {{");
                let _ = writeln!(text, "          metadata:: {{");
                let _ = writeln!(
                    text,
                    "            local __metadataMixin(metadata) = {{ metadata+: metadata }},"
                );
                let _ = writeln!(
                    text,
                    "            withName(name):: self + __metadataMixin({{ name: name }}),"
                );
                let _ = writeln!(
                    text,
                    "            withLabelsMixin(labels):: self + __metadataMixin({{ labels+: labels }}),"
                );
                let _ = writeln!(text, "          }},");
                let _ = writeln!(text, "          spec:: {{");
                let _ = writeln!(
                    text,
                    "            withSelector(selector):: self + {{ spec+: {{ selector: selector }} }},"
                );
                let _ = writeln!(
                    text,
                    "            selectorType:: hidden.g{g}.{v}.labelSelector,"
                );
                let _ = writeln!(text, "          }},");
                let _ = writeln!(text, "        }},");
                let _ = writeln!(text, "      }},");
            }
            let _ = writeln!(text, "    }},");
        }
        let _ = writeln!(text, "  }},");
    }
    text.push_str("  local hidden = {\n");
    for g in 0..8 {
        let _ = writeln!(text, "    g{g}:: {{");
        for v in ["v1", "v1beta1"] {
            let _ = writeln!(text, "      {v}:: {{");
            let _ = writeln!(text, "        labelSelector:: {{");
            for _ in 0..4 {
                text.push_str(&comment);
            }
            let _ = writeln!(text, "          new():: {{}},");
            let _ = writeln!(
                text,
                "          withMatchLabels(labels):: self + {{ matchLabels: labels }},"
            );
            let _ = writeln!(
                text,
                "          withMatchLabelsMixin(labels):: self + {{ matchLabels+: labels }},"
            );
            let _ = writeln!(
                text,
                "          requirementType:: hidden.g{g}.{v}.requirement,"
            );
            let _ = writeln!(text, "        }},");
            let _ = writeln!(text, "        requirement:: {{");
            for _ in 0..4 {
                text.push_str(&comment);
            }
            let _ = writeln!(
                text,
                "          new(key):: {{ key: key, values: [x for x in std.range(1, 3)] }},"
            );
            let _ = writeln!(text, "        }},");
            let _ = writeln!(text, "      }},");
        }
        let _ = writeln!(text, "    }},");
    }
    text.push_str("  },\n}\n");
    text
}

const COMPONENT: &str = r#"local k = import "k.libsonnet";
local kind = k.g3.v1beta1.kind4;
local selector = kind.mixin.spec.selectorType;
[
  kind.new("one") + kind.withReplicas(3)
  + kind.mixin.metadata.withLabelsMixin({ tier: "a" })
  + kind.mixin.spec.withSelector(selector.new() + selector.withMatchLabels({ app: "one" })
    + { expressions: [selector.requirementType.new("zone")] }),
  k.g7.v1.kind0.new("two"),
]
"#;

/// An app whose env reads the committed library `lib_text`; returns the app and the
/// library's path.
fn app_with_library(lib_text: &str) -> (TempApp, PathBuf) {
    let app = new_app();
    let lib_root = app.root.join("lib/ksonnet-lib");
    let version = std::fs::read_dir(&lib_root)
        .map(|mut d| d.next().unwrap().unwrap().path())
        .unwrap_or_else(|_| lib_root.join("v1.33.0"));
    let _ = std::fs::remove_dir_all(&version);
    write(version.join("k.libsonnet"), "import 'k8s.libsonnet'\n");
    write(version.join("k8s.libsonnet"), lib_text);
    write(app.root.join("components/app.jsonnet"), COMPONENT);
    write(
        app.root.join("components/params.libsonnet"),
        "{ global: {}, components: { app: {} } }\n",
    );
    (app, version.join("k8s.libsonnet"))
}

#[test]
fn a_committed_library_read_as_parts_renders_what_it_renders_whole() {
    let lib = library();
    assert!(
        lib.len() > 512 * 1024,
        "{} bytes: too small to be split",
        lib.len()
    );
    let (split_app, _) = app_with_library(&lib);
    let (whole_app, _) = app_with_library(&format!("(\n{lib})\n"));
    let split = ok(&split_app.root, &["show", "default", "-o", "json"]);
    let whole = ok(&whole_app.root, &["show", "default", "-o", "json"]);
    assert_eq!(split, whole);
    let objects: serde_json::Value = serde_json::from_str(&split).unwrap();
    let named = |name: &str| {
        objects["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {objects}"))
            .clone()
    };
    let one = &named("one");
    assert_eq!(one["apiVersion"], "g3.example.com/v1beta1");
    assert_eq!(one["kind"], "Kind4");
    assert_eq!(one["spec"]["replicas"], 3);
    assert_eq!(one["spec"]["selector"]["matchLabels"]["app"], "one");
    assert_eq!(
        one["spec"]["selector"]["expressions"][0]["values"],
        serde_json::json!([1, 2, 3])
    );
    assert_eq!(named("two")["apiVersion"], "g7.example.com/v1");
}

#[test]
fn an_error_inside_a_part_names_the_library_file_and_line() {
    let lib = library();
    assert!(
        lib.len() > 512 * 1024,
        "{} bytes: too small to be split",
        lib.len()
    );
    let (app, path) = app_with_library(&lib);
    write(
        app.root.join("components/app.jsonnet"),
        "local k = import \"k.libsonnet\";\nk.g5.v1.kind2.fail(\"no\")\n",
    );
    let err = fails(&app.root, &["show", "default"]);
    let line = lib
        .lines()
        .position(|l| l.contains("error 'kind2 of g5/v1 refuses: '"))
        .unwrap()
        + 1;
    let shown = path.strip_prefix(&app.root).unwrap().display().to_string();
    assert!(err.contains("kind2 of g5/v1 refuses: no"), "{err}");
    assert!(err.contains(&format!("{shown}:{line}:")), "{err}");
    assert!(!err.contains("kf-part"), "{err}");
}

/// The kept splits and pointers in a cache folder: (splits, pointers).
fn kept_in(cache: &std::path::Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dir = cache.join("kf/split-libraries");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .partition(|p| !p.file_name().unwrap().to_string_lossy().starts_with("at-"))
}

#[test]
fn a_settled_library_is_found_by_its_stamp_and_every_change_is_seen() {
    let lib = library();
    let (app, path) = app_with_library(&lib);
    let cache = tempfile::tempdir().unwrap();
    let vars = [("XDG_CACHE_HOME", cache.path().to_str().unwrap())];
    let show = || {
        let run = kf_in_with_env(&app.root, &["show", "default", "-o", "json"], &vars);
        assert_eq!(run.status, 0, "{}", run.stderr);
        run.stdout
    };
    let values = |out: &str| {
        let objects: serde_json::Value = serde_json::from_str(out).unwrap();
        let items = objects["items"].as_array().unwrap().clone();
        let one = items
            .into_iter()
            .find(|o| o["metadata"]["name"] == "one")
            .unwrap();
        one["spec"]["selector"]["expressions"][0]["values"].clone()
    };
    let first = show();
    let (splits, _) = kept_in(cache.path());
    assert_eq!(splits.len(), 1, "{splits:?}");
    // A pointer is kept only for a file last changed 2 s before it is read.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(show(), first);
    let (_, pointers) = kept_in(cache.path());
    assert_eq!(pointers.len(), 1, "the settled library's pointer");
    // Found by the pointer: the same objects.
    assert_eq!(show(), first);
    assert_eq!(values(&first), serde_json::json!([1, 2, 3]));

    // A pointer changed to name other bytes no longer verifies: the library is read.
    let pointer = std::fs::read_to_string(&pointers[0]).unwrap();
    let (signature, _) = pointer.split_once('\t').unwrap();
    std::fs::write(&pointers[0], format!("{signature}\t{}\n", "0".repeat(64))).unwrap();
    assert_eq!(show(), first);

    // The kept parts damaged: the parts are read from the library again.
    let kept = String::from_utf8(std::fs::read(&splits[0]).unwrap()).unwrap();
    assert!(kept.contains("std.range(1, 3)"));
    std::fs::write(
        &splits[0],
        kept.replace("std.range(1, 3)", "std.range(0, 3)"),
    )
    .unwrap();
    assert_eq!(show(), first);
    // ... and kept again in place of the damaged split.
    let rewritten = std::fs::read_to_string(&splits[0]).unwrap();
    assert!(rewritten.contains("std.range(1, 3)") && !rewritten.contains("std.range(0, 3)"));

    // The library edited in place, to the same size: the edit is rendered.
    std::fs::write(&path, lib.replace("std.range(1, 3)", "std.range(2, 3)")).unwrap();
    assert_eq!(values(&show()), serde_json::json!([2, 3]));

    // A library that is a symlink: the stamp is the file's it names (the import resolves
    // to that file; a symlink itself is never stamped), so every edit of it is seen.
    #[cfg(unix)]
    {
        let real = path.with_file_name("real.libsonnet");
        std::fs::rename(&path, &real).unwrap();
        std::os::unix::fs::symlink("real.libsonnet", &path).unwrap();
        for pointer in kept_in(cache.path()).1 {
            std::fs::remove_file(pointer).unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(2100));
        assert_eq!(values(&show()), serde_json::json!([2, 3]));
        assert_eq!(values(&show()), serde_json::json!([2, 3]));
        std::fs::write(&real, &lib).unwrap();
        assert_eq!(values(&show()), serde_json::json!([1, 2, 3]));
    }
}

/// An app whose component `component` imports libraries from `lib/`, each big enough to
/// be split (1,000 hidden fields of 600 bytes after `head`).
fn app_with_lib_files(component: &str, libs: &[(&str, &str)]) -> TempApp {
    let app = new_app();
    let pad: String = (0..1000)
        .map(|i| format!("  f{i}:: {{ a: {i}, // {}\n  }},\n", "y".repeat(600)))
        .collect();
    for (name, head) in libs {
        write(
            app.root.join("lib").join(name),
            &format!("{{\n{head}{pad}}}\n"),
        );
    }
    write(app.root.join("components/cm.jsonnet"), component);
    app
}

/// `kf show default` of `app` with its own empty cache: (exit status, stdout).
fn show_fresh(app: &TempApp, cache: &std::path::Path) -> (i32, String) {
    let vars = [("XDG_CACHE_HOME", cache.to_str().unwrap())];
    let run = kf_in_with_env(&app.root, &["show", "default"], &vars);
    (run.status, run.stdout)
}

/// The same app with every library wrapped in parentheses (never split).
fn read_whole(app: &TempApp) {
    for entry in std::fs::read_dir(app.root.join("lib")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "libsonnet") {
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, format!("(\n{text})\n")).unwrap();
        }
    }
}

/// Shapes an untrusted app can give its library, each rendered as parts and whole: the
/// same output, the same success or failure.
#[test]
fn hostile_library_shapes_render_as_the_library_read_whole() {
    let cm = |data: &str| {
        format!(
            "{{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'cm' }}, data: {data} }}\n"
        )
    };
    let z = "z".repeat(600);
    let q = "q".repeat(600);
    /// What the case is, the component, the libraries and files planted beside them.
    type Case = (&'static str, String, Vec<(&'static str, String)>, Planted);
    type Planted = Vec<(&'static str, &'static str)>;
    let cases: Vec<Case> = vec![
        (
            // A text block line that keeps the indentation and reads `|||` is text.
            "text block",
            format!("local b = import 'big.libsonnet'; {}", cm("{ s: b.s }")),
            vec![(
                "big.libsonnet",
                format!(
                    "  s: |||\n    hello\n    |||,\n    a:: {{ x: '{z}' }},\n    b: |||\n  |||,\n"
                ),
            )],
            vec![],
        ),
        (
            // A local and a field of one name.
            "local and field",
            format!(
                "local b = import 'big.libsonnet'; {}",
                cm("{ l: b.fromLocal }")
            ),
            vec![(
                "big.libsonnet",
                format!(
                    "  local a = {{ who: 'local', // {q}\n  }},\n  a:: {{ who: 'field', // {q}\n  }},\n  fromLocal: a.who,\n"
                ),
            )],
            vec![],
        ),
        (
            // A file named like a part, imported before the library.
            "planted part",
            format!(
                "local first = import '../lib/big.libsonnet.kf-part/a'; local b = import 'big.libsonnet'; {}",
                cm("{ a: first.who, b: b.a.who }")
            ),
            vec![(
                "big.libsonnet",
                format!("  a:: {{ who: 'library', // {q}\n  }},\n"),
            )],
            vec![("big.libsonnet.kf-part/a", "{ who: 'planted' }\n")],
        ),
        (
            // A part's path imported by another file than the library: nothing is there.
            "part imported from outside",
            format!(
                "local b = import 'big.libsonnet'; local p = import '../lib/big.libsonnet.kf-part/a'; {}",
                cm("{ a: std.toString(b.x), b: p.who }")
            ),
            vec![(
                "big.libsonnet",
                format!("  a:: {{ who: 'library', // {q}\n  }},\n  x: 1,\n"),
            )],
            vec![],
        ),
        (
            // A lone CR ends a `//` comment for the engine: what follows is code.
            "CR in a comment",
            format!(
                "local b = import 'big.libsonnet'; {}",
                cm("{ who: b.a.who, f: b.a.file }")
            ),
            vec![(
                "big.libsonnet",
                format!(
                    "  secret:: 'top',\n  a:: {{ // note\r who: $.secret, file: std.thisFile,\n    secret:: 'part',\n    // {q}\n  }},\n"
                ),
            )],
            vec![],
        ),
        (
            // `**/` does not end a comment for the engine: the comment runs on.
            "comment ending in **/",
            format!(
                "local b = import 'big.libsonnet'; {}",
                cm("{ v: std.manifestJsonEx(b, ''), a: std.manifestJsonEx(b.a, '') }")
            ),
            vec![(
                "big.libsonnet",
                format!(
                    "  a:: {{\n    x: 1,\n    /* **/ }},\n    b:: {{\n    // {q}\n    */\n    y: 2,\n  }},\n  c: 'keep',\n  // */ }},\n  d: 'x',\n"
                ),
            )],
            vec![],
        ),
        (
            // `std.thisFile` reached without its name.
            "std['this' + 'File']",
            format!("local b = import 'big.libsonnet'; {}", cm("{ f: b.a.f }")),
            vec![(
                "big.libsonnet",
                format!("  a:: {{ f: std['this' + 'File'], // {q}\n  }},\n"),
            )],
            vec![],
        ),
        (
            // A file name Jsonnet's strings must carry as it is.
            "combining accent",
            format!(
                "local y = import 'e\u{301}.libsonnet'; {}",
                cm("{ y: y.a.who }")
            ),
            vec![(
                "e\u{301}.libsonnet",
                format!("  a:: {{ who: 'library', // {q}\n  }},\n"),
            )],
            vec![],
        ),
    ];
    for (what, component, libs, planted) in cases {
        let libs: Vec<(&str, &str)> = libs.iter().map(|(n, t)| (*n, t.as_str())).collect();
        let split = app_with_lib_files(&component, &libs);
        let whole = app_with_lib_files(&component, &libs);
        read_whole(&whole);
        for (name, text) in &planted {
            write(split.root.join("lib").join(name), text);
            write(whole.root.join("lib").join(name), text);
        }
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (parts, whole) = (show_fresh(&split, a.path()), show_fresh(&whole, b.path()));
        assert_eq!(parts, whole, "{what}");
        // Read again, from the kept split if there is one: the same.
        assert_eq!(show_fresh(&split, a.path()), whole, "{what}, kept");
    }
}

/// Two libraries of the same bytes under two names are two kept splits: the main text
/// imports the parts by the library's name.
#[test]
fn libraries_of_the_same_bytes_under_two_names_are_kept_apart() {
    let head = format!(
        "  local a = {{ who: 'x', // {}\n  }},\n  who: a.who,\n",
        "p".repeat(600)
    );
    let cm = |lib: &str| {
        format!(
            "local y = import '{lib}'; {{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {{ name: 'cm' }}, data: {{ y: y.who }} }}\n"
        )
    };
    let app = app_with_lib_files(
        &cm("a-b.libsonnet"),
        &[("a-b.libsonnet", &head), ("a_b.libsonnet", &head)],
    );
    let cache = tempfile::tempdir().unwrap();
    let (status, first) = show_fresh(&app, cache.path());
    assert_eq!(status, 0);
    write(app.root.join("components/cm.jsonnet"), &cm("a_b.libsonnet"));
    assert_eq!(show_fresh(&app, cache.path()), (0, first));
    assert_eq!(kept_in(cache.path()).0.len(), 2);
}

/// An error in a literal on the library's first line is placed on that line.
#[test]
fn an_error_on_the_first_line_of_a_library_is_placed_there() {
    let lib = format!(
        "{{ a:: {{ f: error 'boom', q: '{}' }}, x: 1 }}\n// {}\n",
        "q".repeat(600),
        "z".repeat(600_000)
    );
    let app = app_with_lib_files(
        "local b = import 'big.libsonnet'; { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { f: b.a.f } }\n",
        &[],
    );
    write(app.root.join("lib/big.libsonnet"), &lib);
    let err = fails(&app.root, &["show", "default"]);
    assert!(err.contains("lib/big.libsonnet:1:12"), "{err}");
}

/// Two libraries whose names are not UTF-8 and read alike once made text are not split:
/// each keeps its own content.
#[cfg(unix)]
#[test]
fn libraries_whose_names_are_not_text_are_read_whole() {
    use std::os::unix::ffi::OsStrExt;
    let cm = "local x = import 'x.libsonnet'; local y = import 'y.libsonnet'; { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { x: x.a.who, y: y.a.who } }\n";
    let app = app_with_lib_files(cm, &[]);
    let pad: String = (0..1000)
        .map(|i| format!("  f{i}:: {{ a: {i}, // {}\n  }},\n", "y".repeat(600)))
        .collect();
    for (byte, link) in [(0xffu8, "x.libsonnet"), (0xfe, "y.libsonnet")] {
        let mut name = vec![byte];
        name.extend_from_slice(b".libsonnet");
        let name = std::ffi::OsStr::from_bytes(&name);
        let text = format!(
            "{{\n  a:: {{ who: 'lib-{byte:x}', // {}\n  }},\n{pad}}}\n",
            "q".repeat(600)
        );
        std::fs::write(app.root.join("lib").join(name), text).unwrap();
        std::os::unix::fs::symlink(name, app.root.join("lib").join(link)).unwrap();
    }
    let cache = tempfile::tempdir().unwrap();
    let (status, out) = show_fresh(&app, cache.path());
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains("x: lib-ff") && out.contains("\"y\": lib-fe"),
        "{out}"
    );
}
