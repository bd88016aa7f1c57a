//! Edits of app.yaml that change only what they must: the entries whose values changed are
//! rewritten in place, new entries are added at the end of their map, and every other line
//! (comments, key order, ksonnet's bare `0.3.0`) stays byte for byte. ksonnet apps are
//! reviewed in git; a one-line `env add` should be a one-block diff.
//!
//! It understands block-style maps (what ksonnet and kf write). Anything else, and any
//! result that does not read back as the intended value, falls back to a full rewrite.

use serde_json::Value;

/// The text of `original` (which holds `old`) changed to hold `new`, or `None` when it
/// cannot be done in place.
pub fn edit(original: &str, old: &Value, new: &Value) -> Option<String> {
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    let mut out = String::with_capacity(original.len() + 256);
    edit_map(&lines, 0, old.as_object()?, new.as_object()?, &mut out)?;
    let back: Value = serde_saphyr::from_str(&out).ok()?;
    (&back == new).then_some(out)
}

/// A whole document for `value` (a map) in the same style, or `None` if it would not read
/// back as `value`.
pub fn render(value: &Value) -> Option<String> {
    let mut out = String::new();
    for (k, v) in value.as_object()? {
        write_entry(k, v, 0, &mut out);
    }
    let back: Value = serde_saphyr::from_str(&out).ok()?;
    (&back == value).then_some(out)
}

/// An entry of a block map: `key:` at `indent`, its lines `start..end`.
struct Entry {
    key: String,
    start: usize,
    end: usize,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#')
}

/// The key of a `key: …` line at exactly `indent`, if it is one.
fn key_at(line: &str, indent: usize) -> Option<String> {
    if indent_of(line) != indent || is_blank_or_comment(line) {
        return None;
    }
    let t = line.trim_end_matches(['\n', '\r']).trim_start();
    if t.starts_with('-') || t.starts_with(['{', '[', '&', '*', '!', '?', '|', '>']) {
        return None;
    }
    let (k, rest) = if let Some(q) = t.strip_prefix('"') {
        let end = q.find('"')?;
        (q[..end].to_string(), &q[end + 1..])
    } else if let Some(q) = t.strip_prefix('\'') {
        let end = q.find('\'')?;
        (q[..end].to_string(), &q[end + 1..])
    } else {
        let colon = t.find(':')?;
        (t[..colon].trim_end().to_string(), &t[colon..])
    };
    (rest.starts_with(':') && (rest.len() == 1 || rest[1..].starts_with([' ', '\n', '\r'])))
        .then_some(k)
}

/// The entries of the map whose keys sit at `indent` in `lines`.
fn entries(lines: &[&str], indent: usize) -> Option<Vec<Entry>> {
    let mut out: Vec<Entry> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(key) = key_at(line, indent) {
            if let Some(last) = out.last_mut() {
                last.end = i;
            }
            out.push(Entry {
                key,
                start: i,
                end: lines.len(),
            });
        } else if !is_blank_or_comment(line) && indent_of(line) <= indent && !out.is_empty() {
            // Something at this indent that is not a key: not a plain block map.
            if indent_of(line) < indent || !line.trim_start().starts_with('-') {
                return None;
            }
        }
    }
    // Trailing comments and blank lines stay where they are, outside the last entry.
    if let Some(last) = out.last_mut() {
        while last.end > last.start + 1 && is_blank_or_comment(lines[last.end - 1]) {
            last.end -= 1;
        }
    }
    Some(out)
}

fn edit_map(
    lines: &[&str],
    indent: usize,
    old: &serde_json::Map<String, Value>,
    new: &serde_json::Map<String, Value>,
    out: &mut String,
) -> Option<()> {
    let found = entries(lines, indent)?;
    // Every key of the old value must be where the text says it is.
    if found.len() != old.len() || found.iter().any(|e| !old.contains_key(&e.key)) {
        return None;
    }
    let prefix_end = found.first().map_or(lines.len(), |e| e.start);
    out.extend(lines[..prefix_end].iter().copied());
    let mut cursor = prefix_end;
    for e in &found {
        out.extend(lines[cursor..e.start].iter().copied());
        cursor = e.end;
        let (Some(was), now) = (old.get(&e.key), new.get(&e.key)) else {
            return None;
        };
        match now {
            None => {}
            Some(now) if now == was => out.extend(lines[e.start..e.end].iter().copied()),
            Some(now) => {
                let body = &lines[e.start + 1..e.end];
                let child = body
                    .iter()
                    .find(|l| !is_blank_or_comment(l))
                    .map(|l| indent_of(l));
                let value_on_key_line = lines[e.start]
                    .split_once(':')
                    .is_some_and(|(_, v)| !v.trim().is_empty() && !v.trim().starts_with('#'));
                match (was.as_object(), now.as_object(), child) {
                    (Some(w), Some(n), Some(c)) if c > indent && !value_on_key_line => {
                        out.push_str(lines[e.start]);
                        edit_map(body, c, w, n, out)?;
                    }
                    _ => write_entry(&e.key, now, indent, out),
                }
            }
        }
    }
    out.extend(lines[cursor..].iter().copied());
    // New keys go after the map's last entry (before what trails it).
    let added: Vec<(&String, &Value)> = new.iter().filter(|(k, _)| !old.contains_key(*k)).collect();
    if !added.is_empty() {
        let mut tail = String::new();
        for (k, v) in added {
            write_entry(k, v, indent, &mut tail);
        }
        let insert_at = insertion_point(out, lines, cursor);
        out.insert_str(insert_at, &tail);
    }
    Some(())
}

/// Byte offset in `out` right after the last entry of the map just written (before the
/// trailing comments and blank lines that followed it).
fn insertion_point(out: &str, lines: &[&str], cursor: usize) -> usize {
    let trailing: usize = lines[cursor.min(lines.len())..]
        .iter()
        .map(|l| l.len())
        .sum();
    let mut at = out.len() - trailing;
    if at > 0 && !out[..at].ends_with('\n') {
        at = out.len();
    }
    at
}

/// `key: value` (or `key:` and a block) at `indent`.
fn write_entry(key: &str, value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let key = scalar(&Value::String(key.to_string()));
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push_str(&format!("{pad}{key}:\n"));
            for (k, v) in m {
                write_entry(k, v, indent + 2, out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            out.push_str(&format!("{pad}{key}:\n"));
            for item in a {
                write_item(item, indent, out);
            }
        }
        other => out.push_str(&format!("{pad}{key}: {}\n", scalar(other))),
    }
}

/// `- item` at `indent` (go-yaml's style: a list's dashes at its key's indent).
fn write_item(value: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(m) if !m.is_empty() => {
            let mut first = true;
            for (k, v) in m {
                let mut entry = String::new();
                write_entry(k, v, indent + 2, &mut entry);
                if first {
                    out.push_str(&format!("{pad}- {}", &entry[indent + 2..]));
                    first = false;
                } else {
                    out.push_str(&entry);
                }
            }
        }
        other => out.push_str(&format!("{pad}- {}\n", scalar(other))),
    }
}

/// A scalar as YAML: plain when it reads back as the same string in YAML 1.1 and 1.2.
fn scalar(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if plain_ok(s) => s.clone(),
        Value::String(s) => serde_json::to_string(s).unwrap_or_default(),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

fn plain_ok(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let special = [
        "", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n",
    ];
    if special.contains(&lower.as_str()) || s.trim() != s {
        return false;
    }
    let looks_numeric = s
        .trim_start_matches(['+', '-'])
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == '_' || c == 'e' || c == 'E')
        && s.chars().filter(|c| *c == '.').count() <= 1
        || s.starts_with("0x")
        || s.starts_with("0o")
        || lower == ".inf"
        || lower == ".nan";
    if looks_numeric || s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    !s.starts_with([
        '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@',
        '`',
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KSONNET: &str = "apiVersion: 0.3.0\nenvironments:\n  default:\n    destination:\n      namespace: kubeflow\n      server: https://127.0.0.1:6443\n    k8sVersion: v1.10.3\n    path: default\nkind: ksonnet.io/app\n# the registries\nregistries:\n  kubeflow:\n    protocol: fs\n    uri: /tmp/reg # local\nversion: 0.0.1\n";

    fn old() -> Value {
        serde_saphyr::from_str(KSONNET).unwrap()
    }

    #[test]
    fn an_added_environment_is_the_only_change() {
        let mut new = old();
        new["environments"]["prod"] = json!({
            "destination": {"namespace": "kf-prod", "server": "https://10.0.0.1:6443"},
            "k8sVersion": "v1.10.3",
            "path": "prod",
        });
        let out = edit(KSONNET, &old(), &new).unwrap();
        let added = "  prod:\n    destination:\n      namespace: kf-prod\n      server: https://10.0.0.1:6443\n    k8sVersion: v1.10.3\n    path: prod\n";
        assert_eq!(
            out,
            KSONNET.replace(
                "kind: ksonnet.io/app\n",
                &format!("{added}kind: ksonnet.io/app\n")
            )
        );
    }

    #[test]
    fn a_changed_value_keeps_comments_order_and_bare_versions() {
        let mut new = old();
        new["environments"]["default"]["destination"]["namespace"] = json!("ml");
        new["libraries"] =
            json!({"kubeflow/argo": {"name": "argo", "registry": "kubeflow", "version": ""}});
        let out = edit(KSONNET, &old(), &new).unwrap();
        assert!(out.starts_with("apiVersion: 0.3.0\n"), "{out}");
        assert!(out.contains("      namespace: ml\n"), "{out}");
        assert!(out.contains("# the registries\n") && out.contains("uri: /tmp/reg # local\n"));
        assert!(out.ends_with("version: 0.0.1\nlibraries:\n  kubeflow/argo:\n    name: argo\n    registry: kubeflow\n    version: \"\"\n"), "{out}");
    }

    #[test]
    fn a_removed_entry_goes_and_flow_style_falls_back() {
        let mut new = old();
        new.as_object_mut().unwrap().remove("registries");
        let out = edit(KSONNET, &old(), &new).unwrap();
        assert!(!out.contains("kubeflow:\n    protocol") && out.contains("# the registries"));
        let flow = "{apiVersion: 0.3.0, kind: ksonnet.io/app}\n";
        let v: Value = serde_saphyr::from_str(flow).unwrap();
        let mut n = v.clone();
        n["name"] = json!("x");
        assert_eq!(edit(flow, &v, &n), None);
    }

    #[test]
    fn scalars_are_quoted_only_when_yaml_would_misread_them() {
        for s in [
            "0.3.0",
            "v1.10.3",
            "https://a:6443",
            "kubeflow/argo",
            "ml-prod",
        ] {
            assert_eq!(scalar(&json!(s)), s);
        }
        for s in ["", "yes", "1.5", "0x1F", "a: b", " x", "true", "null", "-1"] {
            assert!(scalar(&json!(s)).starts_with('"'), "{s}");
        }
    }
}
