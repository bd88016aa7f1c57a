//! Jsonnet tokens with their byte offsets, for reading and editing files in place (params
//! files, components ksonnet reprinted, libraries read as parts).
//!
//! The tokens come from the engine's own lexer, so that what kf takes for a string, a
//! comment or code is what jrsonnet parses: a reader of its own disagreed at the edges
//! (a `//` comment ended by a lone carriage return, `/* **/`), and an edit made on such a
//! reading could change a field the user did not name.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    Str,
    Number,
    Punct,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LexError {
    pub line: usize,
    pub message: String,
}

pub fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// `text`'s tokens, without spaces and comments, as the engine's own lexer reads them:
/// what is a comment, a string or code here is exactly what jrsonnet parses (a `//`
/// comment ends at a lone carriage return, a text block where Jsonnet's indentation rule
/// says). An operator of several characters (`::`, `+:`, `==`) is one token per character.
pub fn tokenize(text: &str) -> Result<Vec<Token>, LexError> {
    use jrsonnet_lexer::SyntaxKind as K;
    // About one token per 8 bytes in params files and components: one allocation, not
    // a dozen growing copies of a big file's tokens.
    let mut tokens = Vec::with_capacity(text.len() / 8);
    for lexeme in jrsonnet_lexer::Lexer::new(text) {
        let (start, end) = (lexeme.range.0 as usize, lexeme.range.1 as usize);
        let kind = match lexeme.kind {
            K::WHITESPACE
            | K::SINGLE_LINE_SLASH_COMMENT
            | K::SINGLE_LINE_HASH_COMMENT
            | K::MULTI_LINE_COMMENT => continue,
            K::STRING_DOUBLE
            | K::STRING_SINGLE
            | K::STRING_DOUBLE_VERBATIM
            | K::STRING_SINGLE_VERBATIM
            | K::STRING_BLOCK => TokenKind::Str,
            K::FLOAT => TokenKind::Number,
            kind => {
                if let Some(what) = kind.error_description() {
                    return Err(LexError {
                        line: line_of(text, start),
                        message: what.to_string(),
                    });
                }
                if kind == K::LEXING_ERROR {
                    return Err(LexError {
                        line: line_of(text, start),
                        message: format!("unexpected {:?}", lexeme.text),
                    });
                }
                if lexeme
                    .text
                    .starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
                {
                    TokenKind::Ident
                } else {
                    for at in start..end {
                        tokens.push(Token {
                            kind: TokenKind::Punct,
                            start: at,
                            end: at + 1,
                        });
                    }
                    continue;
                }
            }
        };
        tokens.push(Token { kind, start, end });
    }
    Ok(tokens)
}

/// The text of a string token, unescaped; `None` for text blocks (never used as keys).
pub fn string_value(raw: &str) -> Option<String> {
    if let Some(rest) = raw.strip_prefix('@') {
        let quote = rest.chars().next()?;
        let inner = rest.get(1..rest.len().checked_sub(1)?)?;
        let doubled: String = [quote, quote].iter().collect();
        return Some(inner.replace(&doubled, &quote.to_string()));
    }
    if raw.starts_with("|||") {
        return None;
    }
    quoted_string(raw).map(std::borrow::Cow::into_owned)
}

/// A `"…"` or `'…'` string's text, with JSON's escapes (and `\'`) decoded: `None` for any
/// other escape, or a `\u` that is not four hex digits outside the surrogates, which
/// Jsonnet rejects or kf does not decode.
pub fn quoted_string(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    let quote = raw.chars().next().filter(|q| *q == '"' || *q == '\'')?;
    if raw.len() < 2 || !raw.ends_with(quote) {
        return None;
    }
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return Some(std::borrow::Cow::Borrowed(inner));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\'' => out.push('\''),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                if hex.len() != 4 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return None;
                }
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(std::borrow::Cow::Owned(out))
}

/// Jsonnet's keywords: a field with such a name must be written quoted.
pub fn is_keyword(word: &str) -> bool {
    matches!(
        word,
        "assert"
            | "else"
            | "error"
            | "false"
            | "for"
            | "function"
            | "if"
            | "import"
            | "importbin"
            | "importstr"
            | "in"
            | "local"
            | "null"
            | "self"
            | "super"
            | "tailstrict"
            | "then"
            | "true"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The string tokens of `text`, as written.
    fn strings(text: &str) -> Vec<&str> {
        tokenize(text)
            .unwrap()
            .iter()
            .filter(|t| t.kind == TokenKind::Str)
            .map(|t| &text[t.start..t.end])
            .collect()
    }

    #[test]
    fn a_text_block_ends_at_the_first_line_less_indented_than_its_first() {
        // A line that keeps the indentation is text, `|||` and all (Jsonnet's rule).
        let text = "{\n  s: |||\n    hello\n    |||,\n    a: 1,\n  |||,\n  b: 2,\n}\n";
        assert_eq!(
            strings(text),
            ["|||\n    hello\n    |||,\n    a: 1,\n  |||"]
        );
        // Empty lines, before the first line and within, are text.
        let text = "x: |||\n\n  a\n\n  b\n|||\n";
        assert_eq!(strings(text), ["|||\n\n  a\n\n  b\n|||"]);
        // Tabs indent as spaces do; the end may be indented less than the text.
        let text = "|||\n\t\ta\n\t|||";
        assert_eq!(strings(text), [text]);
    }

    #[test]
    fn a_text_block_that_jsonnet_would_refuse_is_an_error() {
        for text in [
            "|||\nno indentation\n|||\n",
            "|||\n    a\n  b\n|||\n",
            "|||\n    a\n",
        ] {
            let e = tokenize(text).unwrap_err();
            assert!(e.message.contains("text block"), "{text:?}: {}", e.message);
        }
    }
}
