//! Whether a params file parses as Jsonnet, by the engine's own parser.
//!
//! Edits find fields with kf's bracket-pairing reader (`structure`), which is exact on
//! Jsonnet that parses and can be wrong on text that does not: with a comma missing
//! between `replicas: 1` and `servicePort: 80`, the value of `replicas` runs on over
//! `servicePort`, and replacing it deleted that key. So an edit starts here: a file the
//! parser refuses is not edited, and the user is told their own file:line.

use crate::engine::lexer::line_of;
use crate::engine::limits::check_nesting;

/// Where and why `text` does not parse. `line` and `column` are 1-based; `column` counts
/// characters.
#[derive(Debug, Clone, PartialEq)]
pub struct Unparsed {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// `Ok` when jrsonnet parses `text` (a byte-order mark already cut off); the nesting
/// limit is checked first, since the parser recurses once per level.
pub fn parses(name: &str, text: &str) -> Result<(), Unparsed> {
    if let Err(deep) = check_nesting(text.as_bytes()) {
        return Err(Unparsed {
            line: deep.line,
            column: 1,
            message: deep.to_string(),
        });
    }
    let source = jrsonnet_ir::Source::new_virtual(name.into(), text.into());
    match jrsonnet_ir_parser::parse(text, &jrsonnet_ir_parser::ParserSettings { source }) {
        Ok(_) => Ok(()),
        Err(e) => {
            let at = (e.location.1 as usize).min(text.len());
            let mut message = e.message;
            if let Some(line) = comma_missing_before(text, at) {
                message.push_str(&format!("; is a comma missing at the end of line {line}?"));
            }
            Err(Unparsed {
                line: line_of(text, at),
                column: column_of(text, at),
                message,
            })
        }
    }
}

/// The line before an error that starts its own line, when that line ends in what can
/// end a field's value but no comma: the commonest way a params file stops parsing.
fn comma_missing_before(text: &str, at: usize) -> Option<usize> {
    let before = text.get(..at)?;
    let line_start = before.rfind('\n')?;
    if !before[line_start..].trim().is_empty() {
        return None;
    }
    let (index, previous) = before[..line_start]
        .split('\n')
        .map(|l| l.split("//").next().unwrap_or(l).trim_end())
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .last()?;
    let last = previous.chars().last()?;
    let ends_value = last.is_alphanumeric() || matches!(last, '"' | '\'' | '}' | ']' | ')');
    ends_value.then_some(index + 1)
}

/// The 1-based character column of byte `at` in its line.
fn column_of(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..at].chars().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_comma_is_found_at_the_next_key() {
        let text = "{\n  components: {\n    web: {\n      replicas: 1\n      servicePort: 80,\n    },\n  },\n}\n";
        let e = parses("p", text).unwrap_err();
        assert_eq!(e.line, 5, "{e:?}");
        assert_eq!(e.column, 7, "{e:?}");
        assert!(
            e.message
                .ends_with("is a comma missing at the end of line 4?"),
            "{e:?}"
        );
        // A comment line between: still the line of the value.
        let text = "{\n  a: 1 // one\n  // note\n\n  b: 2,\n}\n";
        let e = parses("p", text).unwrap_err();
        assert_eq!(e.line, 5, "{e:?}");
        assert!(e.message.ends_with("end of line 2?"), "{e:?}");
        // Not after an opening bracket.
        let e = parses("p", "{\n  a: {\n  b c\n}\n").unwrap_err();
        assert!(!e.message.contains("comma"), "{e:?}");
    }

    #[test]
    fn valid_jsonnet_parses_and_deep_nesting_is_refused_unparsed() {
        assert_eq!(parses("p", "local a = 1; { a: a, b: [1, 2] }"), Ok(()));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let e = parses("p", &deep).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(
            e.message.starts_with("nested more than 2000 levels deep"),
            "{e:?}"
        );
    }

    #[test]
    fn columns_count_characters() {
        assert_eq!(column_of("ab\nxé y", 7), 4);
        assert_eq!(column_of("abc", 0), 1);
    }
}
