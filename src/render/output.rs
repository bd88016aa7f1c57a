//! Writing objects out: a YAML stream (`---` before each object) or JSON.

use std::io::{self, Write};

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
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_yaml_stream(objects, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// The YAML stream of [`to_yaml_stream`], written to `out` one object at a time: each
/// object is serialized by reference into one reused buffer, so neither the objects nor
/// the whole stream are copied.
pub fn write_yaml_stream(objects: &[RenderedObject], out: &mut dyn Write) -> io::Result<()> {
    let mut doc = String::new();
    for o in objects {
        doc.clear();
        doc.push_str("---\n");
        push_yaml_document(&mut doc, &o.object);
        out.write_all(doc.as_bytes())?;
    }
    Ok(())
}

/// One object's YAML document, as the stream holds it after its `---` line (what
/// `kf export` writes into each object's file).
pub fn yaml_document(object: &serde_json::Map<String, Value>) -> String {
    let mut doc = String::new();
    push_yaml_document(&mut doc, object);
    doc
}

fn push_yaml_document(doc: &mut String, object: &serde_json::Map<String, Value>) {
    // Plain data always serializes; an error here would be a kf bug.
    serde_saphyr::to_fmt_writer(doc, object)
        .unwrap_or_else(|e| panic!("YAML serialization failed: {e}"));
    if !doc.ends_with('\n') {
        doc.push('\n');
    }
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

/// `objects` in `format`, to `out`: the YAML stream object by object, the others whole.
pub fn write_to(objects: &[RenderedObject], format: Format, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Yaml => write_yaml_stream(objects, out),
        Format::Json => out.write_all(to_json_list(objects).as_bytes()),
        Format::Name => out.write_all(to_names(objects).as_bytes()),
    }
}
