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
