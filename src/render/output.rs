//! Writing objects out: a YAML stream (`---` before each object) or JSON.

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// The YAML stream of [`to_yaml_stream`], written to `out` one object at a time. A long
/// stream is serialized on two threads (each object by reference into a buffer of its
/// own), and written in order; a short one on this thread into one reused buffer.
pub fn write_yaml_stream(objects: &[RenderedObject], out: &mut dyn Write) -> io::Result<()> {
    // Documents the render made are written as they are.
    let unmade = objects
        .iter()
        .filter(|o| o.yaml_document().is_none())
        .count();
    if unmade >= TWO_THREADS_FROM
        && let Some(documents) = documents_on_two_threads(objects)
    {
        for doc in &documents {
            out.write_all(doc.as_bytes())?;
        }
        return Ok(());
    }
    let mut doc = String::new();
    for o in objects {
        if let Some(made) = o.yaml_document() {
            out.write_all(b"---\n")?;
            out.write_all(made.as_bytes())?;
            continue;
        }
        doc.clear();
        stream_document(&mut doc, &o.object);
        out.write_all(doc.as_bytes())?;
    }
    Ok(())
}

/// Objects from which a stream is serialized on two threads: printing YAML is a tenth of
/// `kf show` of the corpus' Kubeflow deployments (130-150 objects, 300 kB), and a
/// thread costs more than a few objects take.
const TWO_THREADS_FROM: usize = 32;

/// Each object's document of the stream, serialized by this thread and a helper taking
/// the next object in turn; `None` if the machine has one core or the helper cannot start.
fn documents_on_two_threads(objects: &[RenderedObject]) -> Option<Vec<String>> {
    if std::thread::available_parallelism().map_or(1, std::num::NonZero::get) < 2 {
        return None;
    }
    let next = AtomicUsize::new(0);
    let serialize = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(o) = objects.get(index) else {
                return done;
            };
            let mut doc = String::new();
            match o.yaml_document() {
                Some(made) => {
                    doc.push_str("---\n");
                    doc.push_str(made);
                }
                None => stream_document(&mut doc, &o.object),
            }
            done.push((index, doc));
        }
    };
    let (mine, theirs) = std::thread::scope(|scope| {
        let helper = std::thread::Builder::new()
            .name("kf-yaml".into())
            // Printing recurses once per level of an object, as evaluating it did.
            .stack_size(super::parallel::HELPER_STACK_BYTES)
            .spawn_scoped(scope, serialize)
            .ok()?;
        let mine = serialize();
        Some((mine, helper.join().ok()?))
    })?;
    let mut documents = vec![String::new(); objects.len()];
    for (index, doc) in mine.into_iter().chain(theirs) {
        documents[index] = doc;
    }
    Some(documents)
}

fn stream_document(doc: &mut String, object: &serde_json::Map<String, Value>) {
    doc.push_str("---\n");
    push_yaml_document(doc, object);
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
/// serde_json's pretty form of the List, written item by item: an item the render made
/// ([`json_item`]) is written as it is.
pub fn to_json_list(objects: &[RenderedObject]) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_json_list(objects, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// [`to_json_list`], written to `out` one item at a time.
pub fn write_json_list(objects: &[RenderedObject], out: &mut dyn Write) -> io::Result<()> {
    if objects.is_empty() {
        return out.write_all(
            b"{\n  \"apiVersion\": \"v1\",\n  \"items\": [],\n  \"kind\": \"List\"\n}\n",
        );
    }
    out.write_all(b"{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n")?;
    for (i, o) in objects.iter().enumerate() {
        if i > 0 {
            out.write_all(b",\n")?;
        }
        match o.json_item() {
            Some(made) => out.write_all(made.as_bytes())?,
            None => out.write_all(json_item(&o.object).as_bytes())?,
        }
    }
    out.write_all(b"\n  ],\n  \"kind\": \"List\"\n}\n")
}

/// One object as an item of [`to_json_list`]'s List: pretty, each line indented by the
/// two levels it sits at (a JSON string holds no raw newline), no newline after.
pub fn json_item(object: &serde_json::Map<String, Value>) -> String {
    let pretty = serde_json::to_string_pretty(object).unwrap_or_default();
    let mut out = String::with_capacity(pretty.len() + pretty.len() / 8);
    for (i, line) in pretty.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str("    ");
        out.push_str(line);
    }
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
        Format::Json => write_json_list(objects, out),
        Format::Name => out.write_all(to_names(objects).as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ConfigMaps of uneven sizes (so that the threads finish out of turn).
    fn config_maps(count: usize) -> Vec<RenderedObject> {
        (0..count)
            .map(|i| {
                let object = serde_json::json!({
                    "kind": "ConfigMap",
                    "metadata": { "name": format!("m{i}") },
                    "data": { "v": "x".repeat((i * 7919) % 5000) },
                });
                RenderedObject::new(
                    format!("c{i}"),
                    object.as_object().cloned().unwrap_or_default(),
                )
            })
            .collect()
    }

    fn documents(objects: &[RenderedObject]) -> String {
        objects
            .iter()
            .map(|o| format!("---\n{}", yaml_document(&o.object)))
            .collect()
    }

    /// A long stream is serialized on two threads: the documents come out in the
    /// objects' order, each as it is alone.
    #[test]
    fn a_long_stream_is_the_objects_documents_in_order() {
        let objects = config_maps(TWO_THREADS_FROM * 3);
        assert_eq!(to_yaml_stream(&objects), documents(&objects));
        assert!(to_yaml_stream(&objects).contains("name: m95\n"));
        assert_eq!(to_yaml_stream(&objects[..3]), documents(&objects[..3]));
    }

    /// Documents the render made (`RenderOptions::documents`) are written in their
    /// place, among objects whose documents are made here, on one thread or two.
    #[test]
    fn made_documents_are_written_in_their_place() {
        for count in [5, TWO_THREADS_FROM * 3] {
            let plain = config_maps(count);
            let mut mixed = plain.clone();
            for o in mixed.iter_mut().step_by(3) {
                o.keep_document_only(crate::render::DocumentFormat::Yaml);
            }
            assert!(mixed[0].yaml_document().is_some() && mixed[1].yaml_document().is_none());
            assert_eq!(to_yaml_stream(&mixed), documents(&plain), "{count} objects");
            let mut all_made = plain.clone();
            all_made
                .iter_mut()
                .for_each(|o| o.keep_document_only(crate::render::DocumentFormat::Yaml));
            assert_eq!(
                to_yaml_stream(&all_made),
                documents(&plain),
                "{count} objects"
            );
        }
    }

    /// The List written item by item is serde_json's pretty List, byte for byte, with
    /// items made by the render or not.
    #[test]
    fn the_json_list_is_serde_jsons_pretty_list() {
        let pretty = |objects: &[RenderedObject]| {
            let items: Vec<&serde_json::Map<String, Value>> =
                objects.iter().map(|o| &o.object).collect();
            let list = serde_json::json!({ "apiVersion": "v1", "items": items, "kind": "List" });
            serde_json::to_string_pretty(&list).unwrap() + "\n"
        };
        assert_eq!(to_json_list(&[]), pretty(&[]));
        let mut objects = config_maps(3);
        let odd = serde_json::json!({"apiVersion": "v1", "kind": "X", "metadata": {"name": "o"},
            "spec": {"empty": {}, "none": [], "list": [1, "two\nlines", {"a": null}], "n": 1.5}});
        objects.push(RenderedObject::new(
            "c".into(),
            odd.as_object().unwrap().clone(),
        ));
        let expected = pretty(&objects);
        assert_eq!(to_json_list(&objects), expected);
        for o in &mut objects[1..] {
            o.keep_document_only(crate::render::DocumentFormat::Json);
        }
        assert!(objects[3].json_item().is_some());
        assert_eq!(to_json_list(&objects), expected);
    }
}
