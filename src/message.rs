//! One-line error messages that never quote the input they were about: what kf says of a
//! parser's, a server's or a file's error.

/// A parser's error without the snippet of the input it quotes below its first line:
/// a kubeconfig's or a Secret's YAML must never reach a CI log through an error.
pub fn error_summary(message: &str) -> String {
    message
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
        .to_string()
}

/// An engine's error as one line, like [`error_summary`], with the innermost place of its
/// stack trace (`file:line:col`) when the first line names none.
pub fn error_summary_with_place(message: &str) -> String {
    let first = error_summary(message);
    let place = message.lines().skip(1).find_map(|l| {
        let l = l.trim();
        let mut parts = l.splitn(4, ':');
        let (file, line, col) = (parts.next()?, parts.next()?, parts.next()?);
        let col: String = col.chars().take_while(char::is_ascii_digit).collect();
        (!file.is_empty()
            && !file.contains(' ')
            && line.parse::<usize>().is_ok()
            && !col.is_empty())
        .then(|| format!("{file}:{line}:{col}"))
    });
    match place {
        Some(place) if !first.contains(&place) => format!("{first} (at {place})"),
        _ => first,
    }
}

/// A JSON parser's error in the same way: serde_json's type errors quote the value they
/// met (`invalid type: string "<a token>"`), so a message that quotes anything is told
/// by its kind and place only.
pub fn json_error_summary(e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let message = error_summary(&e.to_string());
    if !message.contains(['"', '\'']) {
        return message;
    }
    let what = match e.classify() {
        Category::Io => "cannot be read",
        Category::Syntax => "invalid JSON",
        Category::Data => "a value of the wrong type",
        Category::Eof => "unexpected end of the file",
    };
    format!("{what} at line {} column {}", e.line(), e.column())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_error_keeps_its_innermost_place() {
        let traced = "no such field: componnts\n    environments/jl/params.libsonnet:12:10-30: field <x> access\n    components/a.jsonnet:3:1-2: call";
        assert_eq!(
            error_summary_with_place(traced),
            "no such field: componnts (at environments/jl/params.libsonnet:12:10)"
        );
        let placed = "a.jsonnet:1:2: undefined local: x\n    a.jsonnet:1:2-3: here";
        assert_eq!(
            error_summary_with_place(placed),
            "a.jsonnet:1:2: undefined local: x"
        );
        assert_eq!(
            error_summary_with_place("plain\n  argument <o> evaluation"),
            "plain"
        );
    }
}

/// `text` safe to print on a terminal: control characters (ESC, BEL, CR, newlines, DEL…),
/// which a name from an untrusted folder may hold, are shown escaped (`\u{1b}`) so they
/// cannot move the cursor, retitle the window or hide what precedes them.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod printable_tests {
    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(super::printable("web-1 é"), "web-1 é");
        assert_eq!(
            super::printable("a\u{1b}]0;x\u{7}b\rc"),
            "a\\u{1b}]0;x\\u{7}b\\rc"
        );
        assert_eq!(super::printable("\u{9b}2J\u{7f}"), "\\u{9b}2J\\u{7f}");
    }
}

/// `1 object`, `3 objects`: a count with its noun (`noun` is the singular; its plural
/// adds `s`).
pub fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
