//! Tanka's `nameFormat` (pkg/kubernetes/manifest/manifest.go, `ListAsMap`): a Go
//! text/template, with sprig's functions, run on each object to give its key in the
//! result of `helmTemplate` and `kustomizeBuild`.
//!
//! kf reads the part of that language name formats use: text, and actions `{{ … }}`
//! (`{{-` and `-}}` trim white space as Go's do) holding a pipeline of commands joined by
//! `|`, each a field chain (`.metadata.name`, `.`), a string (`"_"` or `` `_` ``), or a
//! function and its arguments, the piped value last. The functions are Go's `print` and
//! `printf` (`%s`, `%v`, `%d`, `%%`) and sprig's `snakecase`, `kebabcase`, `lower`,
//! `upper`, `trim`, `trimPrefix`, `trimSuffix`, `replace` and `default`. A missing field
//! prints `<no value>`, and `<nil>` inside `print`, as in Go. Anything else is an error
//! naming what kf reads.

use serde_json::Value;

/// The functions kf reads in a name format.
const NAMES: [&str; 11] = [
    "print",
    "printf",
    "snakecase",
    "kebabcase",
    "lower",
    "upper",
    "trim",
    "trimPrefix",
    "trimSuffix",
    "replace",
    "default",
];

/// [`NAMES`] as a message lists them: `print, printf, … and default`.
fn functions() -> String {
    let (last, rest) = NAMES.split_last().unwrap_or((&"", &[]));
    format!("{} and {last}", rest.join(", "))
}

#[derive(Debug, Clone, PartialEq)]
enum Arg {
    /// `.a.b` (empty: the object itself).
    Field(Vec<String>),
    Str(String),
    Func(String),
}

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    /// Commands joined by `|`.
    Pipeline(Vec<Vec<Arg>>),
}

/// A parsed name format.
#[derive(Debug, Clone, PartialEq)]
pub struct NameFormat(Vec<Part>);

impl NameFormat {
    pub fn parse(format: &str) -> Result<NameFormat, String> {
        let mut parts = Vec::new();
        let mut rest = format;
        while let Some(open) = rest.find("{{") {
            let mut text = &rest[..open];
            let mut inside = &rest[open + 2..];
            if let Some(trimmed) = inside.strip_prefix("- ") {
                text = text.trim_end();
                inside = trimmed;
            }
            let close = inside
                .find("}}")
                .ok_or("an action `{{` is not closed by `}}`")?;
            let mut action = &inside[..close];
            rest = &inside[close + 2..];
            if let Some(trimmed) = action.strip_suffix(" -") {
                action = trimmed;
                rest = rest.trim_start();
            }
            if !text.is_empty() {
                parts.push(Part::Text(text.to_string()));
            }
            parts.push(Part::Pipeline(pipeline(action)?));
        }
        if rest.contains("}}") {
            return Err("`}}` closes no action".into());
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_string()));
        }
        Ok(NameFormat(parts))
    }

    /// The key of `object`.
    pub fn key(&self, object: &Value) -> Result<String, String> {
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Pipeline(commands) => {
                    let mut piped: Option<Value> = None;
                    for command in commands {
                        piped = Some(run(command, piped, object)?);
                    }
                    out.push_str(&shown(
                        piped.as_ref().unwrap_or(&Value::Null),
                        "<no value>",
                    )?);
                }
            }
        }
        Ok(out)
    }
}

fn pipeline(action: &str) -> Result<Vec<Vec<Arg>>, String> {
    let mut commands = vec![Vec::new()];
    let mut chars = action.trim().char_indices().peekable();
    let text = action.trim();
    while let Some((i, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '|' => commands.push(Vec::new()),
            '"' | '`' => {
                let mut s = String::new();
                let mut closed = false;
                while let Some((_, d)) = chars.next() {
                    match d {
                        d if d == c => {
                            closed = true;
                            break;
                        }
                        '\\' if c == '"' => match chars.next().map(|(_, e)| e) {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some(e @ ('\\' | '"')) => s.push(e),
                            _ => return Err("a string holds an escape kf does not read".into()),
                        },
                        d => s.push(d),
                    }
                }
                if !closed {
                    return Err("a string is not closed".into());
                }
                push(&mut commands, Arg::Str(s));
            }
            '.' | 'a'..='z' | 'A'..='Z' | '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_alphanumeric() || d == '_' || d == '.' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                let word = &text[i..end];
                if let Some(path) = word.strip_prefix('.') {
                    let fields: Vec<String> = if path.is_empty() {
                        Vec::new()
                    } else {
                        path.split('.').map(str::to_string).collect()
                    };
                    if fields.iter().any(String::is_empty) {
                        return Err(format!("'{word}' is not a field chain"));
                    }
                    push(&mut commands, Arg::Field(fields));
                } else if NAMES.contains(&word) {
                    push(&mut commands, Arg::Func(word.to_string()));
                } else {
                    return Err(format!(
                        "'{word}' is not a function kf knows in a nameFormat (it knows {})",
                        functions()
                    ));
                }
            }
            other => {
                return Err(format!(
                    "'{other}' is beyond what kf reads in a nameFormat (fields, strings, `|` and {})",
                    functions()
                ));
            }
        }
    }
    if commands.iter().any(Vec::is_empty) {
        return Err("an empty command (an action `{{ }}`, or `|` with nothing beside it)".into());
    }
    Ok(commands)
}

fn push(commands: &mut [Vec<Arg>], arg: Arg) {
    if let Some(last) = commands.last_mut() {
        last.push(arg);
    }
}

fn field(object: &Value, path: &[String]) -> Result<Value, String> {
    let mut here = object;
    for (i, name) in path.iter().enumerate() {
        match here {
            Value::Object(map) => match map.get(name) {
                Some(v) => here = v,
                None => return Ok(Value::Null),
            },
            Value::Null => return Ok(Value::Null),
            _ => {
                return Err(format!(
                    "can't evaluate field {name} in .{}, which is not an object",
                    path[..i].join(".")
                ));
            }
        }
    }
    Ok(here.clone())
}

fn run(command: &[Arg], piped: Option<Value>, object: &Value) -> Result<Value, String> {
    let value = |arg: &Arg| match arg {
        Arg::Field(path) => field(object, path),
        Arg::Str(s) => Ok(Value::String(s.clone())),
        Arg::Func(f) => Err(format!(
            "{f} is used as a value; call it first in a command"
        )),
    };
    let Some(Arg::Func(name)) = command.first() else {
        if command.len() > 1 || piped.is_some() {
            return Err("a value is given arguments; only a function takes them".into());
        }
        return value(&command[0]);
    };
    let mut args = command[1..]
        .iter()
        .map(value)
        .collect::<Result<Vec<_>, _>>()?;
    args.extend(piped);
    let strings = |n: usize| -> Result<Vec<String>, String> {
        if args.len() != n {
            return Err(format!(
                "{name} takes {n} argument(s), it was given {}",
                args.len()
            ));
        }
        args.iter().map(|a| shown(a, "")).collect()
    };
    let text = match name.as_str() {
        "print" => sprint(&args)?,
        "printf" => printf(&args)?,
        "snakecase" => super::snakecase::snakecase(&strings(1)?[0]),
        "kebabcase" => super::snakecase::kebabcase(&strings(1)?[0]),
        "lower" => strings(1)?[0].to_lowercase(),
        "upper" => strings(1)?[0].to_uppercase(),
        "trim" => strings(1)?[0].trim().to_string(),
        "trimPrefix" => {
            let s = strings(2)?;
            s[1].strip_prefix(s[0].as_str())
                .unwrap_or(&s[1])
                .to_string()
        }
        "trimSuffix" => {
            let s = strings(2)?;
            s[1].strip_suffix(s[0].as_str())
                .unwrap_or(&s[1])
                .to_string()
        }
        "replace" => {
            let s = strings(3)?;
            s[2].replace(s[0].as_str(), &s[1])
        }
        "default" => {
            if args.len() != 2 {
                return Err(format!(
                    "default takes 2 arguments, it was given {}",
                    args.len()
                ));
            }
            let empty = matches!(&args[1], Value::Null | Value::Bool(false))
                || args[1].as_str() == Some("")
                || args[1].as_f64() == Some(0.0);
            return Ok(if empty {
                args[0].clone()
            } else {
                args[1].clone()
            });
        }
        other => return Err(format!("{other} is not a function kf knows")),
    };
    Ok(Value::String(text))
}

/// Go's `%v` of a value: strings as they are, numbers as Go prints a float64 that holds
/// an integer or not, `missing` for a missing field; objects and arrays are refused.
fn shown(v: &Value, missing: &str) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Ok(missing.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Object(_) | Value::Array(_) => {
            Err("a field used in a name is an object or an array, not a string".into())
        }
    }
}

/// Go's `fmt.Sprint`: operands side by side, a space between two when neither is a string.
fn sprint(args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !args[i - 1].is_string() && !a.is_string() {
            out.push(' ');
        }
        out.push_str(&shown(a, "<nil>")?);
    }
    Ok(out)
}

/// Go's `fmt.Sprintf` for `%s`, `%v`, `%d` and `%%`.
fn printf(args: &[Value]) -> Result<String, String> {
    let Some((format, operands)) = args.split_first() else {
        return Err("printf takes a format".into());
    };
    let format = shown(format, "")?;
    let mut operands = operands.iter();
    let mut out = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => out.push('%'),
            Some('s' | 'v' | 'd') => match operands.next() {
                Some(v) => out.push_str(&shown(v, "<nil>")?),
                None => out.push_str("%!v(MISSING)"),
            },
            _ => return Err("printf in a nameFormat takes %s, %v, %d and %% only".into()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(format: &str, object: &Value) -> Result<String, String> {
        NameFormat::parse(format)?.key(object)
    }

    /// What Go's text/template with sprig prints for Tanka's default, the format Tanka's
    /// docs give (helm.mdx), and the forms of Go's own rules on missing fields and Sprint.
    #[test]
    fn name_formats_key_objects_as_tanka_does() {
        let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "clusterqueues.kueue.x-k8s.io"}});
        let sa = json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": "kueue-controller", "namespace": "kueue-system"}, "replicas": 2});
        let default = super::super::external::DEFAULT_NAME_FORMAT;
        assert_eq!(
            key(default, &crd).unwrap(),
            "custom_resource_definition_clusterqueues.kueue.x_k_8s.io"
        );
        let namespaced =
            r#"{{ print .metadata.namespace "_" .kind "_" .metadata.name | snakecase }}"#;
        assert_eq!(
            key(namespaced, &sa).unwrap(),
            "kueue_system_service_account_kueue_controller"
        );
        // A missing field: `<nil>` inside print, `<no value>` printed directly.
        assert_eq!(
            key(namespaced, &crd).unwrap(),
            "<_nil_>_custom_resource_definition_clusterqueues.kueue.x_k_8s.io"
        );
        assert_eq!(
            key("{{ .metadata.namespace }}/{{ .metadata.name }}", &crd).unwrap(),
            "<no value>/clusterqueues.kueue.x-k8s.io"
        );
        assert_eq!(
            key("{{ .metadata.name }}", &sa).unwrap(),
            "kueue-controller"
        );
        assert_eq!(
            key(
                "{{- .kind | lower -}} - {{- .metadata.name | kebabcase }}",
                &sa
            )
            .unwrap(),
            "serviceaccount-kueue-controller"
        );
        assert_eq!(
            key(r#"{{ printf "%s.%s" .kind .metadata.name }}"#, &sa).unwrap(),
            "ServiceAccount.kueue-controller"
        );
        assert_eq!(
            key(r#"{{ .metadata.name | trimPrefix "kueue-" | upper }}"#, &sa).unwrap(),
            "CONTROLLER"
        );
        assert_eq!(
            key(
                r#"{{ .metadata.namespace | default "cluster" }}_{{ .kind }}"#,
                &crd
            )
            .unwrap(),
            "cluster_CustomResourceDefinition"
        );
        assert_eq!(
            key(r#"{{ replace "-" "_" .metadata.name }}"#, &sa).unwrap(),
            "kueue_controller"
        );
        // Sprint puts a space only between two operands that are not strings.
        assert_eq!(
            key("{{ print .replicas .replicas .kind }}", &sa).unwrap(),
            "2 2ServiceAccount"
        );
    }

    #[test]
    fn what_kf_does_not_read_is_an_error_that_says_what_it_reads() {
        let object = json!({"kind": "A", "metadata": {"name": "b"}});
        for (format, said) in [
            ("{{ .kind", "not closed"),
            ("{{ }}", "empty command"),
            ("{{ .kind | }}", "empty command"),
            ("{{ sha256sum .kind }}", "not a function kf knows"),
            ("{{ $x := .kind }}", "beyond what kf reads"),
            ("{{ (print .kind) }}", "beyond what kf reads"),
            ("{{ .kind .kind }}", "only a function takes them"),
            ("{{ .metadata }}", "an object or an array"),
            ("{{ .kind.x }}", "not an object"),
            ("{{ lower .kind .kind }}", "takes 1 argument"),
            (r#"{{ printf "%q" .kind }}"#, "%s, %v, %d"),
        ] {
            let got = key(format, &object).unwrap_err();
            assert!(got.contains(said), "{format}: {got}");
        }
    }
}
