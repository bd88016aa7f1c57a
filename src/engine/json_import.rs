//! `import "….json"` read as data. Jsonnet parses an imported JSON file as code: a syntax
//! tree for every value, analysed, then evaluated, and kept for the whole render. Real
//! registry packages import large JSON files that way (Kubeflow v0.5's seldon package: a
//! 275 kB pod template schema). Where the file is JSON that `std.parseJson` reads as the
//! same value, the importing file gets a first `local` that reads it so, and the import
//! becomes that local: the values are built directly, once per file like an import.
//!
//! The rewrite is of the importing file's text, not of the JSON file's, so `importstr` of
//! the same file still reads its bytes as written. It works on the engine's own tokens
//! (jrsonnet's lexer). The import and its path are overwritten in place, padded with
//! blanks, so only the first line's columns move (by the length of the `local`).
//!
//! Whether a file is such data is found by parsing it (parse_json.rs), and that parse is
//! kept: the local takes it from there, and reads the file again (`importstr`) only if it
//! is gone, so the file is read and parsed once.

use std::collections::{BTreeMap, HashSet};

use jrsonnet_lexer::{Lexeme, SyntaxKind};

use super::lexer;

pub use super::parse_json::reads_as_data;

/// Tokens after which an expression cannot go on: `import "x.json"` before anything else
/// (`+ {…}`, `.field`, `{…}`, `in o`) is a computed import, which Jsonnet refuses.
const ENDS_AN_EXPRESSION: &[SyntaxKind] = &[
    SyntaxKind::SEMI,
    SyntaxKind::COMMA,
    SyntaxKind::R_PAREN,
    SyntaxKind::R_BRACK,
    SyntaxKind::R_BRACE,
    SyntaxKind::THEN_KW,
    SyntaxKind::ELSE_KW,
    SyntaxKind::FOR_KW,
    SyntaxKind::IF_KW,
];

/// The native function the locals call: `(id, text)` gives the value kept under `id`
/// (parse_json.rs), or else `std.parseJson(text)`; `text`, an `importstr` of the file, is
/// read only then.
pub const KEPT_JSON: &str = "kf.keptJson";

/// `source` with each `import "….json"` that `keep` finds to be data read as data;
/// `None` when nothing changes. `keep` gets the path as written and, if it resolves to
/// data, keeps its value and returns the id it is kept under (else the import is left as
/// it is, to fail or succeed as it would).
pub fn with_json_imports_as_data(
    source: &str,
    keep: impl Fn(&str) -> Option<u64>,
) -> Option<String> {
    if !may_import_json(source) {
        return None;
    }
    let lexemes = jrsonnet_lexer::lex(source);
    if lexemes.iter().any(|l| l.kind.error_description().is_some()) {
        return None;
    }
    let tokens: Vec<&Lexeme> = lexemes.iter().filter(|l| !is_trivia(l.kind)).collect();
    let names: HashSet<&str> = tokens
        .iter()
        .filter(|t| t.kind == SyntaxKind::IDENT)
        .map(|t| t.text)
        .collect();
    let mut fresh = (0..1000)
        .map(|n| format!("kfJ{n}"))
        .filter(|n| !names.contains(n.as_str()));
    // Path token as written → its local's name and the id its value is kept under.
    let mut locals: BTreeMap<&str, (String, u64)> = BTreeMap::new();
    // Byte ranges to blank out or overwrite, in order.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != SyntaxKind::IMPORT_KW {
            continue;
        }
        let Some(path) = tokens.get(i + 1).filter(|p| {
            matches!(
                p.kind,
                SyntaxKind::STRING_DOUBLE | SyntaxKind::STRING_SINGLE
            )
        }) else {
            continue;
        };
        if tokens
            .get(i + 2)
            .is_some_and(|next| !ENDS_AN_EXPRESSION.contains(&next.kind))
        {
            continue;
        }
        let Some(wanted) = lexer::quoted_string(path.text) else {
            continue;
        };
        let name = match locals.get(path.text) {
            Some((name, _)) => name.clone(),
            None => {
                if !wanted.ends_with(".json") {
                    continue;
                }
                let Some(id) = keep(&wanted) else {
                    continue;
                };
                let Some(name) = fresh.next() else { break };
                locals.insert(path.text, (name.clone(), id));
                name
            }
        };
        edits.push((span(t).0, span(t).1, format!("{name:<6}")));
        let (start, end) = span(path);
        edits.push((start, end, " ".repeat(path.text.chars().count())));
    }
    if locals.is_empty() {
        return None;
    }
    let binds: Vec<String> = locals
        .iter()
        .map(|(path, (name, id))| {
            format!("{name} = std.native('{KEPT_JSON}')({id}, importstr {path})")
        })
        .collect();
    let mut out = format!("local {}; ", binds.join(", "));
    let mut copied = 0;
    for (start, end, text) in edits {
        out.push_str(&source[copied..start]);
        out.push_str(&text);
        copied = end;
    }
    out.push_str(&source[copied..]);
    Some(out)
}

fn span(l: &Lexeme) -> (usize, usize) {
    (l.range.0 as usize, l.range.1 as usize)
}

fn is_trivia(kind: SyntaxKind) -> bool {
    matches!(
        kind,
        SyntaxKind::WHITESPACE
            | SyntaxKind::SINGLE_LINE_SLASH_COMMENT
            | SyntaxKind::SINGLE_LINE_HASH_COMMENT
            | SyntaxKind::MULTI_LINE_COMMENT
    )
}

/// A cheap first look, so that most files are not tokenized: `import`, blanks, a quote,
/// and a `.json"` or `.json'` before the line ends (false positives are sorted out by the
/// tokens).
fn may_import_json(source: &str) -> bool {
    let bytes = source.as_bytes();
    memchr::memmem::find_iter(bytes, b"import").any(|i| {
        let rest = &bytes[i + "import".len()..];
        let blanks = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let Some(&quote @ (b'"' | b'\'')) = rest.get(blanks) else {
            return false;
        };
        let line = &rest[blanks + 1..];
        let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
        memchr::memchr(quote, line).is_some_and(|end| line[..end].ends_with(b".json"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_json_without_duplicates_reads_as_data() {
        for text in [
            "{}",
            "[]",
            "null",
            "5",
            "-0",
            "[1, -0.0, -0e3]",
            r#"{"a": {"b": [1, 2.5e-3, -7, true, null, "\u00e9\ud83d\ude00"]}, "b": {"a": 1}}"#,
            "\n{ \"date\": \"2019-01-02\" }\n",
        ] {
            assert!(reads_as_data(text), "{text}");
        }
    }

    #[test]
    fn what_jsonnet_reads_otherwise_is_left_to_the_engine() {
        for text in [
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 1, "\u0061": 2}"#,
            r#"[{"x": {"k": 1, "k": 1}}]"#,
            "{a: 1}",
            "{\"a\": 1,}",
            "// c\n{}",
            "1e999",
            "",
            "{\"a\": 1} {}",
            "'s'",
            r#"{"url": "http:\/\/x"}"#,
        ] {
            assert!(!reads_as_data(text), "{text}");
        }
    }

    /// What the resolver does, with ids of the test's own.
    fn read(path: &str) -> Option<u64> {
        let (id, text) = match path {
            "a.json" => (7, r#"{"k": 1}"#),
            "b.json" => (8, "[2]"),
            "dup.json" => (9, r#"{"k": 1, "k": 2}"#),
            _ => return None,
        };
        reads_as_data(text).then_some(id)
    }

    #[test]
    fn imports_of_data_files_become_locals_in_place() {
        let source = "// a.json\n{ a: import \"a.json\", b: import 'dup.json', c: importstr 'a.json',\n  d: import 'gone.json', e: (import\n \"a.json\").k, f: [import 'b.json'] }\n";
        let out = with_json_imports_as_data(source, read).expect("a.json is data");
        assert_eq!(
            out,
            "local kfJ0 = std.native('kf.keptJson')(7, importstr \"a.json\"), kfJ1 = std.native('kf.keptJson')(8, importstr 'b.json'); // a.json\n{ a: kfJ0           , b: import 'dup.json', c: importstr 'a.json',\n  d: import 'gone.json', e: (kfJ0  \n         ).k, f: [kfJ1           ] }\n"
        );
        // Lines keep their length but the first, and their number.
        let lengths = |t: &str| t.lines().skip(1).map(str::len).collect::<Vec<_>>();
        assert_eq!(lengths(&out), lengths(source));
    }

    #[test]
    fn what_is_not_a_plain_import_of_data_is_left_alone() {
        for source in [
            "import 'dup.json'",
            // Computed imports, which Jsonnet refuses.
            "import 'a.json' + { x: 1 }",
            "import 'a.json'.k",
            "import 'a.json' { x: 1 }",
            "import 'a.json' in {}",
            // Not an import: a comment, a string, a text block (indented `|||` is text).
            "// import 'a.json'\n'import \"a.json\"'",
            "local doc = |||\n  usage:\n    |||\n  import \"a.json\"\n|||;\ndoc",
            // A source that does not lex.
            "import 'a.json' + 'open",
        ] {
            assert_eq!(with_json_imports_as_data(source, read), None, "{source}");
        }
    }

    #[test]
    fn a_name_the_file_uses_is_not_taken() {
        let out = with_json_imports_as_data("local kfJ0 = 1; [kfJ0, import 'a.json']", read)
            .expect("a.json is data");
        assert!(out.starts_with("local kfJ1 = "), "{out}");
    }
}
