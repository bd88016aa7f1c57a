//! A component's value made JSON a piece at a time, so that a component of thousands of
//! objects is never JSON whole beside jrsonnet's own values: a list's items one by one,
//! and in Tanka's shape (objects and arrays holding Kubernetes objects) each object with
//! an `apiVersion` or a `kind` on its own. The render checks and prints each piece before
//! the next is made (src/render/worker.rs).

use std::fmt::Write as _;

use jrsonnet_evaluator::{ObjValue, Val, in_description_frame};
use serde_json::Value;

use super::{Engine, EvalError, MAX_ARRAY_ITEMS, parse_json, val_to_json, watchdog};

/// What [`Engine::field_json_items`] found.
pub enum FieldJson {
    /// No such field.
    Missing,
    /// A value made JSON whole: an object with an `apiVersion` or a `kind` (one object, or
    /// a `List`), or anything that is neither an object nor an array.
    Whole(Value),
    /// An array or a nested object, whose pieces went to `each`.
    Pieces,
}

/// A piece [`Engine::field_json_items`] gives.
pub enum Piece<'a> {
    /// Item `i` of a list.
    Item(usize),
    /// What a nested object holds at this path (`.app.deployment`, `.jobs[2]`): an object
    /// with an `apiVersion` or a `kind`, or anything not an object or an array.
    Nested(&'a str),
}

/// Why [`Engine::field_json_items`] stopped: an evaluation error, or the error `each`
/// returned.
pub enum ItemsError {
    Eval(EvalError),
    Item(String),
}

/// An object the walk goes into: one without a visible `apiVersion` or `kind` (Tanka's
/// rule), that is not JSON already.
fn goes_into(obj: &ObjValue) -> bool {
    !obj.has_field_ex("apiVersion".into(), false)
        && !obj.has_field_ex("kind".into(), false)
        && parse_json::object_json(obj).is_none()
}

impl Engine {
    /// A field's value as JSON, made a piece at a time when it is an array (each item) or
    /// an object in Tanka's shape (each object it holds): each piece goes to `each` before
    /// the next is made. The frames of an error are those of the value made JSON whole.
    /// An error of `each` stops the walk and is returned as it is.
    pub fn field_json_items(
        &self,
        obj: &ObjValue,
        field: &str,
        each: &mut dyn FnMut(Piece, Value) -> Result<(), String>,
    ) -> Result<FieldJson, ItemsError> {
        let _g = self.enter();
        let _e = watchdog::Evaluating::start(|| format!("component '{field}'"));
        let mut stopped = None;
        let walked = match obj.get(field.into()) {
            Ok(None) => return Ok(FieldJson::Missing),
            Ok(Some(Val::Arr(arr))) if arr.len() as usize <= MAX_ARRAY_ITEMS => {
                let mut walk = || {
                    for (i, item) in arr.iter().enumerate() {
                        let json = in_description_frame(
                            || format!("array index [{i}]"),
                            || val_to_json(&item?),
                        )?;
                        if let Err(why) = each(Piece::Item(i), json) {
                            stopped = Some(why);
                            return Err(stop());
                        }
                    }
                    Ok(())
                };
                walk()
            }
            Ok(Some(Val::Obj(o))) if goes_into(&o) => {
                let mut walker = Walker {
                    each,
                    stopped: &mut stopped,
                    path: String::new(),
                };
                walker.walk(Val::Obj(o))
            }
            Ok(Some(v)) => {
                return val_to_json(&v)
                    .map(FieldJson::Whole)
                    .map_err(|e| ItemsError::Eval(self.format_error(&e)));
            }
            Err(e) => Err(e),
        };
        match (walked, stopped) {
            (_, Some(why)) => Err(ItemsError::Item(why)),
            (Ok(()), None) => Ok(FieldJson::Pieces),
            (Err(e), None) => Err(ItemsError::Eval(self.format_error(&e))),
        }
    }
}

/// The error that unwinds the walk when `each` refused a piece (its reason is kept aside).
fn stop() -> jrsonnet_evaluator::Error {
    jrsonnet_evaluator::RuntimeError("a piece was refused".into()).into()
}

struct Walker<'e> {
    each: &'e mut dyn FnMut(Piece, Value) -> Result<(), String>,
    stopped: &'e mut Option<String>,
    path: String,
}

impl Walker<'_> {
    fn walk(&mut self, val: Val) -> jrsonnet_evaluator::Result<()> {
        let at = self.path.len();
        match val {
            Val::Obj(obj) if goes_into(&obj) => {
                let mut keys = obj.fields();
                keys.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                for key in keys {
                    let _ = write!(self.path, ".{key}");
                    in_description_frame(
                        || format!("field <{key}>"),
                        || match obj.get(key.clone())? {
                            Some(v) => self.walk(v),
                            None => Ok(()),
                        },
                    )?;
                    self.path.truncate(at);
                }
                Ok(())
            }
            Val::Arr(arr) if arr.len() as usize <= MAX_ARRAY_ITEMS => {
                for (i, item) in arr.iter().enumerate() {
                    let _ = write!(self.path, "[{i}]");
                    in_description_frame(|| format!("array index [{i}]"), || self.walk(item?))?;
                    self.path.truncate(at);
                }
                Ok(())
            }
            other => {
                let json = val_to_json(&other)?;
                if let Err(why) = (self.each)(Piece::Nested(&self.path), json) {
                    *self.stopped = Some(why);
                    return Err(stop());
                }
                Ok(())
            }
        }
    }
}
