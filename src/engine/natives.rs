//! The native functions Jsonnet code written for ksonnet and Tanka calls through
//! `std.native(name)`: ksonnet 0.13.1's (`pkg/util/jsonnet/vm.go`, registerNativeFuncs)
//! and Tanka's (`pkg/jsonnet/native/funcs.go`, Funcs), with their names, parameter names
//! and results. Where the two disagree (`parseYaml` on YAML 1.1's `yes`/`no`/`on`/`off`),
//! kf reads YAML as ksonnet and kubectl do; docs/rendering.md lists the differences.

use jrsonnet_evaluator::function::{FuncVal, builtin};
use jrsonnet_evaluator::{IStr, Result, Val, bail};
use serde_json::Value;

/// Every native kf registers, by the name `std.native` takes.
pub fn all() -> Vec<(IStr, FuncVal)> {
    vec![
        ("parseJson".into(), FuncVal::builtin(parse_json {})),
        ("parseYaml".into(), FuncVal::builtin(parse_yaml {})),
        (
            "manifestJsonFromJson".into(),
            FuncVal::builtin(manifest_json_from_json {}),
        ),
        (
            "manifestYamlFromJson".into(),
            FuncVal::builtin(manifest_yaml_from_json {}),
        ),
        (
            "escapeStringRegex".into(),
            FuncVal::builtin(escape_string_regex {}),
        ),
        ("regexMatch".into(), FuncVal::builtin(regex_match {})),
        ("regexSubst".into(), FuncVal::builtin(regex_subst {})),
        ("sha256".into(), FuncVal::builtin(sha256 {})),
        (
            "helmTemplate".into(),
            FuncVal::builtin(super::helm::helm_template {}),
        ),
        (
            "kustomizeBuild".into(),
            FuncVal::builtin(super::kustomize::kustomize_build {}),
        ),
    ]
}

/// `parseJson(json)`: the value the JSON text holds (numbers are Jsonnet's numbers).
#[builtin]
fn parse_json(json: IStr) -> Result<Val> {
    match serde_json::from_str::<Value>(&json) {
        Ok(value) => Ok(super::json_to_val(&value)),
        Err(e) => bail!("std.native('parseJson'): not JSON: {e}"),
    }
}

/// `parseYaml(yaml)`: always an array, one item per document of the stream (an empty
/// text is `[]`; separators with nothing between them add nothing).
#[builtin]
fn parse_yaml(yaml: IStr) -> Result<Val> {
    if yaml.trim().is_empty() {
        return Ok(Val::arr(Vec::<Val>::new()));
    }
    match serde_saphyr::from_multiple::<Value>(&yaml) {
        Ok(docs) => Ok(Val::arr(
            docs.iter().map(super::json_to_val).collect::<Vec<_>>(),
        )),
        Err(e) => bail!(
            "std.native('parseYaml'): not YAML: {}",
            e.to_string().lines().next().unwrap_or_default()
        ),
    }
}

/// `manifestJsonFromJson(json, indent)`: the JSON text re-indented by `indent` spaces,
/// keys, numbers and escapes as written, with a final newline (Go's `json.Indent`).
#[builtin]
fn manifest_json_from_json(json: IStr, indent: f64) -> Result<String> {
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&json) {
        bail!("std.native('manifestJsonFromJson'): not JSON: {e}");
    }
    if !(0.0..=64.0).contains(&indent) {
        bail!("std.native('manifestJsonFromJson'): an indent of {indent}; give 0 to 64 spaces");
    }
    // Whole spaces, as Tanka truncates its float argument.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let mut out = reindent(json.trim(), &" ".repeat(indent as usize));
    out.push('\n');
    Ok(out)
}

/// Go's `json.Indent` with no prefix: whitespace between tokens dropped, a newline and
/// `unit` per level before each element, `{}` and `[]` kept closed. `json` is valid JSON.
fn reindent(json: &str, unit: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(unit);
        }
    };
    let (mut depth, mut need_indent) = (0usize, false);
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        if need_indent && c != '}' && c != ']' {
            need_indent = false;
            depth += 1;
            newline(&mut out, depth);
        }
        match c {
            '{' | '[' => {
                need_indent = true;
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            '}' | ']' => {
                if need_indent {
                    need_indent = false;
                } else {
                    depth = depth.saturating_sub(1);
                    newline(&mut out, depth);
                }
                out.push(c);
            }
            '"' => {
                in_string = true;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `manifestYamlFromJson(json)`: the JSON text as a YAML document, keys sorted, four
/// spaces a level with list items indented under their key (as Tanka's yaml.v3 writes).
#[builtin]
fn manifest_yaml_from_json(json: IStr) -> Result<String> {
    let value: Value = match serde_json::from_str(&json) {
        Ok(value) => value,
        Err(e) => bail!("std.native('manifestYamlFromJson'): not JSON: {e}"),
    };
    let options = serde_saphyr::ser_options! {
        indent_step: 4,
        compact_list_indent: false,
    };
    match serde_saphyr::to_string_with_options(&value, options) {
        Ok(mut text) => {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            Ok(text)
        }
        Err(e) => bail!("std.native('manifestYamlFromJson'): {e}"),
    }
}

/// `escapeStringRegex(str)`: `str` with every regex metacharacter escaped (Go's
/// `regexp.QuoteMeta`, which escapes exactly these).
#[builtin]
fn escape_string_regex(str: IStr) -> String {
    let mut out = String::with_capacity(str.len() * 2);
    for c in str.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn compile(native: &str, regex: &str) -> Result<regex::Regex> {
    match regex::Regex::new(regex) {
        Ok(re) => Ok(re),
        Err(e) => bail!(
            "std.native('{native}'): the regex {regex:?} is not valid: {}",
            e.to_string().lines().last().unwrap_or_default()
        ),
    }
}

/// `regexMatch(regex, string)`: whether `regex` (RE2 syntax) matches anywhere in `string`.
#[builtin]
fn regex_match(regex: IStr, string: IStr) -> Result<bool> {
    Ok(compile("regexMatch", &regex)?.is_match(&string))
}

/// `regexSubst(regex, src, repl)`: every match of `regex` in `src` replaced by `repl`,
/// where `$1`, `${1}` and `$name` stand for groups and `$$` for a `$` (Go's
/// `ReplaceAllString`, whose `$1W` is the group named `1W`, as here).
#[builtin]
fn regex_subst(regex: IStr, src: IStr, repl: IStr) -> Result<String> {
    let re = compile("regexSubst", &regex)?;
    Ok(re.replace_all(&src, repl.as_str()).into_owned())
}

/// `sha256(str)`: the SHA-256 of the string's UTF-8 bytes, in lower-case hex.
#[builtin]
fn sha256(str: IStr) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    let digest = sha2::Sha256::digest(str.as_bytes());
    digest.iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::reindent;

    #[test]
    fn reindent_is_gos_json_indent() {
        assert_eq!(reindent("{}", "    "), "{}");
        assert_eq!(reindent("{ \"a\": 47}", "    "), "{\n    \"a\": 47\n}");
        assert_eq!(
            reindent("[1,{\"b\":[ ],\"c\":\"x, y: [z]\\\"\"}]", "  "),
            "[\n  1,\n  {\n    \"b\": [],\n    \"c\": \"x, y: [z]\\\"\"\n  }\n]"
        );
        assert_eq!(reindent("1.50e3", "  "), "1.50e3");
    }
}
