//! Params files that are one plain object literal, read without the Jsonnet engine.
//!
//! ksonnet wrote every module's params.libsonnet as a literal: `{ global: {…}, components:
//! { name: { key: value, … }, … } }`, values strings, numbers, booleans, null, arrays and
//! objects of them. Such a file has the value its text says, so `param set` can check an
//! edit of it by reading the edited entry here instead of parsing and evaluating the whole
//! file (at 5000 components, most of the command's time).
//!
//! The reading is sound, not complete: it answers only for text that jrsonnet reads as the
//! same value, and says "not plain" for anything else — a `local`, an import, a computed
//! key, `+:` or `::`, a method, a text block or verbatim string, an operator, a duplicate
//! field (an error in Jsonnet), a number or escape outside JSON's forms, nesting deeper
//! than [`MAX_DEPTH`]. The caller then evaluates the file with the engine, as before.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::{Map, Value};

use crate::engine::lexer::{Token, TokenKind, is_keyword, quoted_string, tokenize};

/// Deeper nesting is left to the engine, which has its own stack limit.
const MAX_DEPTH: usize = 128;

/// What a plain params file holds at `path` (field names from the top): `None` when the
/// file is not a plain literal and must be evaluated; `Some(None)` when it is and the path
/// is absent (or runs through something that is not an object).
pub fn value_at(text: &str, path: &[&str]) -> Option<Option<Value>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let tokens = tokenize(text).ok()?;
    let mut reader = Reader::new(text, &tokens, &[]);
    if !reader.at_punct(b'{') {
        return None;
    }
    let found = reader.value(Some(path), 0, None)?;
    if reader.next != tokens.len() {
        return None;
    }
    Some(found)
}

/// An object's fields as [`fields_along`] gives them: each name, and the byte range of its
/// value in the text.
pub type Fields = Vec<(String, Range<usize>)>;

/// The fields of each object along `path` in a plain params file, sorted by name, with the
/// byte range in `text` of each field's value, which [`value`] reads: entry 0 is the top object's
/// fields, entry `i` those of the object at `path[..i]`, as far as the path leads through
/// objects. The whole file is checked as [`value_at`] checks it and nothing is built:
/// what a render of one component out of thousands needs, to read only that one's entry.
/// `None` when the file is not a plain literal.
pub fn fields_along(text: &str, path: &[&str]) -> Option<Vec<Fields>> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let offset = text.len() - body.len();
    let tokens = tokenize(body).ok()?;
    let mut reader = Reader::new(body, &tokens, path);
    if !reader.at_punct(b'{') {
        return None;
    }
    reader.value(None, 0, Some(0))?;
    if reader.next != tokens.len() {
        return None;
    }
    Some(
        reader
            .fields
            .into_iter()
            .map(|level| {
                level
                    .into_iter()
                    .map(|(name, r)| (name.into_owned(), r.start + offset..r.end + offset))
                    .collect()
            })
            .collect(),
    )
}

/// One plain value (an object, array, string, number, `true`, `false` or `null`, as
/// [`value_at`] reads them), or `None` when `text` is anything else.
pub fn value(text: &str) -> Option<Value> {
    let tokens = tokenize(text).ok()?;
    let mut reader = Reader::new(text, &tokens, &[]);
    let found = reader.value(Some(&[]), 0, None)?;
    if reader.next != tokens.len() {
        return None;
    }
    found
}

struct Reader<'a> {
    text: &'a str,
    tokens: &'a [Token],
    next: usize,
    /// [`fields_along`]'s path, and the fields found on it, one level per object.
    along: &'a [&'a str],
    fields: Vec<Vec<(Cow<'a, str>, Range<usize>)>>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str, tokens: &'a [Token], along: &'a [&'a str]) -> Self {
        Reader {
            text,
            tokens,
            next: 0,
            along,
            fields: Vec::new(),
        }
    }

    fn peek(&self) -> Option<&'a Token> {
        self.tokens.get(self.next)
    }

    fn token_text(&self, t: &Token) -> &'a str {
        &self.text[t.start..t.end]
    }

    fn at_punct(&self, c: u8) -> bool {
        self.peek()
            .is_some_and(|t| t.kind == TokenKind::Punct && self.text.as_bytes()[t.start] == c)
    }

    fn eat_punct(&mut self, c: u8) -> bool {
        let at = self.at_punct(c);
        if at {
            self.next += 1;
        }
        at
    }

    /// Read one value. `want` is the rest of the path being looked for (`Some(&[])`: this
    /// value itself); the result is `None` for text that is not plain, else `Some` of the
    /// value found on the path, if any. Values off the path are checked, not built.
    /// `level`: this value's place on [`fields_along`]'s path, if it is on it.
    fn value(
        &mut self,
        want: Option<&[&str]>,
        depth: usize,
        level: Option<usize>,
    ) -> Option<Option<Value>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let build = want.is_some_and(<[&str]>::is_empty);
        let t = *self.peek()?;
        // Off the path a scalar is only checked: no string or number is built.
        let scalar = match t.kind {
            TokenKind::Punct if self.at_punct(b'{') => return self.object(want, depth, level),
            TokenKind::Punct if self.at_punct(b'[') => return self.array(build, depth),
            TokenKind::Punct if self.at_punct(b'-') => {
                self.next += 1;
                let n = *self.peek().filter(|n| n.kind == TokenKind::Number)?;
                json_number(&format!("-{}", self.token_text(&n)), build)?
            }
            TokenKind::Number => json_number(self.token_text(&t), build)?,
            TokenKind::Str => {
                let s = quoted_string(self.token_text(&t))?;
                build.then(|| Value::String(s.into_owned()))
            }
            TokenKind::Ident => match self.token_text(&t) {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                "null" => Some(Value::Null),
                _ => return None,
            },
            TokenKind::Punct => return None,
        };
        self.next += 1;
        // A scalar followed by an operator (`1 + 2`, `"a" % x`) is an expression.
        if self
            .peek()
            .is_some_and(|n| n.kind == TokenKind::Punct && !self.at_any(b",}]"))
        {
            return None;
        }
        Some(scalar.filter(|_| build))
    }

    fn at_any(&self, set: &[u8]) -> bool {
        set.iter().any(|c| self.at_punct(*c))
    }

    fn object(
        &mut self,
        want: Option<&[&str]>,
        depth: usize,
        level: Option<usize>,
    ) -> Option<Option<Value>> {
        self.next += 1; // `{`
        if let Some(level) = level {
            // A second object at the same place is a duplicate field: not plain.
            if self.fields.len() != level {
                return None;
            }
            self.fields.push(Vec::new());
        }
        let build = want.is_some_and(<[&str]>::is_empty);
        let mut built = Map::new();
        let mut names: Vec<Cow<'a, str>> = Vec::new();
        let mut found = None;
        while !self.eat_punct(b'}') {
            let name = self.field_name()?;
            // Exactly `:`: `::`, `:::` hide the field and `+:` merges it.
            if !self.eat_punct(b':') || self.at_punct(b':') {
                return None;
            }
            let below = match want {
                Some([first, rest @ ..]) if *first == name.as_ref() => Some(rest),
                Some([]) => Some(&[][..]),
                _ => None,
            };
            let on_path = level.filter(|l| self.along.get(*l) == Some(&name.as_ref()));
            let start = self.peek()?.start;
            let value = self.value(below, depth + 1, on_path.map(|l| l + 1))?;
            if build {
                built.insert(name.to_string(), value?);
            } else if below.is_some() {
                found = value;
            }
            match level {
                Some(level) => {
                    let end = self.tokens[self.next - 1].end;
                    self.fields[level].push((name, start..end));
                }
                None => names.push(name),
            }
            if !self.eat_punct(b',') {
                if !self.eat_punct(b'}') {
                    return None;
                }
                break;
            }
        }
        // A field named twice is an error in Jsonnet (sorting beats hashing 5000 names).
        // The fields along `fields_along`'s path are sorted where they are kept.
        let twice = match level {
            Some(level) => {
                let fields = &mut self.fields[level];
                fields.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                fields.windows(2).any(|w| w[0].0 == w[1].0)
            }
            None => {
                names.sort_unstable();
                names.windows(2).any(|w| w[0] == w[1])
            }
        };
        if twice {
            return None;
        }
        Some(if build {
            Some(Value::Object(built))
        } else {
            found
        })
    }

    fn array(&mut self, build: bool, depth: usize) -> Option<Option<Value>> {
        self.next += 1; // `[`
        let mut items = Vec::new();
        let mut count = 0;
        while !self.eat_punct(b']') {
            // The engine refuses longer arrays; so does kf's render of them.
            count += 1;
            if count > crate::engine::MAX_ARRAY_ITEMS {
                return None;
            }
            let item = self.value(build.then_some(&[][..]), depth + 1, None)?;
            if build {
                items.push(item?);
            }
            if !self.eat_punct(b',') {
                if !self.eat_punct(b']') {
                    return None;
                }
                break;
            }
        }
        Some(build.then_some(Value::Array(items)))
    }

    /// A field name: an identifier that is not a keyword, or a quoted string.
    fn field_name(&mut self) -> Option<Cow<'a, str>> {
        let t = *self.peek()?;
        let name = match t.kind {
            TokenKind::Ident => {
                let name = self.token_text(&t);
                if is_keyword(name) {
                    return None;
                }
                Cow::Borrowed(name)
            }
            TokenKind::Str => quoted_string(self.token_text(&t))?,
            _ => return None,
        };
        self.next += 1;
        Some(name)
    }
}

/// A number written as JSON writes one (`0`, `-12`, `1.5`, `2e3`): Jsonnet reads those as
/// the same double. Other forms (`01`, `1_000`, `1.`) are left to the engine.
/// `Some(None)` when the number is valid but `build` is false.
fn json_number(text: &str, build: bool) -> Option<Option<Value>> {
    // The lexer's number tokens have no sign, and `-` is put in front only for a unary
    // minus, so `is_number_text`'s `+` never arises here.
    if !super::value::is_number_text(text) {
        return None;
    }
    // A double, as the engine holds every number, then JSON as the engine writes it.
    let n: f64 = text.parse().ok().filter(|n: &f64| n.is_finite())?;
    Some(build.then(|| crate::engine::number_to_json(n)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KSONNET: &str = r#"{
  global: {
    // User-defined global parameters; accessible to all component and environments, Ex:
    // replicas: 4,
  },
  components: {
    // Component-level parameters, defined initially from 'ks prototype use ...'
    "tf-job": { name: 'tf-job', replicas: 2, gpus: -1, ratio: 1.5e3, args: ["a", 'b\n'], on: true, none: null, },
    web: { image: "nginx:1.27" },
  },
}
"#;

    #[test]
    fn a_ksonnet_params_file_is_read_along_the_path() {
        let at = |path: &[&str]| value_at(KSONNET, path).expect("plain");
        assert_eq!(at(&["components", "tf-job", "replicas"]), Some(json!(2)));
        assert_eq!(at(&["components", "tf-job", "gpus"]), Some(json!(-1)));
        // Numbers as the engine writes them: 1.5e3 is the integer 1500.
        assert_eq!(at(&["components", "tf-job", "ratio"]), Some(json!(1500)));
        assert_eq!(
            at(&["components", "tf-job", "args"]),
            Some(json!(["a", "b\n"]))
        );
        assert_eq!(
            at(&["components", "web"]),
            Some(json!({"image": "nginx:1.27"}))
        );
        assert_eq!(at(&["global"]), Some(json!({})));
        assert_eq!(at(&["components", "tf-job", "missing"]), None);
        assert_eq!(at(&["components", "web", "image", "deeper"]), None);
    }

    #[test]
    fn anything_but_a_plain_literal_is_left_to_the_engine() {
        for text in [
            r#"local x = 1; { components: { a: { n: x } } }"#,
            r#"{ components: { a: { n: 1 + 1 } } }"#,
            r#"{ components: { a: { n: -1 * 2 } } }"#,
            r#"{ components+: { a: { n: 1 } } }"#,
            r#"{ components:: { a: { n: 1 } } }"#,
            r#"{ components: { a: { n: 1 }, a: { n: 2 } } }"#,
            r#"{ components: { ["a"]: { n: 1 } } }"#,
            r#"{ components: { a: { n: std.extVar("x") } } }"#,
            r#"{ components: { a: { n: import "x.libsonnet" } } }"#,
            r#"{ components: { a: { n: |||
                 text
               ||| } } }"#,
            r#"{ components: { a: { n: @"verbatim" } } }"#,
            r#"{ components: { a: { n: "\q" } } }"#,
            r#"{ components: { a: { n: 01 } } }"#,
            r#"{ components: { a: { n: 1e400 } } }"#,
            r#"{ components: { a: { n: 1_000 } } }"#,
            r#"{ components: { a: { n: +1 } } }"#,
            r#"{ components: { a: { f(x): x } } }"#,
            r#"{ components: { a: { n: [x for x in [1]] } } }"#,
            r#"{ components: { local: { n: 1 } } }"#,
            r#"{ components: { a: { n: 1 } } } + { components+: {} }"#,
            r#"{ components: { a: { n: 1 } }, }, "#,
            r#"{ components: { a: { n: 1 } "#,
            r#"{ , }"#,
            r#"[1, 2]"#,
        ] {
            assert_eq!(value_at(text, &["components", "a", "n"]), None, "{text}");
        }
    }

    #[test]
    fn nesting_past_the_limit_is_left_to_the_engine() {
        let deep = format!("{{ a: {}1{} }}", "[".repeat(500), "]".repeat(500));
        assert_eq!(value_at(&deep, &["a"]), None);
        let fine = format!("{{ a: {}1{} }}", "[".repeat(10), "]".repeat(10));
        assert!(value_at(&fine, &["a"]).is_some());
    }

    #[test]
    fn fields_along_a_path_give_ranges_that_read_as_the_values() {
        let levels = fields_along(KSONNET, &["components"]).expect("plain");
        assert_eq!(levels.len(), 2);
        let names = |l: &[(String, Range<usize>)]| -> Vec<String> {
            l.iter().map(|(n, _)| n.clone()).collect()
        };
        assert_eq!(names(&levels[0]), ["components", "global"]);
        assert_eq!(names(&levels[1]), ["tf-job", "web"]);
        let read = |r: &Range<usize>| value(&KSONNET[r.clone()]);
        assert_eq!(read(&levels[0][1].1), Some(json!({})));
        assert_eq!(read(&levels[1][1].1), Some(json!({"image": "nginx:1.27"})));
        assert_eq!(
            read(&levels[1][0].1),
            value_at(KSONNET, &["components", "tf-job"]).flatten()
        );
        // A path that leaves the objects stops the levels there.
        assert_eq!(fields_along(KSONNET, &["absent", "x"]).unwrap().len(), 1);
        assert_eq!(
            fields_along(KSONNET, &["components", "web", "image"])
                .unwrap()
                .len(),
            3
        );
        // Ranges count the byte-order mark.
        let bom = format!("\u{feff}{KSONNET}");
        let levels = fields_along(&bom, &[]).expect("plain");
        assert_eq!(value(&bom[levels[0][1].1.clone()]), Some(json!({})));
    }

    #[test]
    fn fields_along_refuse_what_value_at_refuses() {
        for text in [
            r#"{ components: { a: 1 }, components: { b: 2 } }"#,
            r#"{ components: { a: 1 + 1 } }"#,
            r#"local x = 1; { components: {} }"#,
        ] {
            assert_eq!(fields_along(text, &["components"]), None, "{text}");
        }
        assert_eq!(value("-1.5"), Some(json!(-1.5)));
        assert_eq!(value("[1, {a: 'b'}]"), Some(json!([1, {"a": "b"}])));
        assert_eq!(value("1 + 1"), None);
        assert_eq!(value("x"), None);
    }
}
