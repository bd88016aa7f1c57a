//! A module's `components` params, each entry read only when something asks for it.
//!
//! ksonnet's params files are plain literals (params/literal.rs). Such a file is checked
//! whole once, and each entry stays the range of text it was written in until read: a
//! render of one component out of thousands builds that one's params, not every one's.
//! Files that are not plain are evaluated by the engine and held as JSON, as before.

use std::rc::Rc;

use serde_json::{Map, Value};

use crate::app::Module;
use crate::params::literal::Fields;

#[derive(Debug, Clone)]
pub struct Entries(Inner);

#[derive(Debug, Clone)]
enum Inner {
    Values(Map<String, Value>),
    /// The file's text and, sorted by name, each entry's range in it.
    Text {
        text: Rc<str>,
        fields: Rc<Fields>,
    },
}

impl Default for Entries {
    fn default() -> Self {
        Entries(Inner::Values(Map::new()))
    }
}

impl From<Map<String, Value>> for Entries {
    fn from(map: Map<String, Value>) -> Self {
        Entries(Inner::Values(map))
    }
}

impl Entries {
    /// Entries of a plain params file: `fields` as [`crate::params::literal::fields_along`]
    /// gives them for the `components` object of `text` (sorted, no name twice).
    pub fn in_text(text: Rc<str>, fields: Fields) -> Self {
        debug_assert!(fields.windows(2).all(|w| w[0].0 < w[1].0));
        Entries(Inner::Text {
            text,
            fields: Rc::new(fields),
        })
    }

    /// The entries' names, sorted.
    pub fn names(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        match &self.0 {
            Inner::Values(map) => Box::new(map.keys().map(String::as_str)),
            Inner::Text { fields, .. } => Box::new(fields.iter().map(|(n, _)| n.as_str())),
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        match &self.0 {
            Inner::Values(map) => map.contains_key(name),
            Inner::Text { fields, .. } => fields
                .binary_search_by(|(n, _)| n.as_str().cmp(name))
                .is_ok(),
        }
    }

    /// Entry `name`, built now.
    pub fn get(&self, name: &str) -> Option<Value> {
        match &self.0 {
            Inner::Values(map) => map.get(name).cloned(),
            Inner::Text { text, fields } => {
                let at = fields
                    .binary_search_by(|(n, _)| n.as_str().cmp(name))
                    .ok()?;
                // The range was checked as a plain value with the whole file; reading it
                // alone gives that value (its nesting only counts from a lower start).
                Some(crate::params::literal::value(&text[fields[at].1.clone()]).unwrap_or_default())
            }
        }
    }

    /// Every entry, built.
    pub fn to_map(&self) -> Map<String, Value> {
        match &self.0 {
            Inner::Values(map) => map.clone(),
            Inner::Text { .. } => self
                .names()
                .filter_map(|n| Some((n.to_string(), self.get(n)?)))
                .collect(),
        }
    }
}

/// One module's params.libsonnet as written: `global` and `components`, before `global`
/// is applied.
#[derive(Debug, Clone, Default)]
pub struct RawParams {
    pub global: Value,
    /// Keyed by the component's name within the module.
    pub components: Entries,
}

impl RawParams {
    /// Entry `local` with `global` merge-patched in (global wins).
    pub fn entry(&self, local: &str) -> Option<Value> {
        let mut params = self.components.get(local)?;
        if let Value::Object(g) = &self.global
            && !g.is_empty()
        {
            super::merge_patch(&mut params, &self.global);
        }
        Some(params)
    }
}

/// The modules a render reads params from, with their params: what the env's
/// params.libsonnet sees as `components`, keyed by full component name.
pub type ModuleParams = Rc<Vec<(Module, RawParams)>>;

/// The module and local name that full name `name` has params under. Two modules can give
/// the same full name (`a.b`: root entry `a.b`, module `a` entry `b`); the later module
/// in the list wins, as when the entries are collected in order into one map.
pub fn owner<'a>(modules: &'a [(Module, RawParams)], name: &'a str) -> Option<(usize, &'a str)> {
    modules
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, (module, raw))| {
            let local = if module.name.is_empty() {
                name
            } else {
                name.strip_prefix(module.name.as_str())?.strip_prefix('.')?
            };
            raw.components.contains(local).then_some((i, local))
        })
}

/// The module params of full name `name`, `global` applied.
pub fn entry(modules: &[(Module, RawParams)], name: &str) -> Option<Value> {
    let (i, local) = owner(modules, name)?;
    modules[i].1.entry(local)
}

/// Every full name that has module params, each once, sorted.
pub fn full_names(modules: &[(Module, RawParams)]) -> Vec<String> {
    let mut names: Vec<String> = modules
        .iter()
        .flat_map(|(module, raw)| raw.components.names().map(|l| module.full_name(l)))
        .collect();
    if modules.len() > 1 {
        names.sort_unstable();
        names.dedup();
    }
    names
}
