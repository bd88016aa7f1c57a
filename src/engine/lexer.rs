//! A small Jsonnet tokenizer that keeps byte offsets, for editing params files in place.
//!
//! It knows exactly enough of Jsonnet's lexical grammar to never mistake the inside of a
//! string or comment for structure: all four string forms, verbatim strings, text blocks,
//! and the three comment forms.

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

pub fn tokenize(text: &str) -> Result<Vec<Token>, LexError> {
    let bytes = text.as_bytes();
    // About one token per 8 bytes in params files and components: one allocation, not
    // a dozen growing copies of a big file's tokens.
    let mut tokens = Vec::with_capacity(text.len() / 8);
    let mut i = 0;
    let err = |at: usize, message: &str| LexError {
        line: line_of(text, at),
        message: message.to_string(),
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'#' => i = skip_line(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = skip_line(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let close =
                    find(bytes, i + 2, b"*/").ok_or_else(|| err(i, "unterminated /* comment"))?;
                i = close + 2;
            }
            b'"' | b'\'' => {
                let end = quoted_end(bytes, i).ok_or_else(|| err(i, "unterminated string"))?;
                tokens.push(Token {
                    kind: TokenKind::Str,
                    start: i,
                    end,
                });
                i = end;
            }
            b'@' if matches!(bytes.get(i + 1), Some(b'"' | b'\'')) => {
                let end = verbatim_end(bytes, i + 1)
                    .ok_or_else(|| err(i, "unterminated verbatim string"))?;
                tokens.push(Token {
                    kind: TokenKind::Str,
                    start: i,
                    end,
                });
                i = end;
            }
            b'|' if bytes[i..].starts_with(b"|||") => {
                let end = text_block_end(bytes, i)
                    .ok_or_else(|| err(i, "unterminated ||| text block"))?;
                tokens.push(Token {
                    kind: TokenKind::Str,
                    start: i,
                    end,
                });
                i = end;
            }
            b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'0'..=b'9' | b'.' | b'_' => i += 1,
                        b'e' | b'E' => {
                            i += 1;
                            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                                i += 1;
                            }
                        }
                        _ => break,
                    }
                }
                tokens.push(Token {
                    kind: TokenKind::Number,
                    start,
                    end: i,
                });
            }
            c if c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < bytes.len() && (bytes[i] == b'_' || bytes[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                tokens.push(Token {
                    kind: TokenKind::Ident,
                    start,
                    end: i,
                });
            }
            c if c.is_ascii() => {
                tokens.push(Token {
                    kind: TokenKind::Punct,
                    start: i,
                    end: i + 1,
                });
                i += 1;
            }
            _ => {
                // Non-ASCII outside strings and comments is not Jsonnet; keep whole chars.
                let ch_len = text[i..].chars().next().map_or(1, char::len_utf8);
                tokens.push(Token {
                    kind: TokenKind::Punct,
                    start: i,
                    end: i + ch_len,
                });
                i += ch_len;
            }
        }
    }
    Ok(tokens)
}

fn skip_line(bytes: &[u8], i: usize) -> usize {
    match bytes[i..].iter().position(|b| *b == b'\n') {
        Some(p) => i + p + 1,
        None => bytes.len(),
    }
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

fn quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn verbatim_end(bytes: &[u8], quote_at: usize) -> Option<usize> {
    let quote = bytes[quote_at];
    let mut i = quote_at + 1;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return Some(i + 1);
        }
        i += 1;
    }
    None
}

/// Where a text block that opens at `start` ends, by Jsonnet's rule: its first line
/// after the blank ones sets the indentation; every later line that starts with that
/// indentation, or is empty, is text (even one that then reads `|||`); the first other
/// line ends the block and must be blanks and `|||`.
fn text_block_end(bytes: &[u8], start: usize) -> Option<usize> {
    let skip_empty = |mut i: usize| {
        while bytes.get(i) == Some(&b'\n') {
            i += 1;
        }
        i
    };
    let blanks = |i: usize| {
        bytes[i..]
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count()
    };
    let mut line_start = skip_empty(skip_line(bytes, start));
    let indent = &bytes[line_start..line_start + blanks(line_start)];
    if indent.is_empty() {
        return None;
    }
    while bytes[line_start..].starts_with(indent) {
        line_start = skip_empty(skip_line(bytes, line_start));
    }
    let end = line_start + blanks(line_start);
    bytes[end..].starts_with(b"|||").then_some(end + 3)
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
