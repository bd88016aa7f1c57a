//! What a file imports, resolved as this engine's imports resolve (the importing file's
//! folder, the search paths, the aliases, inside the sandbox), without parsing or
//! evaluating anything: for weighing components before a render hands them out
//! (render/cost.rs). A file that cannot be read, or an import that does not resolve, is
//! left out: the evaluation reports it.

use std::path::{Path, PathBuf};

use jrsonnet_evaluator::SourcePath;

use super::{Engine, resolver};

/// A file and the files its imports name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileImports {
    /// Its size in bytes.
    pub size: u64,
    /// The real paths of the files its `import`, `importstr` and `importbin` read, each
    /// once, in the order first named.
    pub imports: Vec<PathBuf>,
}

impl Engine {
    /// The real path `path` resolves to, as an import of it from nowhere in particular
    /// would; `None` when it does not resolve to a file inside the sandbox.
    pub fn resolve_file(&self, path: &Path) -> Option<PathBuf> {
        let found = self.state.resolve_from_default(&path).ok()?;
        found.path().map(Path::to_path_buf)
    }

    /// The size of the file at the real path `path` and, for a Jsonnet source of at most
    /// `read_at_most` bytes, the files its imports resolve to (a larger one is weighed by
    /// its size alone). `None` when the file cannot be read.
    pub fn imports_of(&self, path: &Path, read_at_most: u64) -> Option<FileImports> {
        let (_, meta) = self.sandbox.resolve_with_metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let jsonnet = path
            .extension()
            .is_some_and(|e| e == "jsonnet" || e == "libsonnet");
        if !jsonnet || meta.len() > read_at_most {
            return Some(FileImports {
                size: meta.len(),
                imports: Vec::new(),
            });
        }
        let from = SourcePath::new(jrsonnet_ir::SourceFile::new(path.to_path_buf()));
        let bytes = resolver::read_as_written(&self.overlay, &self.sandbox, &from).ok()?;
        let mut imports: Vec<PathBuf> = Vec::new();
        for wanted in imported_paths(&bytes) {
            let Ok(found) = self.state.resolve_from(&from, &wanted.as_str()) else {
                continue;
            };
            if let Some(found) = found.path()
                && !imports.iter().any(|i| i == found)
            {
                imports.push(found.to_path_buf());
            }
        }
        Some(FileImports {
            size: bytes.len() as u64,
            imports,
        })
    }
}

/// The paths `source`'s imports name, each once, in the order first named. A scan for
/// `import`, `importstr` or `importbin` and the quoted string after it, not a parse: an
/// import in a comment or a string counts too, which only makes a weight a little high.
fn imported_paths(source: &[u8]) -> Vec<String> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut paths: Vec<String> = Vec::new();
    for at in memchr::memmem::find_iter(source, b"import") {
        if at > 0 && is_word(source[at - 1]) {
            continue;
        }
        let mut rest = &source[at + "import".len()..];
        if let Some(after) = rest.strip_prefix(b"str").or(rest.strip_prefix(b"bin")) {
            rest = after;
        }
        let blanks = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if blanks == 0 && rest.first().is_some_and(|&b| is_word(b)) {
            continue;
        }
        let rest = &rest[blanks..];
        let rest = rest.strip_prefix(b"@").unwrap_or(rest);
        let Some((&quote @ (b'"' | b'\''), inner)) = rest.split_first() else {
            continue;
        };
        let Some(end) = memchr::memchr2(quote, b'\n', inner) else {
            continue;
        };
        if inner[end] != quote {
            continue;
        }
        if let Ok(path) = std::str::from_utf8(&inner[..end])
            && !path.contains('\\')
            && !paths.iter().any(|p| p == path)
        {
            paths.push(path.to_string());
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_found_after_their_keyword_each_once() {
        let source = r#"
            local a = import "a.libsonnet";
            local s = importstr 'b.txt';
            local d = importbin @"c.bin";
            local n = import"n.libsonnet";
            { x: import "a.libsonnet", y: (import "d.json").z }
        "#;
        assert_eq!(
            imported_paths(source.as_bytes()),
            ["a.libsonnet", "b.txt", "c.bin", "n.libsonnet", "d.json"]
        );
        for nothing in [
            "{ importance: 1 }",
            "local reimport = 1; reimport",
            "local x = 1; x",
            "import",
            "import \"unclosed",
            "import \"two\nlines\"",
            "import x",
        ] {
            assert!(imported_paths(nothing.as_bytes()).is_empty(), "{nothing}");
        }
    }
}
