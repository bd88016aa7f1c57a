//! `std.parseJson` without a Jsonnet value per JSON value. jrsonnet's builds the whole
//! document as Jsonnet values (an interned string per key and string, an object with its
//! field table per object), and rendering then walks them back to JSON. Registry packages
//! import large JSON files (Kubeflow v0.5's seldon package puts a 277 kB pod template
//! schema into its CRD twice; json_import.rs reads such imports as `std.parseJson` does),
//! and most of a document is only ever written out again.
//!
//! So the text is read into a plain tree ([`Json`]) once; a Jsonnet object or array is
//! made of a node only when something reads it, and each object made so is remembered
//! with its node: when rendering meets one of those objects, [`object_json`] gives its JSON
//! straight from the tree. An object changed by Jsonnet (`o + {…}`) is a new object and is
//! walked as any other; the objects inside it still come from the tree.
//!
//! The values are those jrsonnet's `std.parseJson` gives: the same parser (serde_json)
//! accepts the same texts, numbers become the same doubles, a key given twice keeps its
//! last value, and any text this reader refuses is handed to jrsonnet's, for its error.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use jrsonnet_evaluator::rustc_hash::FxHashMap;
use jrsonnet_evaluator::val::MemoizedClosureThunk;
use jrsonnet_evaluator::{IStr, ObjValue, Thunk, Val};
use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::limits::MAX_ARRAY_ITEMS;

/// A parsed JSON document. Arrays and objects are shared, so that a Jsonnet value made
/// later holds its part of the tree without copying it.
#[derive(Debug, Clone)]
enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(Box<str>),
    Array(Rc<[Json]>),
    /// Members in the order written; a key may come twice (the last one counts).
    Object(Members),
}

type Members = Rc<[(Box<str>, Json)]>;

// Plain data: nothing the cycle collector could reach.
impl jrsonnet_gcmodule::Trace for Json {
    fn is_type_tracked() -> bool {
        false
    }
}

thread_local! {
    /// Each object made from a tree, with its members. Holding the object keeps its
    /// address from being reused while it is here.
    static MADE: RefCell<FxHashMap<ObjValue, Members>> =
        RefCell::default();
}

thread_local! {
    /// Values json_import.rs found to be data, parsed when it checked them, by the id the
    /// local it wrote in place of the import asks for (see [`kept`]).
    static KEPT: RefCell<FxHashMap<u64, Parsed>> = RefCell::default();
}

/// The next id [`keep_if_data`] gives: ids are never reused in a process, so a local of
/// one engine never gets what another kept.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A document and the length of its longest array.
struct Parsed(Json, usize);

/// `std.parseJson(text)`.
pub fn parse(text: &str) -> Option<Val> {
    read(text)?.to_val()
}

/// The value kept under `id` by [`keep_if_data`] on this thread, if it still is (an
/// engine's end forgets them; the local then reads its file again).
pub fn kept(id: u64) -> Option<Val> {
    KEPT.with_borrow(|kept| kept.get(&id).and_then(Parsed::to_val))
}

impl Parsed {
    fn to_val(&self) -> Option<Val> {
        // Rendering refuses arrays past the limit, naming where they are: such a
        // document is left to jrsonnet's values, whose walk does that.
        (self.1 <= MAX_ARRAY_ITEMS).then(|| to_val(&self.0))
    }
}

fn read(text: &str) -> Option<Parsed> {
    let mut longest = 0;
    let mut reader = serde_json::Deserializer::from_str(text);
    let json = Seed(&mut longest).deserialize(&mut reader).ok()?;
    // Only blanks may follow the document.
    reader.end().ok()?;
    Some(Parsed(json, longest))
}

/// Whether `std.parseJson(text)` gives the value that evaluating `text` as Jsonnet gives:
/// `text` is strict JSON (no comments or trailing commas, numbers in range, nesting within
/// serde_json's limit), no object has a key twice (an error in a Jsonnet object literal,
/// while `std.parseJson` keeps one), and no string has the escape `\/` (JSON's, which
/// jrsonnet's lexer refuses). Anything else is left to the engine.
fn as_data(text: &str) -> Option<Parsed> {
    if memchr::memmem::find(text.as_bytes(), b"\\/").is_some() {
        return None;
    }
    let parsed = read(text)?;
    (!has_a_key_twice(&parsed.0, &mut Vec::new())).then_some(parsed)
}

/// Whether `std.parseJson(text)` gives the value that evaluating `text` as Jsonnet gives
/// (`as_data` says when).
pub fn reads_as_data(text: &str) -> bool {
    as_data(text).is_some()
}

/// [`as_data`]: if `text` is data, keep its value on this thread and return its id.
pub fn keep_if_data(text: &str) -> Option<u64> {
    let parsed = as_data(text)?;
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    KEPT.with_borrow_mut(|kept| kept.insert(id, parsed));
    Some(id)
}

/// Whether an object in `json` has a key twice. `keys` is one stack for the keys of every
/// object being checked (each object's above its children's), so that checking allocates
/// nothing per object.
fn has_a_key_twice<'j>(json: &'j Json, keys: &mut Vec<&'j str>) -> bool {
    match json {
        Json::Array(items) => items.iter().any(|item| has_a_key_twice(item, keys)),
        Json::Object(members) => {
            if members
                .iter()
                .any(|(_, value)| has_a_key_twice(value, keys))
            {
                return true;
            }
            let start = keys.len();
            keys.extend(members.iter().map(|(key, _)| &**key));
            let own = &mut keys[start..];
            own.sort_unstable();
            let twice = own.windows(2).any(|w| w[0] == w[1]);
            keys.truncate(start);
            twice
        }
        _ => false,
    }
}

/// The JSON of `obj` if it was made from a parsed document and nothing has changed it
/// since (Jsonnet objects are immutable: a change makes another object).
pub fn object_json(obj: &ObjValue) -> Option<Value> {
    MADE.with_borrow(|made| {
        if made.is_empty() {
            return None;
        }
        made.get(obj).map(|members| object_to_json(members))
    })
}

/// Forget the objects made so far (their engine is gone; rendering another engine's
/// objects only walks them instead), and the parses kept for an engine's imports.
pub fn forget() {
    MADE.with_borrow_mut(FxHashMap::clear);
    KEPT.with_borrow_mut(FxHashMap::clear);
}

fn to_val(json: &Json) -> Val {
    match json {
        Json::Null => Val::Null,
        Json::Bool(b) => Val::Bool(*b),
        Json::Number(n) => Val::try_num(*n).unwrap_or(Val::Null),
        Json::String(s) => Val::string(&**s),
        Json::Array(items) => Val::arr(items.iter().map(lazy).collect::<Vec<_>>()),
        Json::Object(members) => {
            let mut builder = ObjValue::builder_with_capacity(members.len());
            for (key, value) in members.iter() {
                builder.field(IStr::from(&**key)).thunk(lazy(value));
            }
            let obj = builder.build();
            MADE.with_borrow_mut(|made| made.insert(obj.clone(), members.clone()));
            Val::Obj(obj)
        }
    }
}

/// `json` as a Jsonnet value: at once for a scalar, when first read for the others.
fn lazy(json: &Json) -> Thunk<Val> {
    match json {
        Json::Array(_) | Json::Object(_) => {
            Thunk::new(MemoizedClosureThunk::new(json.clone(), |json| {
                Ok(to_val(&json))
            }))
        }
        scalar => Thunk::evaluated(to_val(scalar)),
    }
}

fn to_json(json: &Json) -> Value {
    match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => super::number_to_json(*n),
        Json::String(s) => Value::String(s.to_string()),
        Json::Array(items) => Value::Array(items.iter().map(to_json).collect()),
        Json::Object(members) => object_to_json(members),
    }
}

fn object_to_json(members: &[(Box<str>, Json)]) -> Value {
    let mut out = Map::new();
    for (key, value) in members {
        out.insert(key.to_string(), to_json(value));
    }
    Value::Object(out)
}

/// Reads a [`Json`], noting the length of the longest array.
struct Seed<'a>(&'a mut usize);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    // Integers become doubles as jrsonnet's reader makes them (`as f64`).
    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Number(v as f64))
    }

    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json, E> {
        Ok(Json::Number(v as f64))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json, E> {
        if v.is_finite() {
            Ok(Json::Number(v))
        } else {
            Err(E::custom("number out of range"))
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.into()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Seed(&mut *self.0))? {
            items.push(item);
        }
        *self.0 = (*self.0).max(items.len());
        Ok(Json::Array(items.into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<Key>()? {
            members.push((key.0, map.next_value_seed(Seed(&mut *self.0))?));
        }
        Ok(Json::Object(members.into()))
    }
}

/// An object key.
struct Key(Box<str>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document with an array past rendering's limit is left to jrsonnet's reader, so
    /// that rendering refuses it with the path to the array.
    #[test]
    fn an_array_past_the_limit_is_left_to_jrsonnet() {
        let items = vec!["0"; MAX_ARRAY_ITEMS + 1].join(",");
        assert!(parse(&format!("{{\"a\": [{items}]}}")).is_none());
        let items = ["0"; 3].join(",");
        assert!(parse(&format!("{{\"a\": [{items}]}}")).is_some());
    }

    /// json_import.rs's check keeps the value of a text that is data under an id of its
    /// own, for the local it writes; a text that is not data is not kept.
    #[test]
    fn a_kept_value_is_found_by_its_id() {
        let text = r#"{"a": [1, {"b": null}], "c": "d"}"#;
        let id = keep_if_data(text).expect("data");
        let other = keep_if_data("[1]").expect("data");
        assert_ne!(id, other);
        let Some(Val::Obj(obj)) = kept(id) else {
            panic!("an object")
        };
        assert_eq!(
            object_json(&obj),
            Some(serde_json::json!({"a": [1, {"b": null}], "c": "d"}))
        );
        assert!(kept(id).is_some(), "kept for every use");
        for not_data in [
            r#"{"k": 1, "k": 2}"#,
            r#"[{"x": {"k": 1, "k": 1}}]"#,
            "{a: 1}",
        ] {
            assert_eq!(keep_if_data(not_data), None, "{not_data}");
        }
        forget();
        assert!(kept(id).is_none(), "an engine's end forgets them");
    }
}
