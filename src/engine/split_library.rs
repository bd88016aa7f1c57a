//! A big library file in the shape ksonnet generated (`lib/ksonnet-lib/<v>/k8s.libsonnet`,
//! 3.7 MB that most real ksonnet apps commit), read as lazily imported parts: every
//! object-literal field of its top-level object and of the fields' objects becomes an
//! import of its own, parsed only when a component reaches it. jrsonnet would otherwise
//! parse the whole file on every render thread (docs/benchmarks.md, "A committed
//! ksonnet-lib").
//!
//! The parts mean what the file means, byte for byte of evaluation:
//! - only a value that is one object literal (`apps:: { … }`) moves, to a part that is
//!   `function(<the locals of the objects around it>) { … }`, called where the literal
//!   was with those names; in a literal `self` and `super` are the literal's own,
//!   wherever it is written;
//! - a file that uses `$` (the outermost object), imports (relative to the importing
//!   file) or `std.thisFile` (its name), each of which would change in a part, is read
//!   whole, as is one that is not a single object;
//! - the names in scope at a moved literal are the locals of the objects around it,
//!   `std`, `self` and `super`: the part binds those locals as parameters (the innermost
//!   of a name, as at the call), so every name resolves as before;
//! - each part keeps its lines and columns (blank lines before it, spaces before its
//!   first line), and an error in a part names the library file (see `super::shown_path`).

use super::lexer::{Token, TokenKind, tokenize};
use super::split_cache;
use std::fmt::Write as _;

/// Files smaller than this are parsed whole: a split saves nothing worth its walk.
pub const MIN_BYTES: usize = 512 * 1024;

/// How deep literals move out (group, version, kind and two levels of its mixins in
/// ksonnet-lib's `apps:: { v1:: { deployment:: { mixin:: { spec:: { … } } } } }`; deeper
/// measured no faster), and the smallest that moves: a component that needs one kind
/// parses that kind, not its group.
const MAX_DEPTH: usize = 5;
const MIN_PART_BYTES: usize = 512;

/// What keeping lines and columns may cost: the blank lines and spaces put before the
/// parts, together, at most this many times the library's size (ksonnet-lib's 839 parts
/// take 3.3 times its 3.7 MB). A file with many literals far down or far right (one long
/// line) would otherwise make parts of gigabytes; it is read whole.
const MAX_PADDING_PER_BYTE: usize = 8;

/// Where the parts of `file` live: `<file>.kf-part/<name>`, names no file has on disk.
pub const PART_MARK: &str = ".kf-part/";

/// An object literal's members, each a range of tokens (without the separating commas);
/// `closing[i]` is the token that closes bracket `i`.
fn members(
    tokens: &[Token],
    text: &str,
    closing: &[usize],
    open: usize,
    close: usize,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = open + 1;
    let mut i = open + 1;
    while i < close {
        match punct(text, &tokens[i]) {
            Some('{' | '[' | '(') => i = closing[i],
            Some(',') => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < close {
        out.push((start, close));
    }
    out
}

fn punct(text: &str, token: &Token) -> Option<char> {
    (token.kind == TokenKind::Punct).then(|| char::from(text.as_bytes()[token.start]))
}

fn word<'a>(text: &'a str, token: &Token) -> Option<&'a str> {
    (token.kind == TokenKind::Ident).then(|| &text[token.start..token.end])
}

/// For each bracket token, the index of the token that closes it.
fn matches(tokens: &[Token], text: &str) -> Option<Vec<usize>> {
    let mut closing = vec![usize::MAX; tokens.len()];
    let mut open: Vec<(usize, char)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match punct(text, t) {
            Some(c @ ('{' | '[' | '(')) => open.push((i, c)),
            Some(c @ ('}' | ']' | ')')) => {
                let (at, o) = open.pop()?;
                if !matches!((o, c), ('{', '}') | ('[', ']') | ('(', ')')) {
                    return None;
                }
                closing[at] = i;
            }
            _ => {}
        }
    }
    open.is_empty().then_some(closing)
}

struct Splitter<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    closing: Vec<usize>,
    /// The offset of every newline of `text`.
    newlines: Vec<usize>,
    /// The library's file name, which the main text imports its parts by.
    file_name: &'a str,
    parts: Vec<(String, usize, String)>,
    /// The part names given so far: a local and a field of one name in one object
    /// (`local a = {…}`, `a:: {…}`) would be one part, and the file is read whole.
    names: std::collections::HashSet<String>,
    /// The blank lines and spaces before the parts so far.
    padding: usize,
    /// Why the file cannot be split after all (a name given twice, too much padding).
    refused: bool,
}

impl Splitter<'_> {
    /// The literal a member `name:: { … }` or `local name = { … }` holds, if the member is
    /// exactly that: (name, the literal's first and last token).
    fn literal_member(&self, (start, end): (usize, usize)) -> Option<(String, usize, usize)> {
        let t = &self.tokens[start..end];
        let (name, open) = match t {
            [n, c1, c2, ..]
                if punct(self.text, c1) == Some(':') && punct(self.text, c2) == Some(':') =>
            {
                let colons = t[1..]
                    .iter()
                    .take_while(|x| punct(self.text, x) == Some(':'))
                    .count();
                (word(self.text, n)?, start + 1 + colons)
            }
            [l, n, eq, ..]
                if word(self.text, l) == Some("local") && punct(self.text, eq) == Some('=') =>
            {
                (word(self.text, n)?, start + 3)
            }
            _ => return None,
        };
        if open >= end || punct(self.text, &self.tokens[open]) != Some('{') {
            return None;
        }
        (self.closing[open] == end - 1).then(|| (name.to_string(), open, end - 1))
    }

    /// Whether the literal from token `open` to `close` moves: big enough, and not on the
    /// file's first line (a part's first line is its `function(…)`, so its literal starts
    /// on the second at the earliest).
    fn movable(&self, open: usize, close: usize) -> bool {
        let start = self.tokens[open].start;
        self.tokens[close].end - start >= MIN_PART_BYTES && self.text[..start].contains('\n')
    }

    /// The names the `local` members of an object bind (`local a = …`, `local f(x) = …`),
    /// or `None` for a local of another form.
    fn locals_of(&self, members: &[(usize, usize)]) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for &(s, e) in members {
            if word(self.text, &self.tokens[s]) != Some("local") {
                continue;
            }
            let name = self.tokens.get(s + 1).and_then(|t| word(self.text, t))?;
            let next = self.tokens.get(s + 2).and_then(|t| punct(self.text, t));
            if !matches!(next, Some('=' | '(')) || e <= s + 3 {
                return None;
            }
            names.push(name.to_string());
        }
        Some(names)
    }

    /// The text of the literal from token `open` to `close`, its own member literals
    /// replaced by imports of parts named `prefix.<member>`; `scope` holds the locals of
    /// the objects around it.
    fn literal(
        &mut self,
        open: usize,
        close: usize,
        prefix: &str,
        depth: usize,
        scope: &[String],
    ) -> String {
        let from = self.tokens[open].start;
        let mut out = String::new();
        let mut at = from;
        let inner = members(&self.tokens, self.text, &self.closing, open, close);
        let own = self.locals_of(&inner);
        if depth < MAX_DEPTH
            && let Some(own) = own
        {
            let mut scope = scope.to_vec();
            for name in own {
                if !scope.contains(&name) {
                    scope.push(name);
                }
            }
            for member in inner {
                let Some((name, o, c)) = self.literal_member(member) else {
                    continue;
                };
                if !self.movable(o, c) {
                    continue;
                }
                let call = self.part(o, c, &format!("{prefix}.{name}"), depth + 1, &scope);
                out.push_str(&self.text[at..self.tokens[o].start]);
                out.push_str(&call);
                at = self.tokens[c].end;
            }
        }
        out.push_str(&self.text[at..self.tokens[close].end]);
        out
    }

    /// The literal from token `open` to `close` moved to a part named `name`; returns the
    /// call that takes its place, as many lines long as the literal was.
    fn part(
        &mut self,
        open: usize,
        close: usize,
        name: &str,
        depth: usize,
        scope: &[String],
    ) -> String {
        let (start, end) = (self.tokens[open].start, self.tokens[close].end);
        // Lines before the literal, and where its line starts (newline offsets, sorted).
        let line = self.newlines.partition_point(|&n| n < start);
        let column = start - line.checked_sub(1).map_or(0, |l| self.newlines[l] + 1);
        self.padding = self.padding.saturating_add(column + line);
        if self.refused
            || !self.names.insert(name.to_string())
            || self.padding > self.text.len().saturating_mul(MAX_PADDING_PER_BYTE)
        {
            self.refused = true;
            return String::new();
        }
        let body = self.literal(open, close, name, depth, scope);
        let mut text = String::with_capacity(body.len() + column + 64);
        if scope.is_empty() {
            text.push('\n');
        } else {
            let _ = writeln!(text, "function({})", scope.join(", "));
        }
        text.push_str(&" ".repeat(column));
        text.push_str(&body);
        self.parts
            .push((name.to_string(), line.saturating_sub(1), text));
        let newlines = self.newlines.partition_point(|&n| n < end) - line;
        let args = if scope.is_empty() {
            String::new()
        } else {
            format!("({})", scope.join(", "))
        };
        // A JSON string is a Jsonnet string: the file's name as it is, whatever it holds.
        let path = serde_json::Value::String(self.import_name(name)).to_string();
        format!("(import {path}){args}{}", "\n".repeat(newlines))
    }

    /// How a file imports part `name`: the main file from beside the folder of parts,
    /// a part from inside it.
    fn import_name(&self, name: &str) -> String {
        match name.split_once('.') {
            Some(_) => name.to_string(),
            None => format!("{}{PART_MARK}{name}", self.file_name),
        }
    }
}

/// `text`, the library named `file_name`, as a main text and parts, if it has the shape.
pub fn split(file_name: &str, text: &str) -> Option<split_cache::Stored> {
    let tokens = tokenize(text).ok()?;
    // `$` names the outermost object, an import's path is relative to the importing
    // file, `std.thisFile` is its name: each would change in a part. `std` is allowed
    // only as `std.<field>` of another field, so that no `std['thisFile']`, `local s =
    // std` or `std.get(std, …)` reaches the name.
    let is = |i: usize, c: char| tokens.get(i).is_some_and(|t| punct(text, t) == Some(c));
    let changes_in_a_part = |i: usize| {
        let t = &tokens[i];
        let std_as_a_value = word(text, t) == Some("std")
            && !(i > 0 && is(i - 1, '.'))
            && !(is(i + 1, '.')
                && tokens
                    .get(i + 2)
                    .and_then(|f| word(text, f))
                    .is_some_and(|f| f != "thisFile"));
        punct(text, t) == Some('$')
            || std_as_a_value
            || matches!(
                word(text, t),
                Some("import" | "importstr" | "importbin" | "thisFile")
            )
    };
    if (0..tokens.len()).any(changes_in_a_part) {
        return None;
    }
    let closing = matches(&tokens, text)?;
    if tokens.first().and_then(|t| punct(text, t)) != Some('{') || closing[0] != tokens.len() - 1 {
        return None;
    }
    let top = members(&tokens, text, &closing, 0, tokens.len() - 1);
    let mut splitter = Splitter {
        text,
        tokens,
        closing,
        newlines: text
            .bytes()
            .enumerate()
            .filter_map(|(i, b)| (b == b'\n').then_some(i))
            .collect(),
        file_name,
        parts: Vec::new(),
        names: Default::default(),
        padding: 0,
        refused: false,
    };
    let scope = splitter.locals_of(&top)?;
    let mut main = String::new();
    let mut at = 0;
    for member in top {
        let Some((name, o, c)) = splitter.literal_member(member) else {
            continue;
        };
        if !splitter.movable(o, c) {
            continue;
        }
        let call = splitter.part(o, c, &name, 1, &scope);
        main.push_str(&text[at..splitter.tokens[o].start]);
        main.push_str(&call);
        at = splitter.tokens[c].end;
    }
    main.push_str(&text[at..]);
    if splitter.refused {
        return None;
    }
    // The part names are Jsonnet field names: a dotted name is a nested part.
    let parts = splitter.parts;
    // Each part is checked here, once, as the resolver checks a file it loads; a part
    // read back from the cache is not checked again.
    let too_deep = |t: &str| super::limits::check_nesting(t.as_bytes()).is_err();
    if parts.is_empty() || parts.iter().any(|(_, _, t)| too_deep(t)) {
        return None;
    }
    Some(split_cache::Stored { main, parts })
}

/// `line` of an error with each part's path shown as its library's (`….libsonnet` for
/// `….libsonnet.kf-part/apps.v1`): the part keeps the library's lines and columns.
pub fn shown_path(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.contains(PART_MARK) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find(PART_MARK) {
        out.push_str(&rest[..at]);
        let after = &rest[at + PART_MARK.len()..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(after.len());
        // A place (`…kf-part/apps.v1:12:5`), not a path the user wrote in an import.
        let mut place = after[name_len..].chars();
        if !(place.next() == Some(':') && place.next().is_some_and(|c| c.is_ascii_digit())) {
            out.push_str(&rest[at..at + PART_MARK.len() + name_len]);
        }
        rest = &after[name_len..];
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A literal's worth of comment: enough bytes for it to move.
    fn filler() -> String {
        format!("// {}\n", "x".repeat(MIN_PART_BYTES))
    }

    fn parts_of(text: &str) -> Option<split_cache::Stored> {
        split("k8s.libsonnet", text)
    }

    fn part<'a>(split: &'a split_cache::Stored, name: &str) -> &'a str {
        &split.parts.iter().find(|(n, _, _)| n == name).unwrap().2
    }

    #[test]
    fn moves_object_literal_fields_with_the_locals_around_them_and_keeps_lines() {
        let f = filler();
        let text = format!(
            "{{\n  a:: {{\n    local v = 1,\n    x:: {{ v: hidden.h + v,\n{f} }},\n{f}    y: 1,\n  }},\n  b: 2,\n  local hidden = {{\n    h:: 3,\n{f}  }},\n}}\n"
        );
        let split = parts_of(&text).expect("the shape");
        assert_eq!(split.main.lines().count(), text.lines().count());
        assert!(
            split
                .main
                .contains("a:: (import \"k8s.libsonnet.kf-part/a\")(hidden)"),
            "{}",
            split.main
        );
        assert!(
            split
                .main
                .contains("local hidden = (import \"k8s.libsonnet.kf-part/hidden\")(hidden)")
        );
        let a = part(&split, "a");
        assert!(a.starts_with("function(hidden)\n"), "{a}");
        assert!(a.contains("x:: (import \"a.x\")(hidden, v)"), "{a}");
        let ax = part(&split, "a.x");
        assert!(
            ax.starts_with("function(hidden, v)\n        { v: hidden.h + v,"),
            "{ax}"
        );
        // After the blank lines and the `function(…)` line, the literal is on its line of
        // the library, the fourth.
        let (_, newlines, _) = split.parts.iter().find(|(n, _, _)| n == "a.x").unwrap();
        assert_eq!(newlines + 2, 4);
    }

    #[test]
    fn reads_whole_what_a_part_could_change() {
        let f = filler();
        assert!(
            parts_of(&format!("{{ a:: {{ b: $.c,\n{f} }}, c: 1 }}")).is_none(),
            "$"
        );
        assert!(
            parts_of(&format!("local x = 1; {{ a:: {{ b: x,\n{f} }} }}")).is_none(),
            "not one object"
        );
        assert!(parts_of("{ a:: { b: 1 } }").is_none(), "too small to move");
        for reads_its_place in ["import 'x.libsonnet'", "importstr 'x'", "std.thisFile"] {
            let text = format!("{{ a:: {{ b: {reads_its_place},\n{f} }} }}");
            assert!(parts_of(&text).is_none(), "{reads_its_place}");
        }
        // `a:: {…} + x` is not one literal: it stays.
        let split = parts_of(&format!(
            "{{ a:: {{ b: 1,\n{f} }} + {{}}, c:: {{\n{f} }} }}"
        ))
        .unwrap();
        assert_eq!(split.parts.len(), 1);
        assert!(split.main.contains("a:: { b: 1"));
    }

    #[test]
    fn a_local_and_a_field_of_one_name_are_read_whole() {
        // Both would be the part `a`: the file is not split.
        let f = filler();
        let text = format!(
            "{{\n  local a = {{ who: 'local',\n{f} }},\n  a:: {{ who: 'field',\n{f} }},\n  b: a.who,\n}}\n"
        );
        assert!(parts_of(&text).is_none());
        let nested =
            format!("{{\n  x:: {{\n    local a = {{\n{f} }},\n    a:: {{\n{f} }},\n  }},\n}}\n");
        assert!(parts_of(&nested).is_none());
    }

    #[test]
    fn the_library_is_imported_by_its_name_as_written() {
        let f = filler();
        let text = format!("{{\n  a:: {{\n{f} }},\n}}\n");
        // A combining accent, a zero-width space, DEL and a quote, in a file's name.
        let name = "e\u{301}\u{200b}\u{7f}\"q.libsonnet";
        let split = split(name, &text).expect("the shape");
        let path = serde_json::to_string(&format!("{name}{PART_MARK}a")).unwrap();
        assert!(
            split.main.contains(&format!("a:: (import {path})")),
            "{}",
            split.main
        );
        assert!(!split.main.contains("\\u{"), "{}", split.main);
    }

    #[test]
    fn a_file_whose_parts_would_need_too_many_blank_lines_or_spaces_is_read_whole() {
        let body = "y".repeat(MIN_PART_BYTES);
        // One long line of literals: each part's spaces would be the line so far.
        let line: String = (0..400)
            .map(|i| format!("f{i}:: {{ a: '{body}' }}, "))
            .collect();
        assert!(parts_of(&format!("{{ {line}x: 1 }}\n")).is_none());
        // Literals far down a file of blank lines: each part's lines would be all before it.
        let many: String = (0..400)
            .map(|i| format!("  f{i}:: {{ a: '{body}' }},\n"))
            .collect();
        let far = format!("{{\n{}{many}  x: 1,\n}}\n", "\n".repeat(200_000));
        assert!(parts_of(&far).is_none());
        // The same literals one to a line, near the top: split.
        assert!(parts_of(&format!("{{\n{many}  x: 1,\n}}\n")).is_some());
    }

    #[test]
    fn error_places_name_the_library() {
        assert_eq!(
            shown_path("    lib/k8s.libsonnet.kf-part/apps.v1:12:5-9: field access"),
            "    lib/k8s.libsonnet:12:5-9: field access"
        );
        assert_eq!(
            shown_path("components/a.jsonnet:1:2"),
            "components/a.jsonnet:1:2"
        );
        // A path written in an import is shown as written.
        let import = "import '../lib/big.libsonnet.kf-part/a' is in none of the folders";
        assert_eq!(shown_path(import), import);
    }
}
