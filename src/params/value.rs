//! Typing of values typed on the command line (`kf param set c k VALUE`, `--param=VALUE`)
//! and their Jsonnet spelling in params files.

use serde_json::Value;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ValueError {
    #[error("a value is required (use --as-string with '' for an empty string)")]
    Empty,
    #[error(
        "'{input}' looks like JSON but is not valid JSON: {reason}; quote it with --as-string to store it as a string"
    )]
    BadJson { input: String, reason: String },
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
                .map(|(k, v)| format!("{}: {}", super::editor::render_key(k), to_jsonnet(v)))
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

/// A value as `param list` shows it: strings single-quoted, objects `{ a: 1 }`.
pub fn display(value: &Value) -> String {
    match value {
        Value::String(s) => single_quoted(s),
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", super::editor::render_key(k), display(v)))
                .collect();
            format!("{{ {} }}", fields.join(", "))
        }
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(display).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// A Jsonnet single-quoted string literal.
pub fn single_quoted(s: &str) -> String {
    let json = serde_json::to_string(s).unwrap_or_default();
    let inner = &json[1..json.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
}
