//! The text std's manifest and escape functions wrote in go-jsonnet 0.11.2, the engine
//! of ksonnet 0.13.1 (std/std.jsonnet at tag v0.11.2, lines 837–1015): real apps put it
//! in ConfigMaps and, base64-encoded, in Secrets, so another text would change live
//! objects. Called with the arguments 0.11.2 took, each writes 0.11.2's text; called
//! with an argument only a later Jsonnet has (`manifestYamlDoc(v, quote_keys=false)`,
//! `manifestJsonEx(v, '  ', newline=…)`), which ksonnet refused, jrsonnet's own function
//! answers, in today's form.
//!
//! Numbers inside the text are printed as kf prints them in strings (docs/rendering.md,
//! "numbers in strings").

use jrsonnet_evaluator::function::builtin;
use jrsonnet_evaluator::{IStr, ObjValue, Result, Val, bail};

/// `std.escapeStringJson`'s quoting: `"`, `\` and the five short escapes, `\u00xx`
/// (lowercase) for code points below 0x20 and from 0x7e (`~`) to 0x9f (std.jsonnet:856
/// escapes `cp >= 126`), everything else as it is.
pub(super) fn quote(text: &str) -> String {
    quote_as(text, 0x7e)
}

/// `text` quoted, `\u00xx` below 0x20 and from `from` to 0x9f: escapeStringJson escaped
/// from 0x7e (`~`), Go's printer of toString from 0x7f.
fn quote_as(text: &str, from: u32) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (from..=0x9f).contains(&(c as u32)) => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A value as 0.11.2's `std.toString` wrote it (builtins.go:186, interpreter.go's
/// unparseString): a string as it is; anything else on one line, `[1, 2]`, `{"k": v}`,
/// `[ ]` and `{ }` when empty, strings quoted with `\u00xx` below 0x20 and for 0x7f–0x9f
/// (not `~`).
fn plain(value: &Val) -> Result<String> {
    if let Val::Str(s) = value {
        return Ok(s.to_string());
    }
    let mut out = String::new();
    inline(value, &TO_STRING, &mut out)?;
    Ok(out)
}

/// How [`inline`] writes a value on one line: toString's form or manifestPython's.
struct Inline {
    /// How a string, value or key, is quoted.
    quote: fn(&str) -> String,
    /// An empty array's and an empty object's text.
    empty: [&'static str; 2],
    /// `true`, `false` and `null`.
    words: [&'static str; 3],
}

/// toString's: Go's printer quoted from 0x7f, and spaced empty brackets.
const TO_STRING: Inline = Inline {
    quote: |text| quote_as(text, 0x7f),
    empty: ["[ ]", "{ }"],
    words: ["true", "false", "null"],
};

/// manifestPython's: strings quoted as escapeStringJson quotes them, Python's words.
const PYTHON: Inline = Inline {
    quote,
    empty: ["[]", "{}"],
    words: ["True", "False", "None"],
};

/// `value` on one line as `style` writes it: `[a, b]`, `{k: v}` (keys quoted, in order).
fn inline(value: &Val, style: &Inline, out: &mut String) -> Result<()> {
    match value {
        Val::Bool(b) => out.push_str(style.words[usize::from(!*b)]),
        Val::Null => out.push_str(style.words[2]),
        Val::Str(s) => out.push_str(&(style.quote)(&s.to_string())),
        Val::Arr(items) if items.is_empty() => out.push_str(style.empty[0]),
        Val::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(&item?, style, out)?;
            }
            out.push(']');
        }
        Val::Obj(obj) => {
            let fields = fields(obj)?;
            if fields.is_empty() {
                out.push_str(style.empty[1]);
                return Ok(());
            }
            out.push('{');
            for (i, (key, field)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&(style.quote)(key));
                out.push_str(": ");
                inline(field, style, out)?;
            }
            out.push('}');
        }
        other => out.push_str(&scalar(other)?.unwrap_or_default()),
    }
    Ok(())
}

/// `std.toString(a)` as 0.11.2 wrote it (see [`plain`]). `+` of a string and another
/// value is jrsonnet's own, which writes 0x7f–0x9f as they are.
#[builtin]
pub fn kf_to_string(a: Val) -> Result<String> {
    plain(&a)
}

/// The visible fields of `obj`, sorted, each with its value; the object's assertions
/// checked first, as manifesting does.
fn fields(obj: &ObjValue) -> Result<Vec<(IStr, Val)>> {
    obj.run_assertions()?;
    let mut out = Vec::new();
    for key in obj.fields() {
        let value = obj.get(key.clone())?.unwrap_or(Val::Null);
        out.push((key, value));
    }
    Ok(out)
}

fn scalar(value: &Val) -> Result<Option<String>> {
    Ok(match value {
        Val::Bool(true) => Some("true".into()),
        Val::Bool(false) => Some("false".into()),
        Val::Null => Some("null".into()),
        Val::Num(_) => Some(value.to_string()?.to_string()),
        Val::Func(_) => bail!("tried to manifest function"),
        _ => None,
    })
}

/// `std.manifestJsonEx(value, indent)`: one field or item a line, `indent` repeated per
/// level, `[`/`{` and `]`/`}` on lines of their own (an empty one has an empty line
/// between them), no final newline.
fn json_ex(value: &Val, indent: &str, current: &str, out: &mut String) -> Result<()> {
    if let Some(text) = scalar(value)? {
        out.push_str(&text);
        return Ok(());
    }
    let inner = format!("{current}{indent}");
    match value {
        Val::Str(s) => out.push_str(&quote(&s.to_string())),
        Val::Arr(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                out.push_str(&inner);
                json_ex(&item?, indent, &inner, out)?;
            }
            out.push('\n');
            out.push_str(current);
            out.push(']');
        }
        Val::Obj(obj) => {
            out.push_str("{\n");
            for (i, (key, field)) in fields(obj)?.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                out.push_str(&inner);
                out.push_str(&quote(key));
                out.push_str(": ");
                json_ex(field, indent, &inner, out)?;
            }
            out.push('\n');
            out.push_str(current);
            out.push('}');
        }
        _ => unreachable!("scalars are written above"),
    }
    Ok(())
}

/// `std.manifestYamlDoc(value)`: every key and one-line string double-quoted, a string
/// that ends in a newline as a `|` block, `"key": ` (with its space) before a nested
/// object or list on the lines below, a list's dashes at its key's column, no `---` and
/// no final newline. `indent` is the column of the value's lines, `in_object` whether it
/// is a field's value.
fn yaml(value: &Val, in_object: bool, indent: &str, out: &mut String) -> Result<()> {
    if let Some(text) = scalar(value)? {
        out.push_str(&text);
        return Ok(());
    }
    match value {
        Val::Str(s) => {
            let text = s.to_string();
            match text.strip_suffix('\n') {
                _ if text.is_empty() => out.push_str("\"\""),
                Some(body) => {
                    out.push('|');
                    for line in body.split('\n') {
                        out.push('\n');
                        out.push_str(indent);
                        out.push_str(line);
                    }
                }
                None => out.push_str(&quote(&text)),
            }
        }
        Val::Arr(items) if items.is_empty() => out.push_str("[]"),
        Val::Arr(items) => {
            let dashes = if in_object {
                indent.get(2..).unwrap_or_default()
            } else {
                indent
            };
            for (i, item) in items.iter().enumerate() {
                if i > 0 || in_object {
                    out.push('\n');
                    out.push_str(dashes);
                }
                out.push_str("- ");
                yaml(&item?, false, indent, out)?;
            }
        }
        Val::Obj(obj) => {
            let fields = fields(obj)?;
            if fields.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            let inner = format!("{indent}  ");
            for (i, (key, field)) in fields.iter().enumerate() {
                if i > 0 || in_object {
                    out.push('\n');
                    out.push_str(indent);
                }
                out.push_str(&quote(key));
                out.push_str(": ");
                yaml(field, true, &inner, out)?;
            }
        }
        _ => unreachable!("scalars are written above"),
    }
    Ok(())
}

fn json_ex_text(value: &Val, indent: &str) -> Result<String> {
    let mut out = String::new();
    json_ex(value, indent, "", &mut out)?;
    Ok(out)
}

fn yaml_doc(value: &Val) -> Result<String> {
    let mut out = String::new();
    yaml(value, false, "", &mut out)?;
    Ok(out)
}

/// `std.escapeStringJson(s)`: a non-string is written as toString writes it, then quoted.
#[builtin]
pub fn kf_escape_string_json(str_: Val) -> Result<String> {
    Ok(quote(&plain(&str_)?))
}

/// `std.escapeStringPython(s)`: escapeStringJson's text.
#[builtin]
pub fn kf_escape_string_python(str: Val) -> Result<String> {
    Ok(quote(&plain(&str)?))
}

/// `std.manifestJsonEx(value, indent)`, or jrsonnet's with a later Jsonnet's arguments.
#[builtin]
pub fn kf_manifest_json_ex(
    value: Val,
    indent: String,
    newline: Option<IStr>,
    key_val_sep: Option<IStr>,
) -> Result<String> {
    if newline.is_some() || key_val_sep.is_some() {
        return jrsonnet_stdlib::builtin_manifest_json_ex(value, indent, newline, key_val_sep);
    }
    json_ex_text(&value, &indent)
}

/// `std.manifestJson(value)`: manifestJsonEx with four spaces.
#[builtin]
pub fn kf_manifest_json(value: Val) -> Result<String> {
    json_ex_text(&value, "    ")
}

/// `std.manifestYamlDoc(value)`, or jrsonnet's with a later Jsonnet's arguments.
#[builtin]
pub fn kf_manifest_yaml_doc(
    value: Val,
    indent_array_in_object: Option<bool>,
    quote_keys: Option<bool>,
) -> Result<String> {
    if indent_array_in_object.is_some() || quote_keys.is_some() {
        return jrsonnet_stdlib::builtin_manifest_yaml_doc(
            value,
            indent_array_in_object.unwrap_or(false),
            quote_keys.unwrap_or(true),
        );
    }
    yaml_doc(&value)
}

/// `std.manifestYamlStream(value)`: `---` before each document, `...` after the last; or
/// jrsonnet's with a later Jsonnet's arguments.
#[builtin]
pub fn kf_manifest_yaml_stream(
    value: Val,
    indent_array_in_object: Option<bool>,
    c_document_end: Option<bool>,
    quote_keys: Option<bool>,
) -> Result<String> {
    if indent_array_in_object.is_some() || c_document_end.is_some() || quote_keys.is_some() {
        return jrsonnet_stdlib::builtin_manifest_yaml_stream(
            value,
            indent_array_in_object.unwrap_or(false),
            c_document_end.unwrap_or(true),
            quote_keys.unwrap_or(true),
        );
    }
    let Val::Arr(docs) = &value else {
        bail!(
            "manifestYamlStream only takes arrays, got {}",
            value.value_type()
        );
    };
    let mut out = String::from("---\n");
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("\n---\n");
        }
        out.push_str(&yaml_doc(&doc?)?);
    }
    out.push_str("\n...\n");
    Ok(out)
}

/// `std.manifestPython(o)`: `{"k": v, …}`, `[a, …]`, `True`/`False`/`None`, strings
/// quoted as escapeStringJson quotes them.
#[builtin]
pub fn kf_manifest_python(o: Val) -> Result<String> {
    let mut out = String::new();
    inline(&o, &PYTHON, &mut out)?;
    Ok(out)
}

/// `std.manifestPythonVars(conf)`: a `key = value` line per field, the key as it is.
#[builtin]
pub fn kf_manifest_python_vars(conf: ObjValue) -> Result<String> {
    let mut out = String::new();
    for (key, field) in fields(&conf)? {
        out.push_str(&key);
        out.push_str(" = ");
        inline(&field, &PYTHON, &mut out)?;
        out.push('\n');
    }
    Ok(out)
}

/// `std.escapeStringBash(s)`: a non-string is written as toString writes it first.
#[builtin]
pub fn kf_escape_string_bash(str_: Val) -> Result<String> {
    Ok(jrsonnet_stdlib::builtin_escape_string_bash(plain(&str_)?))
}

/// `std.escapeStringDollars(s)`: a non-string is written as toString writes it first.
#[builtin]
pub fn kf_escape_string_dollars(str_: Val) -> Result<String> {
    Ok(jrsonnet_stdlib::builtin_escape_string_dollars(plain(
        &str_,
    )?))
}

/// `std.manifestIni(ini)`: `main`'s fields, then each section's under `[name]`, one
/// `key = value` line each (a list: a line per item), a final newline; no line, no text.
#[builtin]
pub fn kf_manifest_ini(ini: ObjValue) -> Result<String> {
    fn body(section: &Val, lines: &mut Vec<String>) -> Result<()> {
        let Val::Obj(section) = section else {
            bail!(
                "manifestIni: a section must be an object, got {}",
                section.value_type()
            );
        };
        for (key, value) in fields(section)? {
            match &value {
                Val::Arr(items) => {
                    for item in items.iter() {
                        lines.push(format!("{key} = {}", plain(&item?)?));
                    }
                }
                other => lines.push(format!("{key} = {}", plain(other)?)),
            }
        }
        Ok(())
    }
    let mut lines = Vec::new();
    if ini.has_field("main".into()) {
        body(&ini.get("main".into())?.unwrap_or(Val::Null), &mut lines)?;
    }
    let Some(Val::Obj(sections)) = ini.get("sections".into())? else {
        bail!("manifestIni: the object has no sections object");
    };
    for (name, section) in fields(&sections)? {
        lines.push(format!("[{name}]"));
        body(&section, &mut lines)?;
    }
    if lines.is_empty() {
        return Ok(String::new());
    }
    Ok(lines.join("\n") + "\n")
}

/// `std.manifestXmlJsonml(value)`: `<tag attr="v">children</tag>`, never self-closing, and
/// nothing escaped (0.11.2 wrote `"`, `&` and `<` as they are).
#[builtin]
pub fn kf_manifest_xml_jsonml(value: Val) -> Result<String> {
    fn element(value: &Val, out: &mut String) -> Result<()> {
        let items: Vec<Val> = match value {
            Val::Str(s) => {
                out.push_str(&s.to_string());
                return Ok(());
            }
            Val::Arr(items) => items.iter().collect::<Result<_>>()?,
            other => bail!(
                "Expected a JSONML value (an array), got {}",
                other.value_type()
            ),
        };
        let Some(tag) = items.first() else {
            bail!("a JSONML element needs a tag");
        };
        let tag = plain(tag)?;
        out.push('<');
        out.push_str(&tag);
        let children = match items.get(1) {
            Some(Val::Obj(attrs)) => {
                for (key, attr) in fields(attrs)? {
                    out.push_str(&format!(" {key}=\"{}\"", plain(&attr)?));
                }
                &items[2..]
            }
            _ => &items[1..],
        };
        out.push('>');
        for child in children {
            element(child, out)?;
        }
        out.push_str("</");
        out.push_str(&tag);
        out.push('>');
        Ok(())
    }
    if !matches!(value, Val::Arr(_)) {
        bail!(
            "Expected a JSONML value (an array), got {}",
            value.value_type()
        );
    }
    let mut out = String::new();
    element(&value, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quotes_as_go_jsonnet_0_11_2_did() {
        assert_eq!(quote("a~b"), r#""a\u007eb""#);
        assert_eq!(quote("\u{7f}\u{9f}\u{a0}é/"), "\"\\u007f\\u009f\u{a0}é/\"");
        assert_eq!(quote("\"\\\n\t\u{1}"), r#""\"\\\n\t\u0001""#);
    }
}
