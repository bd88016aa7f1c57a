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

/// ksonnet's JSON output: 2-space indented objects, `---` between them when there are several.
pub fn to_json_stream(objects: &[RenderedObject]) -> String {
    let mut out = String::new();
    for o in objects {
        if objects.len() > 1 {
            out.push_str("---\n");
        }
        out.push_str(&serde_json::to_string_pretty(&o.object).unwrap_or_default());
        out.push('\n');
    }
    out
}

pub fn write(objects: &[RenderedObject], format: Format) -> String {
    match format {
        Format::Yaml => to_yaml_stream(objects),
        Format::Json => to_json_stream(objects),
    }
}
