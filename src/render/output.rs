//! Writing objects out: a YAML stream (`---` before each object) or JSON.

use serde_json::Value;

use super::RenderedObject;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
    /// `kind.group/name` lines, as `kubectl get -o name` prints them.
    Name,
}

/// YAML as kubectl (a YAML 1.1 reader) will read it back: strings such as `yes`, `on`,
/// `0777` or `1.10` are quoted by the emitter.
pub fn to_yaml_stream(objects: &[RenderedObject]) -> String {
    let mut out = String::new();
    for o in objects {
        out.push_str("---\n");
        out.push_str(&crate::app::to_yaml(&Value::Object(o.object.clone())));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `-o json`: one `v1` List of every object, 2-space indented, whatever their number
/// (what `ks show -o json` and `kubectl get -o json` print, so `jq '.items[]'` works).
pub fn to_json_list(objects: &[RenderedObject]) -> String {
    #[derive(serde::Serialize)]
    struct List<'a> {
        #[serde(rename = "apiVersion")]
        api_version: &'static str,
        items: Vec<&'a serde_json::Map<String, Value>>,
        kind: &'static str,
    }
    let list = List {
        api_version: "v1",
        items: objects.iter().map(|o| &o.object).collect(),
        kind: "List",
    };
    let mut out = serde_json::to_string_pretty(&list).unwrap_or_default();
    out.push('\n');
    out
}

/// `-o name`: one `kind.group/name` line per object, as `kubectl get -o name` prints it
/// (lowercase kind; the group only for a non-core apiVersion), so `xargs kubectl …` works.
pub fn to_names(objects: &[RenderedObject]) -> String {
    let mut out = String::new();
    for o in objects {
        let field = |k: &str| o.object.get(k).and_then(Value::as_str).unwrap_or("");
        let kind = field("kind").to_lowercase();
        let name = o
            .object
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        match field("apiVersion").split_once('/') {
            Some((group, _)) => out.push_str(&format!("{kind}.{group}/{name}\n")),
            None => out.push_str(&format!("{kind}/{name}\n")),
        }
    }
    out
}

pub fn write(objects: &[RenderedObject], format: Format) -> String {
    match format {
        Format::Yaml => to_yaml_stream(objects),
        Format::Json => to_json_list(objects),
        Format::Name => to_names(objects),
    }
}
