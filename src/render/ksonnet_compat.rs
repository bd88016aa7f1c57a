//! What ksonnet 0.13's engine accepted and did, that real apps were deployed with.
//!
//! - go-jsonnet 0.11 took unary `+` on any value as the value itself
//!   (`step_name: + template.name`); jrsonnet rejects it on strings. kf drops such a `+`
//!   in every file it evaluates.
//!
//! ksonnet parsed each component file with go-jsonnet 0.11 and evaluated its own reprint
//! of the syntax tree (ksonnet/ksonnet-lib ksonnet-gen/printer/printer.go):
//!
//! - A text block (`|||`) is printed as `|||`, newline, its value, newline, `|||`; the
//!   value already ends with a newline, so the evaluated string ends with two. kf does
//!   the same to component files, so `kf show` prints the objects ksonnet printed.
//! - Parentheses are not in go-jsonnet 0.11's tree, so the reprint lost them:
//!   `(a + b) * c` became `a + b * c`. That changed results silently and is not kept: kf
//!   evaluates the file as written and [`paren_differences`] finds where ksonnet's
//!   result would have differed, for a warning.

use serde_json::Value;

use crate::app::{App, ComponentFormat};
use crate::engine::lexer::{self, Token, TokenKind};

use super::{RenderOptions, RenderedObject};

/// The source kf evaluates for a file ksonnet would have read: unary `+` dropped, and for
/// a component file, text blocks as ksonnet's reprint gave them. `None` when unchanged.
pub fn as_ksonnet_evaluated(source: &str, component: bool) -> Option<String> {
    let plus = may_have_unary_plus(source);
    let block = component && source.contains("|||");
    if !plus && !block {
        return None;
    }
    let tokens = lexer::tokenize(source).ok()?;
    let mut text = source.to_string();
    if plus {
        text = without_unary_plus(&text, &tokens);
    }
    if block {
        text = as_reprinted(&text);
    }
    (text != source).then_some(text)
}

/// Bytes that may come right before a unary operator (after blanks).
const BEFORE_UNARY: &[u8] = b"([{,:;=+-*/%<>!&|^~?";
/// Keywords after which an operator is unary.
const KEYWORDS_BEFORE_UNARY: &[&str] = &[
    "if", "then", "else", "in", "assert", "error", "return", "local",
];

/// A cheap first look, so that most files are not tokenized: a `+` after an operator or
/// an opening bracket, or at the start (false positives are sorted out by the tokens).
fn may_have_unary_plus(source: &str) -> bool {
    let b = source.as_bytes();
    memchr::memchr_iter(b'+', b).any(|i| {
        let before = b[..i].trim_ascii_end();
        match before.last() {
            None => true,
            Some(p) if BEFORE_UNARY.contains(p) => true,
            // After a word, only a keyword makes it unary (`then + x`); `a + b` is binary,
            // and reading the word here keeps ordinary files from being tokenized.
            Some(p) if p.is_ascii_alphanumeric() || *p == b'_' => {
                let start = before
                    .iter()
                    .rposition(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                    .map_or(0, |k| k + 1);
                std::str::from_utf8(&before[start..])
                    .is_ok_and(|w| KEYWORDS_BEFORE_UNARY.contains(&w))
            }
            Some(_) => false,
        }
    })
}

/// Every unary `+` replaced by a blank (so every line and column stays where it was).
fn without_unary_plus(source: &str, tokens: &[Token]) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for (k, t) in tokens.iter().enumerate() {
        if t.kind != TokenKind::Punct || &source[t.start..t.end] != "+" {
            continue;
        }
        let unary = match k.checked_sub(1).map(|p| &tokens[p]) {
            None => true,
            Some(prev) => {
                let text = &source[prev.start..prev.end];
                match prev.kind {
                    TokenKind::Punct => text
                        .as_bytes()
                        .first()
                        .is_some_and(|c| BEFORE_UNARY.contains(c)),
                    TokenKind::Ident => KEYWORDS_BEFORE_UNARY.contains(&text),
                    _ => false,
                }
            }
        };
        // `a +: b` and `a +:: b` are binary (`+:` after a field name), so is `1 + 2`.
        if unary {
            bytes[t.start] = b' ';
        }
    }
    String::from_utf8(bytes).unwrap_or_else(|_| source.to_string())
}

/// A component's source as ksonnet's reprint evaluates it (text blocks gain a trailing
/// newline), with every line where it was: `|||…|||` becomes `(|||…||| + "\n")`.
pub fn as_reprinted(source: &str) -> String {
    let Ok(tokens) = lexer::tokenize(source) else {
        return source.to_string();
    };
    let mut out = String::with_capacity(source.len() + 16);
    let mut at = 0;
    for t in tokens.iter().filter(|t| is_text_block(source, t)) {
        out.push_str(&source[at..t.start]);
        out.push('(');
        out.push_str(&source[t.start..t.end]);
        out.push_str(" + \"\\n\")");
        at = t.end;
    }
    out.push_str(&source[at..]);
    out
}

fn is_text_block(source: &str, t: &Token) -> bool {
    // `|||-` (no final newline) is newer than go-jsonnet 0.11: ksonnet could not parse it,
    // so there is nothing to be compatible with.
    t.kind == TokenKind::Str
        && source[t.start..].starts_with("|||")
        && !source[t.start..].starts_with("|||-")
}

/// Binding strength of a binary operator (Jsonnet's table; higher binds tighter).
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "*" | "/" | "%" => 12,
        "+" | "-" => 11,
        "<<" | ">>" => 10,
        "<" | "<=" | ">" | ">=" | "in" => 9,
        "==" | "!=" => 8,
        "&" => 7,
        "^" => 6,
        "|" => 5,
        "&&" => 4,
        "||" => 3,
        _ => return None,
    })
}

/// Tokens with the two-character operators joined: (text, start, kind).
fn joined<'s>(source: &'s str, tokens: &[Token]) -> Vec<(&'s str, usize, TokenKind)> {
    let mut out: Vec<(&str, usize, TokenKind)> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        if t.kind == TokenKind::Punct
            && let Some(n) = tokens.get(i + 1)
            && n.kind == TokenKind::Punct
            && n.start == t.end
            && matches!(
                &source[t.start..n.end],
                "==" | "!=" | "<=" | ">=" | "&&" | "||" | "<<" | ">>"
            )
        {
            out.push((&source[t.start..n.end], t.start, TokenKind::Punct));
            i += 2;
            continue;
        }
        out.push((&source[t.start..t.end], t.start, t.kind));
        i += 1;
    }
    out
}

/// Parentheses whose loss changes how the expression parses: `(`…`)` that is not a call
/// or a parameter list, around a binary operator that binds looser than the operator next
/// to it (`(a + b) * c`, `a - (b - c)`, `-(a + b)`, `(a + b).x`), or around an `if`,
/// `function`, `local` or `error` that something follows (`[x] + (if c then [y] else
/// []) + [z]`). Byte offsets of the `(` and the `)`.
pub fn grouping_parens_that_matter(source: &str) -> Vec<(usize, usize)> {
    let Ok(raw) = lexer::tokenize(source) else {
        return Vec::new();
    };
    let tokens = joined(source, &raw);
    let ends_operand = |k: usize| {
        tokens.get(k).is_some_and(|(t, _, kind)| {
            matches!(kind, TokenKind::Str | TokenKind::Number)
                || (*kind == TokenKind::Ident && precedence(t).is_none())
                || matches!(*t, ")" | "]" | "}")
        })
    };
    let mut out = Vec::new();
    for (i, (t, start, kind)) in tokens.iter().enumerate() {
        if *kind != TokenKind::Punct || *t != "(" {
            continue;
        }
        let prev = i.checked_sub(1).map(|p| tokens[p]);
        let call_or_params = prev.is_some_and(|(p, _, k)| {
            (k == TokenKind::Ident
                && !matches!(
                    p,
                    "if" | "then" | "else" | "in" | "return" | "error" | "assert"
                ))
                || matches!(p, ")" | "]" | "}")
                || k == TokenKind::Str
        });
        if call_or_params {
            continue;
        }
        // The inside: its loosest binary operator at its own top level, or 0 for a
        // keyword expression (which reaches as far right as it can).
        let mut depth = 0usize;
        let mut close = None;
        let mut loosest: Option<u8> = None;
        for (j, &(u, _, k)) in tokens.iter().enumerate().skip(i + 1) {
            match u {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" if depth == 0 => {
                    close = (u == ")").then_some(j);
                    break;
                }
                ")" | "]" | "}" => depth -= 1,
                "if" | "function" | "local" | "error" | "assert"
                    if depth == 0 && j == i + 1 && k == TokenKind::Ident =>
                {
                    loosest = Some(0)
                }
                _ if depth == 0 && ends_operand(j - 1) && j > i + 1 => {
                    if let Some(p) = precedence(u) {
                        loosest = Some(loosest.map_or(p, |l| l.min(p)));
                    }
                }
                _ => {}
            }
        }
        let (Some(j), Some(inner)) = (close, loosest) else {
            continue;
        };
        // Outside: a binary operator before (or a unary one, which binds tightest) and a
        // binary operator or a postfix `.`/`[`/`(` after.
        let before = prev.and_then(|(p, _, _)| {
            let binary = i >= 2 && ends_operand(i - 2);
            match (precedence(p), p) {
                (Some(prec), _) if binary => Some(prec),
                (_, "-" | "!" | "~" | "+") if !binary => Some(13),
                _ => None,
            }
        });
        let after = tokens.get(j + 1).and_then(|(n, _, _)| match *n {
            "." | "[" | "(" => Some(14),
            n => precedence(n),
        });
        let matters = if inner == 0 {
            after.is_some()
        } else {
            before.is_some_and(|b| b >= inner) || after.is_some_and(|a| a > inner)
        };
        if matters {
            out.push((*start, tokens[j].1));
        }
    }
    out
}

/// One warning per parenthesised expression of a rendered component whose loss made
/// ksonnet 0.13 render different objects: the file:line, and what ksonnet printed instead.
/// kf's own output is unaffected; this is the migration aid for apps deployed with
/// ksonnet's results.
pub fn paren_warnings(
    app: &App,
    env: &str,
    options: &RenderOptions,
    rendered: &[RenderedObject],
) -> Vec<String> {
    // Objects are sorted by kind, so one component's objects need not be adjacent.
    let names: std::collections::BTreeSet<&str> =
        rendered.iter().map(|o| o.component.as_str()).collect();
    // A few components (`-c`) are found at their paths; more, in one listing of
    // components/ (not one listing per component).
    let listed = names.len() > 16;
    let all = if listed {
        app.components().unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut warnings = Vec::new();
    for name in names {
        let component = if listed {
            crate::app::find_component(&all, name).cloned()
        } else {
            app.component_by_path(name)
        };
        let Ok(component) = component else {
            continue;
        };
        if component.format != ComponentFormat::Jsonnet {
            continue;
        }
        let Ok(source) = app.read_text(&component.path) else {
            continue;
        };
        let sites = grouping_parens_that_matter(&source);
        if sites.is_empty() {
            continue;
        }
        let Ok(canonical) = component.path.canonicalize() else {
            continue;
        };
        let mine = || rendered.iter().filter(|o| o.component == name);
        // Objects whose text the render made keep only what orders them: render the
        // component again for the whole objects.
        let ours: Vec<Value> = if mine().any(RenderedObject::has_document) {
            let mut opts = options.clone();
            opts.components = vec![name.to_string()];
            opts.documents = None;
            let Ok(again) = super::render(app, env, &opts) else {
                continue;
            };
            again.into_iter().map(|o| Value::Object(o.object)).collect()
        } else {
            mine().map(|o| Value::Object(o.object.clone())).collect()
        };
        for (open, close) in sites {
            let mut variant = source.clone().into_bytes();
            variant[open] = b' ';
            variant[close] = b' ';
            let Ok(variant) = String::from_utf8(variant) else {
                continue;
            };
            let mut opts = options.clone();
            opts.components = vec![name.to_string()];
            opts.documents = None;
            opts.overlay.retain(|(p, _)| p != &canonical);
            opts.overlay.push((canonical.clone(), variant));
            let Ok(theirs) = super::render(app, env, &opts) else {
                continue;
            };
            let theirs: Vec<Value> = theirs
                .into_iter()
                .map(|o| Value::Object(o.object))
                .collect();
            if theirs != ours {
                let line = lexer::line_of(&source, open);
                let what = first_difference(&Value::Array(ours.clone()), &Value::Array(theirs), "")
                    .map(|(path, a, b)| format!("{path}: {b} instead of {a}"))
                    .unwrap_or_else(|| "different objects".into());
                warnings.push(format!(
                    "{}:{line}: ksonnet 0.13 dropped these parentheses before evaluating, and rendered component '{name}' differently ({what}); kf renders the file as written",
                    super::rel(app, &component.path)
                ));
            }
        }
    }
    warnings
}

/// Probes per render at most: each renders the environment again.
const MAX_OBJECT_HAS_PROBES: usize = 8;

/// One warning per call site where `std.objectHas` answered `true` as ksonnet 0.13's
/// engine did and today's Jsonnet would not (see `engine/stdlib.rs`), found by rendering
/// again as probes ([`crate::engine::probe_ksonnet_answer`]) only when the render just
/// done gave such answers. Call right after that render.
pub fn object_has_warnings(app: &App, env: &str, options: &RenderOptions) -> Vec<String> {
    let answers = crate::engine::take_ksonnet_answers();
    // Answer n must be the same call on every probe: one thread evaluates.
    let options = RenderOptions {
        workers: 1,
        documents: None,
        ..options.clone()
    };
    for n in 0..answers.min(MAX_OBJECT_HAS_PROBES) {
        if !crate::engine::probe_ksonnet_answer(n, || super::render(app, env, &options)) {
            break;
        }
    }
    crate::engine::take_probed_sites(&app.root)
        .into_iter()
        .map(|(file, line, field)| {
            format!(
                "{file}:{line}: std.objectHas(…, '{field}') answered true, as ksonnet 0.13 did: the field is defined with `:` over a hidden `::` one, which today's Jsonnet counts as hidden (false); write std.objectHasAll to get this answer from every Jsonnet tool"
            )
        })
        .collect()
}

/// The first place two values differ: (JSON pointer, ours, theirs), values shortened.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<(String, String, String)> {
    let short = |v: &Value| {
        let s = v.to_string();
        if s.chars().count() > 60 {
            format!("{}…", s.chars().take(60).collect::<String>())
        } else {
            s
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let p = format!("{path}/{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) if u != v => return first_difference(u, v, &p),
                    (Some(u), None) => return Some((p, short(u), "nothing".into())),
                    (None, Some(v)) => return Some((p, "nothing".into(), short(v))),
                    _ => {}
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (u, v))| u != v)
            .and_then(|(i, (u, v))| first_difference(u, v, &format!("{path}/{i}"))),
        _ if a != b => Some((
            if path.is_empty() {
                "/".into()
            } else {
                path.into()
            },
            short(a),
            short(b),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unary_plus_is_dropped_where_go_jsonnet_took_it_as_identity() {
        let src =
            "{ step_name: + t.name, a: 1 + 2, b+: { c: -+x }, d: [+1], e: if x then +y else 0 }";
        let out = as_ksonnet_evaluated(src, false).unwrap();
        assert_eq!(
            out,
            "{ step_name:   t.name, a: 1 + 2, b+: { c: - x }, d: [ 1], e: if x then  y else 0 }"
        );
        assert_eq!(
            as_ksonnet_evaluated("{ a: 'x' + 'y', s: '+' }", false),
            None
        );
        assert_eq!(as_ksonnet_evaluated("// a: + b\n{}", false), None);
        // Binary `+` after a word is not even a candidate, so such files are not tokenized.
        assert!(!may_have_unary_plus(
            "{ a: self + x, b: 'x' + y, c: a_1 + 2 }"
        ));
        assert!(may_have_unary_plus("{ a: if c then + x else 1 }"));
    }

    #[test]
    fn only_grouping_parens_that_can_change_a_result_are_candidates() {
        let src = "local f(x) = x;\n{ a: (1 + 2) * 3, b: f(1 + 2), c: (import 'x').y, d: ['x'] + (if c then ['y'] else []) + ['z'], e: (1 + 2), g: (a).b, h: 1 + (2 * 3), i: x - (y - z), j: -(p + q), k: (m + n).o, l: 'a' + (if c then 'b' else 'c'), m: (a == b) && c }";
        let sites = grouping_parens_that_matter(src);
        let texts: Vec<&str> = sites.iter().map(|(o, c)| &src[*o..=*c]).collect();
        assert_eq!(
            texts,
            [
                "(1 + 2)",
                "(if c then ['y'] else [])",
                "(y - z)",
                "(p + q)",
                "(m + n)"
            ]
        );
    }

    #[test]
    fn text_blocks_gain_the_newline_ksonnets_reprint_added() {
        let src = "{\n  a: |||\n    x\n  |||,\n  b: '|||',\n  // |||\n}\n";
        let out = as_reprinted(src);
        assert_eq!(
            out,
            "{\n  a: (|||\n    x\n  ||| + \"\\n\"),\n  b: '|||',\n  // |||\n}\n"
        );
        assert_eq!(out.lines().count(), src.lines().count());
        assert_eq!(as_reprinted("|||-\n  x\n|||"), "|||-\n  x\n|||");
    }
}
