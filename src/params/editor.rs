//! Format-preserving edits of params files.
//!
//! ksonnet re-printed the whole file on every `param set`, losing comments and layout.
//! kf changes only the text of the one field being set or removed: every other byte of the
//! file stays as it was, including values that are Jsonnet expressions.

use super::structure::{Document, Field, ObjectLit};
use super::value::render_key;
use crate::engine::lexer::{LexError, line_of};

const INDENT: &str = "  ";

/// The deepest key an edit writes (`a.b.c` is 3): each new level is a line indented one
/// more step, so the text an edit makes grows with the square of the depth.
pub const MAX_KEY_DEPTH: usize = 128;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum EditError {
    #[error(
        "{file}:{line}:{column}: the file does not parse as Jsonnet ({message}); kf edits only a file it can read whole. Fix it there, then run the command again; nothing was written"
    )]
    Unparsed {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}:{}: {}", .error.line, .error.message)]
    Syntax { file: String, error: LexError },
    #[error("{file}: {what}")]
    Shape { file: String, what: String },
    #[error(
        "{file}: the edit would make the file {bytes} bytes, more than the {cap} kf reads back; nothing was written. Keep large data in a file of its own and import it"
    )]
    TooLarge {
        file: String,
        bytes: usize,
        cap: u64,
    },
    #[error(
        "param key with {depth} levels: kf sets keys at most {MAX_KEY_DEPTH} levels deep; nothing was written"
    )]
    TooDeep { depth: usize },
    #[error("{file}: {path} is not set{hint}")]
    NotSet {
        file: String,
        path: String,
        hint: String,
    },
    #[error(
        "{file}:{line}: {path} is a Jsonnet expression, not an object literal; kf cannot set a key inside it"
    )]
    NotAnObject {
        file: String,
        line: usize,
        path: String,
    },
}

/// Where in the file the key path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// The object literal that is the value of the first `components` field
    /// (components/params.libsonnet, and env params' `components+: { … }`).
    Components,
    /// The object literal that is the value of the first `global` field.
    Global,
    /// The file's outermost object literal (env globals.libsonnet).
    TopLevel,
}

/// How new intermediate objects are written: `key: {` in a module params file, `key+: {`
/// in an environment, where they must extend the inherited value rather than replace it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inherit {
    Replace,
    Extend,
}

pub struct ParamsFile<'a> {
    name: &'a str,
    doc: Document<'a>,
}

struct Splice {
    start: usize,
    end: usize,
    text: String,
}

impl<'a> ParamsFile<'a> {
    /// No nesting check of the whole text here: the structure is found without recursion
    /// (brackets are paired on a stack, which refuses kf's bracket limit), and what reads
    /// the edited file after it is depth-limited itself (params/literal.rs) or checks
    /// nesting before parsing (the engine).
    ///
    /// The text must parse as Jsonnet first (`syntax::parses`): the bracket pairing finds
    /// fields exactly only in text that does, so nothing is edited that did not parse.
    pub fn parse(name: &'a str, text: &'a str) -> Result<ParamsFile<'a>, EditError> {
        super::syntax::parses(name, text).map_err(|e| EditError::Unparsed {
            file: name.to_string(),
            line: e.line,
            column: e.column,
            message: e.message,
        })?;
        let doc = Document::parse(text).map_err(|error| EditError::Syntax {
            file: name.to_string(),
            error,
        })?;
        Ok(ParamsFile { name, doc })
    }

    fn shape(&self, what: impl Into<String>) -> EditError {
        EditError::Shape {
            file: self.name.to_string(),
            what: what.into(),
        }
    }

    fn root(&self, root: Root) -> Result<ObjectLit, EditError> {
        let key = match root {
            Root::TopLevel => {
                return self
                    .doc
                    .object_opens()
                    .next()
                    .and_then(|o| self.doc.object_at(o))
                    .ok_or_else(|| self.shape("no object literal found"));
            }
            Root::Components => "components",
            Root::Global => "global",
        };
        for open in self.doc.object_opens() {
            let Some(obj) = self.doc.object_at(open) else {
                continue;
            };
            for f in &obj.fields {
                if f.key.as_deref() == Some(key)
                    && let Some(inner) = self.doc.field_object(f)
                    && !inner.comprehension
                {
                    return Ok(inner);
                }
            }
        }
        Err(self.shape(format!(
            "no `{key}: {{ … }}` object found; is this a ksonnet params file?"
        )))
    }

    /// Follow `path` from `root`; returns the deepest object reached, the fields walked, and
    /// how many path segments were found.
    fn walk(&self, root: ObjectLit, path: &[String]) -> Result<Walk, EditError> {
        let mut obj = root;
        let mut fields = Vec::new();
        for (depth, key) in path.iter().enumerate() {
            let found = obj
                .fields
                .iter()
                .rev()
                .find(|f| f.key.as_deref() == Some(key.as_str()) && !f.method)
                .cloned();
            let Some(field) = found else {
                return Ok(Walk {
                    obj,
                    fields,
                    found: depth,
                });
            };
            if depth + 1 == path.len() {
                fields.push((obj, field));
                return Ok(Walk {
                    obj: fields
                        .last()
                        .map(|(o, _)| o.clone())
                        .unwrap_or_else(|| unreachable!()),
                    fields,
                    found: path.len(),
                });
            }
            let inner = self
                .doc
                .field_object(&field)
                .ok_or_else(|| EditError::NotAnObject {
                    file: self.name.to_string(),
                    line: line_of(self.doc.text, field.start),
                    path: path[..=depth].join("."),
                })?;
            fields.push((obj, field));
            obj = inner;
        }
        Ok(Walk {
            obj,
            fields,
            found: path.len(),
        })
    }

    /// Set `path` to `value` (Jsonnet source text). Returns the new file text.
    pub fn set(
        &self,
        root: Root,
        path: &[String],
        value: &str,
        inherit: Inherit,
    ) -> Result<String, EditError> {
        assert!(!path.is_empty(), "a params path has at least one key");
        if path.len() > MAX_KEY_DEPTH {
            return Err(EditError::TooDeep { depth: path.len() });
        }
        let root_obj = self.root(root)?;
        let walk = self.walk(root_obj, path)?;
        if walk.found == path.len() {
            let (_, field) = walk.fields.last().unwrap_or_else(|| unreachable!());
            let value = keep_quote_style(&self.doc.text[field.value_start..field.value_end], value);
            return self.apply(Splice {
                start: field.value_start,
                end: field.value_end,
                text: value,
            });
        }
        let missing = &path[walk.found..];
        self.apply(self.insert(&walk.obj, missing, value, inherit))
    }

    /// Like [`ParamsFile::set`] for a multi-line value written with a two-space base
    /// indentation: its continuation lines are re-indented to sit under the new field.
    pub fn set_block(
        &self,
        root: Root,
        path: &[String],
        block: &str,
        inherit: Inherit,
    ) -> Result<String, EditError> {
        let root_obj = self.root(root)?;
        let walk = self.walk(root_obj, path)?;
        let depth_indent = |obj: &ObjectLit| -> String {
            let text = self.doc.text;
            match obj.fields.last() {
                Some(f) if starts_line(text, f.start) => {
                    text[line_start(text, f.start)..f.start].to_string()
                }
                _ => format!("{}{INDENT}", indentation(text, self.doc.close_offset(obj))),
            }
        };
        let mut indent = depth_indent(&walk.obj);
        for _ in walk.found + 1..path.len() {
            indent.push_str(INDENT);
        }
        let value: String = block
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if i == 0 {
                    l.to_string()
                } else {
                    format!("{indent}{l}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        self.set(root, path, &value, inherit)
    }

    /// Remove `path`. Objects that the removal leaves empty are removed too, up to (not
    /// including) the root, when `prune_empty` is set (environment override blocks).
    pub fn unset(
        &self,
        root: Root,
        path: &[String],
        prune_empty: bool,
    ) -> Result<String, EditError> {
        let root_obj = self.root(root)?;
        let walk = self.walk(root_obj, path)?;
        if walk.found < path.len() {
            return Err(EditError::NotSet {
                file: self.name.to_string(),
                path: path.join("."),
                hint: String::new(),
            });
        }
        let mut idx = walk.fields.len() - 1;
        if prune_empty {
            while idx > 0 {
                let (parent, _) = &walk.fields[idx];
                if parent.fields.len() == 1
                    && self.only_whitespace_besides(parent, &walk.fields[idx].1)
                {
                    idx -= 1;
                } else {
                    break;
                }
            }
        }
        let (_, field) = &walk.fields[idx];
        self.apply(self.removal(field))
    }

    /// Keys present directly under `path` (for listing and error hints).
    pub fn keys_at(&self, root: Root, path: &[String]) -> Result<Vec<String>, EditError> {
        let root_obj = self.root(root)?;
        let walk = self.walk(root_obj.clone(), path)?;
        let obj = if path.is_empty() {
            root_obj
        } else if walk.found == path.len() {
            let (_, f) = walk.fields.last().unwrap_or_else(|| unreachable!());
            match self.doc.field_object(f) {
                Some(o) => o,
                None => return Ok(Vec::new()),
            }
        } else {
            return Ok(Vec::new());
        };
        Ok(obj.fields.iter().filter_map(|f| f.key.clone()).collect())
    }

    fn only_whitespace_besides(&self, obj: &ObjectLit, field: &Field) -> bool {
        let inner_start = self.doc.tokens[obj.open].end;
        let inner_end = self.doc.close_offset(obj);
        let field_end = field.comma_end.unwrap_or(field.value_end);
        self.doc.text[inner_start..field.start].trim().is_empty()
            && self.doc.text[field_end..inner_end].trim().is_empty()
    }

    /// The text with the splice made; never more than kf reads back (a file over the
    /// read cap would make every later command refuse the app).
    fn apply(&self, s: Splice) -> Result<String, EditError> {
        let t = self.doc.text;
        let bytes = t.len() - (s.end - s.start) + s.text.len();
        let cap = crate::sandbox::RENDER_FILE_CAP;
        if bytes as u64 > cap {
            return Err(EditError::TooLarge {
                file: self.name.to_string(),
                bytes,
                cap,
            });
        }
        let mut out = String::with_capacity(bytes);
        out.push_str(&t[..s.start]);
        out.push_str(&s.text);
        out.push_str(&t[s.end..]);
        Ok(out)
    }

    /// Text that inserts `path: value` (nesting new objects as needed) into `obj`.
    fn insert(&self, obj: &ObjectLit, path: &[String], value: &str, inherit: Inherit) -> Splice {
        let text = self.doc.text;
        let open = self.doc.open_offset(obj);
        let close = self.doc.close_offset(obj);
        let close_line_start = line_start(text, close);
        let close_first_on_line = text[close_line_start..close].trim().is_empty();
        let multi_line = text[open..close].contains('\n');

        if let Some(last) = obj.fields.last() {
            let indent = if starts_line(text, last.start) {
                text[line_start(text, last.start)..last.start].to_string()
            } else {
                format!("{}{INDENT}", indentation(text, close))
            };
            if multi_line && close_first_on_line {
                let field = render_field(path, value, &indent, inherit);
                let comma = if last.comma_end.is_none() { "," } else { "" };
                // Insert the comma right after the last value, the field on its own line.
                let insert_at = last.comma_end.unwrap_or(last.value_end);
                let between = &text[insert_at..close_line_start];
                return Splice {
                    start: insert_at,
                    end: close_line_start,
                    text: format!("{comma}{between}{field},\n"),
                };
            }
            let field = render_field_inline(path, value, inherit);
            return match last.comma_end {
                Some(end) => Splice {
                    start: end,
                    end,
                    text: format!(" {field},"),
                },
                None => Splice {
                    start: last.value_end,
                    end: last.value_end,
                    text: format!(", {field}"),
                },
            };
        }
        // Empty object.
        if multi_line && close_first_on_line {
            let indent = format!("{}{INDENT}", indentation(text, close));
            let field = render_field(path, value, &indent, inherit);
            return Splice {
                start: close_line_start,
                end: close_line_start,
                text: format!("{field},\n"),
            };
        }
        let outer = indentation(text, open);
        let indent = format!("{outer}{INDENT}");
        let field = render_field(path, value, &indent, inherit);
        let inner_start = self.doc.tokens[obj.open].end;
        let inside = text[inner_start..close].trim();
        let inside = if inside.is_empty() {
            String::new()
        } else {
            format!("{indent}{inside}\n")
        };
        Splice {
            start: inner_start,
            end: close,
            text: format!("\n{inside}{field},\n{outer}"),
        }
    }

    /// The span that removes `field` with its comma, and its whole line when it has one.
    fn removal(&self, field: &Field) -> Splice {
        let text = self.doc.text;
        let end = field.comma_end.unwrap_or(field.value_end);
        let ls = line_start(text, field.start);
        let rest_of_line_end = text[end..].find('\n').map_or(text.len(), |p| end + p + 1);
        if text[ls..field.start].trim().is_empty() && text[end..rest_of_line_end].trim().is_empty()
        {
            return Splice {
                start: ls,
                end: rest_of_line_end,
                text: String::new(),
            };
        }
        // Inline: drop the field and the blanks after it.
        let mut stop = end;
        while stop < text.len() && matches!(text.as_bytes()[stop], b' ' | b'\t') {
            stop += 1;
        }
        Splice {
            start: field.start,
            end: stop,
            text: String::new(),
        }
    }
}

struct Walk {
    obj: ObjectLit,
    fields: Vec<(ObjectLit, Field)>,
    found: usize,
}

fn line_start(text: &str, at: usize) -> usize {
    text[..at].rfind('\n').map_or(0, |p| p + 1)
}

fn starts_line(text: &str, at: usize) -> bool {
    text[line_start(text, at)..at].trim().is_empty()
}

fn indentation(text: &str, at: usize) -> String {
    let ls = line_start(text, at);
    text[ls..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

fn separator(inherit: Inherit, nested: bool) -> &'static str {
    if nested && inherit == Inherit::Extend {
        "+:"
    } else {
        ":"
    }
}

fn render_field(path: &[String], value: &str, indent: &str, inherit: Inherit) -> String {
    let key = render_key(&path[0]);
    if path.len() == 1 {
        return format!("{indent}{key}: {value}");
    }
    let inner_indent = format!("{indent}{INDENT}");
    let inner = render_field(&path[1..], value, &inner_indent, inherit);
    format!(
        "{indent}{key}{} {{\n{inner},\n{indent}}}",
        separator(inherit, true)
    )
}

fn render_field_inline(path: &[String], value: &str, inherit: Inherit) -> String {
    let key = render_key(&path[0]);
    if path.len() == 1 {
        return format!("{key}: {value}");
    }
    format!(
        "{key}{} {{ {} }}",
        separator(inherit, true),
        render_field_inline(&path[1..], value, inherit)
    )
}

/// When a string replaces a string, keep the quote character the file used.
fn keep_quote_style(old: &str, new: &str) -> String {
    let old_single = old.starts_with('\'') && old.ends_with('\'') && old.len() >= 2;
    let new_double = new.starts_with('"') && new.ends_with('"') && new.len() >= 2;
    if old_single
        && new_double
        && let Ok(s) = serde_json::from_str::<String>(new)
    {
        return super::value::single_quoted(&s);
    }
    new.to_string()
}
