//! Which components a render on several threads hands out first (render/parallel.rs): the
//! heaviest, so that a long one does not start last and keep one thread busy while the
//! others wait with nothing left to take.
//!
//! A component's weight is the size of its file and of every file it imports, directly or
//! through other files, each counted once: the Jsonnet its thread parses and the data it
//! turns into objects. The env's ksonnet-lib is neither counted nor followed: nearly every
//! component imports it, and each thread parses what it needs of it whichever component it
//! renders. On the corpus' gis_demo_gh-demo-1003 (docs/benchmarks.md), seldon weighs
//! 342 kB (its CRD imports a 277 kB schema) and takes 13–19 ms; the twelve others weigh
//! 4–38 kB and take 0.4–7 ms, and seldon is the eleventh in list order.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::engine::{Engine, FileImports};

/// Files one render weighs at most, and their bytes: past either, components are weighed
/// on what was weighed so far (a weight only orders work; it never changes what is
/// rendered). A Jsonnet file over a tenth of the bytes is weighed by its size, unread.
const FILES_AT_MOST: usize = 2000;
const BYTES_READ_AT_MOST: u64 = 16 << 20;

/// Weighs components through one engine's import resolution, reading each file once.
pub(super) struct Weigher<'e> {
    engine: &'e Engine,
    /// The real path of the env's ksonnet-lib, if it has one.
    library: Option<PathBuf>,
    files: HashMap<PathBuf, Option<FileImports>>,
    /// Bytes weighed so far.
    read: u64,
}

impl<'e> Weigher<'e> {
    pub(super) fn new(engine: &'e Engine, library: Option<&Path>) -> Weigher<'e> {
        Weigher {
            engine,
            library: library.map(|l| crate::sandbox::real_dir(l).unwrap_or_else(|_| l.into())),
            files: HashMap::new(),
            read: 0,
        }
    }

    /// The bytes `component` (its file's path) and everything it imports add up to; 0 for
    /// a file that does not resolve inside the sandbox.
    pub(super) fn weight(&mut self, component: &Path) -> u64 {
        let Some(start) = self.engine.resolve_file(component) else {
            return 0;
        };
        let mut seen: HashSet<PathBuf> = HashSet::new();
        let mut pending = vec![start];
        let mut total = 0u64;
        while let Some(path) = pending.pop() {
            let in_library = self.library.as_ref().is_some_and(|l| path.starts_with(l));
            if in_library || !seen.insert(path.clone()) {
                continue;
            }
            if let Some(file) = self.file(&path) {
                total = total.saturating_add(file.size);
                pending.extend(file.imports.iter().cloned());
            }
        }
        total
    }

    fn file(&mut self, path: &Path) -> Option<&FileImports> {
        if !self.files.contains_key(path) {
            let left = BYTES_READ_AT_MOST.saturating_sub(self.read);
            if self.files.len() >= FILES_AT_MOST || left == 0 {
                return None;
            }
            let read = self
                .engine
                .imports_of(path, left.min(BYTES_READ_AT_MOST / 10));
            if let Some(file) = &read {
                self.read = self.read.saturating_add(file.size);
            }
            self.files.insert(path.to_path_buf(), read);
        }
        self.files.get(path).and_then(Option::as_ref)
    }
}

/// The order to hand a render's list out in, as positions in it: `modules[i]` is item i's
/// module and `weights[i]` its weight. Modules keep their list order (a thread keeps its
/// module's engine while it can); within one, the heaviest come first, equal weights in
/// list order.
pub(super) fn heaviest_first(modules: &[usize], weights: &[u64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..modules.len()).collect();
    order.sort_by_key(|&i| {
        (
            modules[i],
            std::cmp::Reverse(weights.get(i).copied().unwrap_or(0)),
        )
    });
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_heaviest_of_each_module_come_first_and_modules_keep_their_order() {
        // Two modules: items 0..3 of module 0, items 3..5 of module 1.
        let modules = [0, 0, 0, 1, 1];
        let weights = [10, 300, 10, 5, 50];
        assert_eq!(heaviest_first(&modules, &weights), [1, 0, 2, 4, 3]);
        // Equal weights keep list order; no weights at all is list order.
        assert_eq!(heaviest_first(&[0, 0, 0], &[7, 7, 7]), [0, 1, 2]);
        assert_eq!(heaviest_first(&[0, 0], &[]), [0, 1]);
    }

    #[test]
    fn a_weight_is_every_file_reached_once_inside_the_sandbox_without_the_library() {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::sandbox::real_dir(dir.path()).unwrap();
        let app = root.join("app");
        let library = app.join("lib");
        let write = |rel: &str, text: &str| {
            let path = app.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            text.len() as u64
        };
        let secret = root.join("secret.json");
        std::fs::write(&secret, "x".repeat(5000)).unwrap();
        // A cycle (a ↔ b), a file imported twice, data, a missing file, the library and a
        // file outside the sandbox.
        let component = write(
            "components/c.jsonnet",
            "local a = import 'a.libsonnet'; local k = import 'k.libsonnet'; [a, import 'a.libsonnet', import 'gone.libsonnet', importstr '../../secret.json']",
        );
        let a = write("vendor/a.libsonnet", "import 'b.libsonnet'");
        let b = write(
            "vendor/b.libsonnet",
            "{ a: import 'a.libsonnet', d: import 'data.json' }",
        );
        let data = write("vendor/data.json", &format!("[{}]", "1,".repeat(999) + "1"));
        write("lib/k.libsonnet", &format!("{{{}}}", " ".repeat(9000)));
        let engine = Engine::new(crate::engine::EngineOptions {
            display_root: app.clone(),
            search_paths: vec![app.join("vendor"), library.clone()],
            aliases: Vec::new(),
            sandbox: crate::sandbox::Sandbox::new([&app]),
            max_stack: crate::engine::DEFAULT_MAX_STACK,
            rewrite: None,
            overlay: Vec::new(),
        });
        let mut weigher = Weigher::new(&engine, Some(&library));
        let c = app.join("components/c.jsonnet");
        assert_eq!(weigher.weight(&c), component + a + b + data);
        // Weighed again from what was read: the same.
        assert_eq!(weigher.weight(&c), component + a + b + data);
        assert_eq!(
            weigher.weight(&app.join("vendor/b.libsonnet")),
            a + b + data
        );
        assert_eq!(weigher.weight(&app.join("components/none.jsonnet")), 0);
        // Without a library to leave out, k.libsonnet counts like any file.
        let mut counting_all = Weigher::new(&engine, None);
        assert_eq!(counting_all.weight(&c), component + a + b + data + 9002);
    }
}
