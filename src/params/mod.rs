//! Params files as text: value typing and Jsonnet spelling, format-preserving edits,
//! literals read without evaluation. The evaluated views are render's (`render::params`);
//! the `param` commands are workflows (`workflow::params`).

pub mod editor;
pub mod literal;
pub mod structure;
pub mod syntax;
pub mod value;

pub use editor::{EditError, Inherit, ParamsFile, Root};
pub use value::{NotOfType, ParamType, ValueError, display, parse_typed, parse_value, to_jsonnet};

/// `a.b.c` → `["a", "b", "c"]`; an empty segment is an error.
pub fn split_path(key: &str) -> Option<Vec<String>> {
    let parts: Vec<String> = key.split('.').map(str::to_string).collect();
    if parts.iter().any(String::is_empty) {
        None
    } else {
        Some(parts)
    }
}

/// A file's UTF-8 byte-order mark (Windows editors write one) and the text after it.
pub fn split_bom(text: &str) -> (&str, &str) {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    }
}

/// Edit a file's text after its byte-order mark, and put the mark back.
pub fn edit_keeping_bom<E>(
    text: &str,
    edit: impl FnOnce(&str) -> Result<String, E>,
) -> Result<String, E> {
    let (bom, body) = split_bom(text);
    edit(body).map(|e| format!("{bom}{e}"))
}
