//! `import "….json"` read as data. Jsonnet parses an imported JSON file as code: a syntax
//! tree for every value, analysed, then evaluated, and kept for the whole render. Real
//! registry packages import large JSON files that way (Kubeflow v0.5's seldon package: a
//! 275 kB pod template schema). Where the file is JSON that `std.parseJson` reads as the
//! same value, the import is evaluated as `std.parseJson(importstr "….json")` instead,
//! which builds the values directly: fewer instructions, and no syntax tree held.
//!
//! The rewrite is of the importing file's text, not of the JSON file's, so `importstr` of
//! the same file still reads its bytes as written. Line numbers do not change; columns
//! after the rewritten import on its own line move right (by 18).

use std::borrow::Cow;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::params::lexer::{self, TokenKind};

/// Whether `std.parseJson(text)` gives the value that evaluating `text` as Jsonnet gives:
/// `text` is strict JSON (no comments or trailing commas, numbers in range, nesting within
/// serde_json's limit), no object has a key twice (an error in a Jsonnet object literal,
/// while `std.parseJson` keeps one), and no number is written `-0` (Jsonnet negates 0 into
/// -0, serde_json reads the integer 0), and no string has the escape `\/` (JSON's, which
/// jrsonnet's lexer refuses). Anything else is left to the engine.
pub fn reads_as_data(text: &str) -> bool {
    let bytes = text.as_bytes();
    !has_negative_zero_integer(bytes)
        && memchr::memmem::find(bytes, b"\\/").is_none()
        && serde_json::from_str::<Checked>(text).is_ok()
}

/// `-0` not followed by a fraction or an exponent, anywhere (in a string too: a false
/// alarm only leaves the file to the engine).
fn has_negative_zero_integer(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"-0")
        .any(|i| !matches!(bytes.get(i + 2), Some(b'.' | b'e' | b'E' | b'0'..=b'9')))
}

/// `source` with each `import "….json"` that `read` finds as data replaced by
/// `std.parseJson(importstr "….json")`; `None` when nothing is replaced. `read` gets the
/// path as written and returns the file's text if it resolves (else the import is left
/// as it is, to fail or succeed as it would). A file that binds `std` to anything of its
/// own is left alone.
pub fn with_json_imports_as_data(
    source: &str,
    read: impl Fn(&str) -> Option<String>,
) -> Option<String> {
    if !may_import_json(source) {
        return None;
    }
    let tokens = lexer::tokenize(source).ok()?;
    let text_of = |i: usize| tokens.get(i).map(|t| &source[t.start..t.end]);
    let std_is_stdlib = tokens.iter().enumerate().all(|(i, t)| {
        t.kind != TokenKind::Ident || text_of(i) != Some("std") || text_of(i + 1) == Some(".")
    });
    if !std_is_stdlib {
        return None;
    }
    let mut out = String::with_capacity(source.len() + 64);
    let mut copied = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Ident || text_of(i) != Some("import") {
            continue;
        }
        let Some(path_token) = tokens.get(i + 1).filter(|p| p.kind == TokenKind::Str) else {
            continue;
        };
        let raw = &source[path_token.start..path_token.end];
        let Some(path) = lexer::quoted_string(raw) else {
            continue;
        };
        if !path.ends_with(".json") || !read(&path).is_some_and(|text| reads_as_data(&text)) {
            continue;
        }
        out.push_str(&source[copied..t.start]);
        out.push_str("std.parseJson(importstr ");
        out.push_str(raw);
        out.push(')');
        copied = path_token.end;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&source[copied..]);
    Some(out)
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

/// Any JSON value, checked for duplicate keys on the way; builds nothing.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

/// An object key, borrowed from the text unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut keys = Vec::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            map.next_value::<Checked>()?;
            keys.push(key);
        }
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(de::Error::custom("duplicate key"));
        }
        Ok(Checked)
    }
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
            "-0.0",
            "-0e3",
            "-05e1x",
            r#"{"a": {"b": [1, 2.5e-3, -7, true, null, "\u00e9\ud83d\ude00"]}, "b": {"a": 1}}"#,
            "\n{ \"date\": \"2019-01-02\" }\n",
        ] {
            assert_eq!(
                reads_as_data(text),
                text != "-05e1x",
                "{text}: strict JSON only"
            );
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
            "-0",
            "[1, -0]",
            "1e999",
            "",
            "{\"a\": 1} {}",
            "'s'",
            r#"{"url": "http:\/\/x"}"#,
        ] {
            assert!(!reads_as_data(text), "{text}");
        }
    }

    #[test]
    fn only_imports_of_data_files_are_rewritten() {
        let read = |path: &str| match path {
            "a.json" => Some(r#"{"k": 1}"#.to_string()),
            "dup.json" => Some(r#"{"k": 1, "k": 2}"#.to_string()),
            _ => None,
        };
        let source = "local a = import \"a.json\";\n{ a: a, b: import 'dup.json', c: importstr 'a.json', d: import 'gone.json' }\n";
        let out = with_json_imports_as_data(source, read).expect("a.json is data");
        assert_eq!(
            out,
            "local a = std.parseJson(importstr \"a.json\");\n{ a: a, b: import 'dup.json', c: importstr 'a.json', d: import 'gone.json' }\n"
        );
        assert_eq!(out.lines().count(), source.lines().count());
        let first = |t: &str| t.lines().next().unwrap_or_default().len();
        assert_eq!(
            first(&out) - first(source),
            18,
            "the shift docs/rendering.md gives"
        );
        assert_eq!(with_json_imports_as_data("import 'dup.json'", read), None);
        // `std` bound to something else: the rewrite would call it.
        assert_eq!(
            with_json_imports_as_data("local std = {}; import 'a.json'", read),
            None
        );
        // In a comment or a string: not an import.
        assert_eq!(
            with_json_imports_as_data("// import 'a.json'\n'import \"a.json\"'", read),
            None
        );
    }
}
