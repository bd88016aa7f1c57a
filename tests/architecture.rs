//! The library's import graph, read from `src/`'s `crate::` and `super::` paths, kept as
//! docs/dev/modules.md draws it: top-level modules import only modules of lower layers
//! (so there is no circle between them and no arrow up), and no two files of one folder
//! import each other, directly or around a circle. The binary (`main.rs`, `cli/`) may
//! use anything and is not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module by its path below `src/`: `["render", "params"]` for src/render/params.rs,
/// `["render"]` for src/render/mod.rs.
type ModPath = Vec<String>;

struct SourceFile {
    module: ModPath,
    /// Where it is, for messages.
    file: String,
    /// The code before its test module, without comment lines.
    code: String,
}

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn library_files() -> Vec<SourceFile> {
    let mut out = Vec::new();
    let mut stack = vec![src()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(src()).unwrap().to_path_buf();
            if rel == Path::new("cli") || rel == Path::new("main.rs") || rel == Path::new("lib.rs")
            {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut module: ModPath = rel
                    .with_extension("")
                    .iter()
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                if module.last().is_some_and(|m| m == "mod") {
                    module.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text
                    .lines()
                    .take_while(|l| !l.starts_with("#[cfg(test)]"))
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .collect::<Vec<_>>()
                    .join("\n");
                out.push(SourceFile {
                    module,
                    file: format!("src/{}", rel.display()),
                    code,
                });
            }
        }
    }
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// The paths written after `crate::` or `super::` (chains of `super::` resolved), each as
/// the identifiers from the crate root; a `{…}` group gives one path per member.
fn paths_used(file: &SourceFile) -> Vec<Vec<String>> {
    let code = file.code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let boundary = i == 0 || !(code[i - 1].is_ascii_alphanumeric() || code[i - 1] == b'_');
        let rest = &code[i..];
        let (base, after) = if boundary && rest.starts_with(b"crate::") {
            (Vec::new(), i + "crate::".len())
        } else if boundary && rest.starts_with(b"super::") {
            let mut base = file.module.clone();
            let mut at = i;
            while code[at..].starts_with(b"super::") {
                base.pop();
                at += "super::".len();
            }
            (base, at)
        } else {
            i += 1;
            continue;
        };
        let (paths, end) = read_tree(&file.code, after);
        for p in paths {
            out.push(base.iter().cloned().chain(p).collect());
        }
        i = end.max(i + 1);
    }
    out
}

/// A use tree starting at `at`: `a::b::c`, `a::{b, c::d}`, `{self, x}`; its paths and
/// where it ends.
fn read_tree(code: &str, mut at: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let mut prefix = Vec::new();
    loop {
        if bytes.get(at) == Some(&b'{') {
            let mut paths = Vec::new();
            at += 1;
            loop {
                while bytes
                    .get(at)
                    .is_some_and(|b| b.is_ascii_whitespace() || *b == b',')
                {
                    at += 1;
                }
                if at >= bytes.len() || bytes[at] == b'}' {
                    break;
                }
                let (inner, end) = read_tree(code, at);
                for p in inner {
                    paths.push(prefix.iter().cloned().chain(p).collect());
                }
                at = end.max(at + 1);
            }
            return (paths, at + 1);
        }
        let start = at;
        while bytes
            .get(at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            at += 1;
        }
        if at == start {
            return (vec![prefix], at);
        }
        let ident = &code[start..at];
        if ident != "self" {
            prefix.push(ident.to_string());
        }
        if bytes[at..].starts_with(b"::") {
            at += 2;
        } else {
            return (vec![prefix], at);
        }
    }
}

/// The module a path names or names an item of: its longest prefix that is a module.
fn module_of(path: &[String], modules: &BTreeSet<ModPath>) -> Option<ModPath> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| modules.contains(m))
}

/// Every import between two modules: (from, to) → the files that make it.
fn edges(files: &[SourceFile]) -> BTreeMap<(ModPath, ModPath), BTreeSet<String>> {
    let modules: BTreeSet<ModPath> = files.iter().map(|f| f.module.clone()).collect();
    let mut out: BTreeMap<(ModPath, ModPath), BTreeSet<String>> = BTreeMap::new();
    for file in files {
        for path in paths_used(file) {
            if let Some(to) = module_of(&path, &modules)
                && to != file.module
            {
                out.entry((file.module.clone(), to))
                    .or_default()
                    .insert(file.file.clone());
            }
        }
    }
    out
}

/// The layers docs/dev/modules.md lists, lowest first: each a set of top-level modules.
fn documented_layers() -> Vec<BTreeSet<String>> {
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/dev/modules.md"),
    )
    .unwrap();
    let block = doc
        .split("<!-- layers: read by tests/architecture.rs -->")
        .nth(1)
        .expect("docs/dev/modules.md marks its layer table")
        .split("```")
        .nth(1)
        .expect("the layer table is a fenced block");
    let mut layers: Vec<(u32, BTreeSet<String>)> = block
        .lines()
        .filter_map(|line| {
            let (number, rest) = line.trim().split_once(char::is_whitespace)?;
            let number = number.parse().ok()?;
            let names = rest.split("  ").next().unwrap_or_default();
            Some((
                number,
                names.split_whitespace().map(str::to_string).collect(),
            ))
        })
        .collect();
    layers.sort_by_key(|(n, _)| *n);
    layers.into_iter().map(|(_, names)| names).collect()
}

#[test]
fn top_level_modules_import_only_lower_layers() {
    let files = library_files();
    let layers = documented_layers();
    let layer_of = |m: &str| layers.iter().position(|l| l.contains(m));
    let tops: BTreeSet<String> = files.iter().map(|f| f.module[0].clone()).collect();
    let unplaced: Vec<&String> = tops.iter().filter(|m| layer_of(m).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "modules docs/dev/modules.md places in no layer: {unplaced:?}"
    );
    let mut wrong = Vec::new();
    for ((from, to), by) in edges(&files) {
        let (a, b) = (&from[0], &to[0]);
        if a == b {
            continue;
        }
        if layer_of(b) >= layer_of(a) {
            wrong.push(format!(
                "{a} (layer {}) imports {b} (layer {}) in {}",
                layer_of(a).unwrap_or_default(),
                layer_of(b).unwrap_or_default(),
                by.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against docs/dev/modules.md's direction:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_two_files_of_a_folder_import_each_other() {
    let files = library_files();
    // Sibling files only: a folder's mod.rs declares its files and they use what it
    // holds, which is how Rust modules are built, not a circle.
    let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (from, to) in edges(&files).into_keys() {
        let siblings = from.len() == to.len()
            && from.len() > 1
            && from[..from.len() - 1] == to[..to.len() - 1];
        if siblings {
            graph.entry(from).or_default().insert(to);
        }
    }
    let circles = circles(&graph);
    assert!(
        circles.is_empty(),
        "files that import each other: {circles:?}"
    );
}

/// Strongly connected components of more than one node (Tarjan).
fn circles(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.join("/"));
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    let nodes: BTreeSet<&ModPath> = graph
        .iter()
        .flat_map(|(k, v)| std::iter::once(k).chain(v))
        .collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// The longest a library or CLI file may grow, its unit tests included: past it, a file
/// holds more than one concern (docs/dev/modules.md, "one concern per file").
const MAX_FILE_LINES: usize = 600;

#[test]
fn no_source_file_outgrows_one_concern() {
    let mut long = Vec::new();
    let mut stack = vec![src()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path).unwrap().lines().count();
                if lines > MAX_FILE_LINES {
                    long.push(format!("{} ({lines} lines)", path.display()));
                }
            }
        }
    }
    long.sort();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines; split them by concern: {long:?}"
    );
}

#[test]
fn the_reader_finds_what_a_use_line_names() {
    let file = SourceFile {
        module: vec!["render".into(), "params".into()],
        file: "src/render/params.rs".into(),
        code: "use super::{entries::{self, Entries}, rel};\nuse crate::app::{App, Environment};\nlet x = crate::engine::lazy_json(y);\nfn nocrate::z() {}".into(),
    };
    let got: Vec<String> = paths_used(&file).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        got,
        [
            "render::entries",
            "render::entries::Entries",
            "render::rel",
            "app::App",
            "app::Environment",
            "engine::lazy_json",
        ]
    );
    let cyclic: BTreeMap<ModPath, BTreeSet<ModPath>> = [
        (vec!["a".to_string()], [vec!["b".to_string()]].into()),
        (vec!["b".to_string()], [vec!["a".to_string()]].into()),
    ]
    .into();
    assert_eq!(circles(&cyclic), [vec!["a".to_string(), "b".to_string()]]);
}
