//! What ksonnet 0.13 did to a component file before evaluating it, and real apps were
//! deployed with: it parsed the file with go-jsonnet 0.11 and evaluated its own reprint
//! of the syntax tree (ksonnet/ksonnet-lib ksonnet-gen/printer/printer.go).
//!
//! - A text block (`|||`) is printed as `|||`, newline, its value, newline, `|||`; the
//!   value already ends with a newline, so the evaluated string ends with two. kf does
//!   the same to component files, so `kf show` prints the objects ksonnet printed.
//! - Parentheses are not in go-jsonnet 0.11's tree, so the reprint lost them:
//!   `(a + b) * c` became `a + b * c`. That changed results silently and is not kept: kf
//!   evaluates the file as written and [`paren_differences`] finds where ksonnet's
//!   result would have differed, for a warning.

use crate::params::lexer::{self, Token, TokenKind};

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
