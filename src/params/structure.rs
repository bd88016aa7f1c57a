//! Object literals and their fields, found in a token stream with byte spans, so an edit can
//! replace exactly one field's text and leave every other byte of the file alone.

use crate::engine::lexer::{LexError, Token, TokenKind, line_of, string_value, tokenize};
use crate::engine::limits::MAX_NESTING;

#[derive(Debug, Clone)]
pub struct Field {
    /// The field name; `None` for computed (`[expr]`) names.
    pub key: Option<String>,
    pub start: usize,
    /// `+:` (inherit and extend) rather than `:`.
    pub plus: bool,
    pub method: bool,
    pub value_start: usize,
    pub value_end: usize,
    /// Token index range of the value, for descending into nested objects.
    pub value_tokens: (usize, usize),
    /// Byte offset just past the trailing comma, if there is one.
    pub comma_end: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct ObjectLit {
    pub open: usize,
    pub close: usize,
    pub fields: Vec<Field>,
    pub comprehension: bool,
}

pub struct Document<'a> {
    pub text: &'a str,
    pub tokens: Vec<Token>,
    /// For each bracket token, the index of its partner.
    partner: Vec<Option<usize>>,
}

impl<'a> Document<'a> {
    pub fn parse(text: &'a str) -> Result<Document<'a>, LexError> {
        let tokens = tokenize(text)?;
        let mut partner = vec![None; tokens.len()];
        let mut stack: Vec<(usize, u8)> = Vec::new();
        for (i, t) in tokens.iter().enumerate() {
            if t.kind != TokenKind::Punct {
                continue;
            }
            let c = text.as_bytes()[t.start];
            match c {
                b'{' | b'[' | b'(' => {
                    stack.push((i, c));
                    // Nothing here recurses, but the file is evaluated after an edit, and
                    // the engine refuses this much nesting: say so before editing.
                    if stack.len() > MAX_NESTING {
                        return Err(LexError {
                            line: line_of(text, t.start),
                            message: format!(
                                "brackets nested more than {MAX_NESTING} levels deep, more than kf parses; flatten it or split it into files"
                            ),
                        });
                    }
                }
                b'}' | b']' | b')' => {
                    let want = match c {
                        b'}' => b'{',
                        b']' => b'[',
                        _ => b'(',
                    };
                    match stack.pop() {
                        Some((open, oc)) if oc == want => {
                            partner[open] = Some(i);
                            partner[i] = Some(open);
                        }
                        _ => {
                            return Err(LexError {
                                line: line_of(text, t.start),
                                message: format!("unbalanced '{}'", c as char),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
        if let Some((open, c)) = stack.pop() {
            return Err(LexError {
                line: line_of(text, tokens[open].start),
                message: format!("'{}' is never closed", c as char),
            });
        }
        Ok(Document {
            text,
            tokens,
            partner,
        })
    }

    fn tok_text(&self, i: usize) -> &'a str {
        let t = self.tokens[i];
        &self.text[t.start..t.end]
    }

    fn is_punct(&self, i: usize, p: &str) -> bool {
        i < self.tokens.len() && self.tokens[i].kind == TokenKind::Punct && self.tok_text(i) == p
    }

    /// The object literal that opens at token `open` (which must be `{`).
    pub fn object_at(&self, open: usize) -> Option<ObjectLit> {
        if !self.is_punct(open, "{") {
            return None;
        }
        let close = self.partner[open]?;
        let mut fields = Vec::new();
        let mut comprehension = false;
        let mut seg_start = open + 1;
        let mut i = open + 1;
        while i <= close {
            if i == close || self.is_punct(i, ",") {
                if seg_start < i
                    && let Some(mut f) = self.field(seg_start, i)
                {
                    if i < close {
                        f.comma_end = Some(self.tokens[i].end);
                    }
                    fields.push(f);
                }
                seg_start = i + 1;
                i += 1;
                continue;
            }
            if self.tokens[i].kind == TokenKind::Ident && self.tok_text(i) == "for" {
                comprehension = true;
            }
            i = match self.partner[i] {
                Some(p) if p > i => p + 1,
                _ => i + 1,
            };
        }
        Some(ObjectLit {
            open,
            close,
            fields,
            comprehension,
        })
    }

    /// A field from the tokens `[s, e)` of one comma-separated member, or `None` for locals,
    /// asserts and anything that is not `key: value`.
    fn field(&self, s: usize, e: usize) -> Option<Field> {
        let first = self.tokens[s];
        let (key, mut k) = match first.kind {
            TokenKind::Ident => {
                let name = self.tok_text(s);
                if name == "local" || name == "assert" {
                    return None;
                }
                (Some(name.to_string()), s + 1)
            }
            TokenKind::Str => (Some(string_value(self.tok_text(s))?), s + 1),
            TokenKind::Punct if self.is_punct(s, "[") => (None, self.partner[s]? + 1),
            _ => return None,
        };
        let mut method = false;
        if self.is_punct(k, "(") {
            method = true;
            k = self.partner[k]? + 1;
        }
        let mut plus = false;
        if self.is_punct(k, "+") {
            plus = true;
            k += 1;
        }
        let mut colons = 0;
        while colons < 3 && self.is_punct(k, ":") {
            colons += 1;
            k += 1;
        }
        if colons == 0 || k >= e {
            return None;
        }
        Some(Field {
            key,
            start: first.start,
            plus,
            method,
            value_start: self.tokens[k].start,
            value_end: self.tokens[e - 1].end,
            value_tokens: (k, e),
            comma_end: None,
        })
    }

    /// The object literal a field's value is, when it is exactly one.
    pub fn field_object(&self, field: &Field) -> Option<ObjectLit> {
        let (s, e) = field.value_tokens;
        if self.partner[s] == Some(e - 1) {
            self.object_at(s)
        } else {
            None
        }
    }

    /// Every `{` token, in file order.
    pub fn object_opens(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.tokens.len()).filter(|i| self.is_punct(*i, "{"))
    }

    pub fn open_offset(&self, obj: &ObjectLit) -> usize {
        self.tokens[obj.open].start
    }

    pub fn close_offset(&self, obj: &ObjectLit) -> usize {
        self.tokens[obj.close].start
    }
}

/// The line of the first place in `text` where nested object literals hold the field path
/// `path` (outermost first), e.g. `metadata` → `name`.
pub fn line_of_field_path<'p>(
    text: &str,
    path: impl Iterator<Item = &'p str> + Clone,
) -> Option<usize> {
    let doc = Document::parse(text).ok()?;
    let keys: Vec<&str> = path.collect();
    if keys.is_empty() {
        return None;
    }
    for open in doc.object_opens() {
        let mut obj = doc.object_at(open)?;
        for (depth, key) in keys.iter().enumerate() {
            let Some(field) = obj.fields.iter().find(|f| f.key.as_deref() == Some(*key)) else {
                break;
            };
            if depth + 1 == keys.len() {
                return Some(line_of(text, field.start));
            }
            match doc.field_object(field) {
                Some(inner) => obj = inner,
                None => break,
            }
        }
    }
    None
}
