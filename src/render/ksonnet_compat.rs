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

use crate::params::lexer::{self, Token, TokenKind};

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
    b.iter().enumerate().any(|(i, &c)| {
        c == b'+'
            && b[..i]
                .iter()
                .rev()
                .find(|c| !c.is_ascii_whitespace())
                .is_none_or(|p| BEFORE_UNARY.contains(p) || p.is_ascii_alphabetic())
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
