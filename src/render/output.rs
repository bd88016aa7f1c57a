//! Writing objects out: a YAML stream (`---` before each object) or JSON.

use serde_json::Value;

use super::RenderedObject;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
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

pub fn write(objects: &[RenderedObject], format: Format) -> String {
    match format {
        Format::Yaml => to_yaml_stream(objects),
        Format::Json => to_json_list(objects),
    }
}
