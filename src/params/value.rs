//! Typing of values typed on the command line (`kf param set c k VALUE`, `--param=VALUE`)
//! and their Jsonnet spelling in params files.

use serde_json::Value;

use crate::engine::lexer::is_keyword;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ValueError {
    #[error("a value is required (use --as-string with '' for an empty string)")]
    Empty,
    #[error(
        "'{input}' looks like JSON but is not valid JSON: {reason}; quote it with --as-string to store it as a string"
    )]
    BadJson { input: String, reason: String },
}

/// The type a prototype declares for a param (`// @param name TYPE …`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    Number,
    /// A whole number (replica and GPU counts, ports, seconds): kf's own prototypes
    /// declare such params `integer`, so `2.5` is refused when typed, not at render.
    Integer,
    String,
    NumberOrString,
    Object,
    Array,
    Boolean,
}

impl ParamType {
    /// The type as a prototype header spells it (`bool` is ksonnet's alias).
    pub fn from_header(s: &str) -> Option<ParamType> {
        Some(match s {
            "number" => ParamType::Number,
            "integer" => ParamType::Integer,
            "string" => ParamType::String,
            "numberOrString" => ParamType::NumberOrString,
            "object" => ParamType::Object,
            "array" => ParamType::Array,
            "boolean" | "bool" => ParamType::Boolean,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::Number => "number",
            ParamType::Integer => "integer",
            ParamType::String => "string",
            ParamType::NumberOrString => "numberOrString",
            ParamType::Object => "object",
            ParamType::Array => "array",
            ParamType::Boolean => "boolean",
        }
    }

    /// Whether an already-typed value (a values file, `--as-string`) is of this type;
    /// null is "not set" and fits every type.
    pub fn accepts(self, value: &Value) -> bool {
        value.is_null()
            || match self {
                ParamType::String => value.is_string(),
                ParamType::Number => value.is_number(),
                ParamType::Integer => value.is_i64() || value.is_u64(),
                ParamType::NumberOrString => value.is_number() || value.is_string(),
                ParamType::Boolean => value.is_boolean(),
                ParamType::Object => value.is_object(),
                ParamType::Array => value.is_array(),
            }
    }

    /// The forms a value of this type may be typed in, for messages.
    fn forms(self) -> &'static str {
        match self {
            ParamType::Number => "a number, e.g. 4 or 0.5",
            ParamType::Integer => "a whole number, e.g. 4",
            ParamType::Boolean => "true or false",
            ParamType::Array => {
                "a JSON array, e.g. [\"python\",\"/opt/train.py\"], or a space-separated string, e.g. \"python /opt/train.py\""
            }
            ParamType::Object => {
                "a JSON object, e.g. {\"a\":\"1\"}, or key=value pairs separated by commas, e.g. a=1,b=2"
            }
            ParamType::String | ParamType::NumberOrString => "any text",
        }
    }
}

/// A command-line value that is not of its param's type.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("'{input}' is not a valid {kind} ({why}give {forms})")]
pub struct NotOfType {
    pub input: String,
    pub kind: &'static str,
    /// What was wrong with it, ending in `; ` (empty when the type says it all).
    pub why: String,
    pub forms: &'static str,
}

/// A value typed on the command line, read as a param of type `kind`: what `kf generate
/// --<param>=VALUE` and `kf param set <component> <param> VALUE` both accept, and what
/// `kf prototype describe` documents.
///
/// - `null` is null ("not set") whatever the type;
/// - `string` is the text as typed; `numberOrString` a number when it reads as one;
/// - `number` and `boolean` as [`parse_value`] reads them (`true`/`false` in any case);
/// - `array`: JSON (or a Jsonnet literal) when it starts with `[`, else the words of a
///   space-separated string (`python /opt/train.py` → `["python", "/opt/train.py"]`);
/// - `object`: JSON (or a Jsonnet literal, `{app: 'web'}`) when it starts with `{`, else
///   `key=value` pairs separated by commas, the values strings
///   (`cloud.google.com/gke-accelerator=nvidia-tesla-t4`).
pub fn parse_typed(input: &str, kind: ParamType) -> Result<Value, NotOfType> {
    let not = |why: String| NotOfType {
        input: input.to_string(),
        kind: kind.as_str(),
        why,
        forms: kind.forms(),
    };
    let trimmed = input.trim();
    if trimmed == "null" {
        return Ok(Value::Null);
    }
    let number = || parse_value(input, false).ok().filter(Value::is_number);
    match kind {
        ParamType::String => Ok(Value::String(input.to_string())),
        ParamType::NumberOrString => {
            Ok(number().unwrap_or_else(|| Value::String(input.to_string())))
        }
        ParamType::Number => number().ok_or_else(|| not(String::new())),
        ParamType::Integer => match number() {
            Some(n) if ParamType::Integer.accepts(&n) => Ok(n),
            Some(_) => Err(not("it is not a whole number; ".into())),
            None => Err(not(String::new())),
        },
        ParamType::Boolean => match parse_value(input, false) {
            Ok(b @ Value::Bool(_)) => Ok(b),
            _ => Err(not(String::new())),
        },
        ParamType::Array if trimmed.starts_with('[') => {
            literal(trimmed, kind).map_err(|why| not(format!("{why}; ")))
        }
        ParamType::Array => Ok(Value::Array(
            trimmed
                .split_whitespace()
                .map(|w| Value::String(w.to_string()))
                .collect(),
        )),
        ParamType::Object if trimmed.starts_with('{') => {
            literal(trimmed, kind).map_err(|why| not(format!("{why}; ")))
        }
        ParamType::Object => key_value_pairs(trimmed).map_err(|why| not(format!("{why}; "))),
    }
}

/// JSON, else a Jsonnet literal (evaluated without imports), of the given type.
fn literal(text: &str, kind: ParamType) -> Result<Value, String> {
    let value = match serde_json::from_str::<Value>(text) {
        Ok(v) => v,
        Err(json) => {
            crate::engine::literal_to_json(text).map_err(|_| format!("not valid JSON: {json}"))?
        }
    };
    if kind.accepts(&value) {
        Ok(value)
    } else {
        Err(format!("it is {}", json_type(&value)))
    }
}

/// `a=1,b=2` → `{"a": "1", "b": "2"}`; empty text is an empty object.
fn key_value_pairs(text: &str) -> Result<Value, String> {
    let mut map = serde_json::Map::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                map.insert(k.trim().to_string(), Value::String(v.trim().to_string()));
            }
            _ => return Err(format!("'{pair}' is not key=value")),
        }
    }
    Ok(Value::Object(map))
}

/// "a string", "an object", …: a JSON value's type, for messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// ksonnet's rules, minus its bugs: whole numbers and decimals (`1.5` too) are numbers,
/// `true`/`false` in any case are booleans, `null` is null, text starting with `[` or `{`
/// must be JSON, anything else is a string.
pub fn parse_value(input: &str, as_string: bool) -> Result<Value, ValueError> {
    if as_string {
        return Ok(Value::String(input.to_string()));
    }
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(ValueError::Empty);
    }
    if is_integer(trimmed) {
        let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
        if let Ok(n) = digits.parse::<i64>() {
            return Ok(Value::from(n));
        }
    }
    if is_decimal(trimmed)
        && let Ok(f) = trimmed.parse::<f64>()
        && f.is_finite()
        && let Some(n) = serde_json::Number::from_f64(f)
    {
        return Ok(Value::Number(n));
    }
    if trimmed.eq_ignore_ascii_case("true") {
        return Ok(Value::Bool(true));
    }
    if trimmed.eq_ignore_ascii_case("false") {
        return Ok(Value::Bool(false));
    }
    if trimmed == "null" {
        return Ok(Value::Null);
    }
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        return serde_json::from_str(trimmed).map_err(|e| ValueError::BadJson {
            input: input.to_string(),
            reason: e.to_string(),
        });
    }
    Ok(Value::String(input.to_string()))
}

/// A number as JSON writes one, or with a leading `+`: [`is_integer`] or [`is_decimal`].
pub(super) fn is_number_text(s: &str) -> bool {
    is_integer(s) || is_decimal(s)
}

/// `0`, `42`, `-7`, `+3`; not `007` (ksonnet kept leading-zero text such as modes as strings).
fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// `1.5`, `0.25`, `-3.0`, `1e3`; not `1.2.3`, `.5`, `00.1`, `1.` (versions stay strings).
fn is_decimal(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let int_ok = !int.is_empty()
        && int.bytes().all(|b| b.is_ascii_digit())
        && (int == "0" || !int.starts_with('0'));
    let frac_ok = frac.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    let exp_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && e.bytes().all(|b| b.is_ascii_digit())
    });
    int_ok && frac_ok && exp_ok && (frac.is_some() || exponent.is_some())
}

/// Jsonnet source for a value, as kf writes it into params files: strings double-quoted
/// (as ksonnet wrote them), objects and arrays inline.
pub fn to_jsonnet(value: &Value) -> String {
    match value {
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", render_key(k), to_jsonnet(v)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(to_jsonnet).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// A value as `param list` shows it, as ksonnet 0.13 printed it (pkg/params/lister.go
/// objectValueAsString through ksonnet-lib's printer): strings single-quoted, the value
/// itself on one line (`{ a: 1 }`, `[1, 2]`), and every non-empty object or array inside it
/// over several lines, two spaces an indent level, each item ending with a comma, as the
/// evaluated params laid them out:
///
/// ```text
/// { image: {
///   repo: 'r',
///   tag: '1',
/// }, name: 'x' }
/// ```
pub fn display(value: &Value) -> String {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", render_key(k), nested(v, 0)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| nested(v, 0)).collect();
            format!("[{}]", items.join(", "))
        }
        other => nested(other, 0),
    }
}

/// `open`, each item on a line of its own one level in with a comma after it, `close`.
fn laid_out(open: &str, close: &str, items: impl Iterator<Item = String>, level: usize) -> String {
    let mut out = String::from(open);
    for item in items {
        out.push('\n');
        out.push_str(&"  ".repeat(level + 1));
        out.push_str(&item);
        out.push(',');
    }
    out.push('\n');
    out.push_str(&"  ".repeat(level));
    out.push_str(close);
    out
}

/// A value inside a `param list` value, at indent `level`: see [`display`].
fn nested(value: &Value, level: usize) -> String {
    match value {
        Value::String(s) => single_quoted(s),
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Array(items) if items.is_empty() => "[]".to_string(),
        Value::Object(map) => laid_out(
            "{",
            "}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", render_key(k), nested(v, level + 1))),
            level,
        ),
        Value::Array(items) => {
            laid_out("[", "]", items.iter().map(|v| nested(v, level + 1)), level)
        }
        other => other.to_string(),
    }
}

/// A field name as Jsonnet source: bare when it is an identifier, else double-quoted.
pub fn render_key(key: &str) -> String {
    let ident = key
        .chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && key.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
        && !is_keyword(key);
    if ident {
        key.to_string()
    } else {
        serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""))
    }
}

/// A Jsonnet single-quoted string literal.
pub fn single_quoted(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_default();
    let inner = &json[1..json.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `param list` quotes as ksonnet 0.13.1 did through ksonnet-lib's printer
    /// (printer.go: a string value is single-quoted unless it holds a single quote; an
    /// object key, built as a double-quoted literal, keeps its double quotes when it is no
    /// identifier): the mixed quotes are ksonnet's.
    #[test]
    fn param_values_are_quoted_as_ksonnet_printed_them() {
        let value = serde_json::json!({"tier": "front", "app.kubernetes.io/name": "web", "if": 1});
        assert_eq!(
            display(&value),
            r#"{ "app.kubernetes.io/name": 'web', "if": 1, tier: 'front' }"#
        );
        assert_eq!(display(&serde_json::json!(["a", "b"])), "['a', 'b']");
    }
}
