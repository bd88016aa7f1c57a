//! The Jsonnet printer: an [`ApiSpec`] as ksonnet-lib's API, split into one file per
//! group and version so that a render parses only the groups it touches.
//!
//! ksonnet-lib wrote every nested type out in full under every kind that holds it
//! (3.7 MB for v1.10). kf writes each definition once, as functions of `__mixin` (the
//! function that puts a fragment at the definition's place in the object):
//! - `lits.<type>(__mixin)`: the `withX`/`withXMixin` setters, each `self + fragment`, and
//!   the `xType` links of array properties;
//! - `refs.<type>(__mixin)`: one nested object per object-valued property, with its `xType`;
//! - `nested.<type>(__mixin)`: both, which is what a nested path like
//!   `deployment.mixin.spec.template.spec` is (with the `mixinInstance` its parent adds);
//! - `hidden.<type>`: the standalone object `xType` links reach, a file of its own (`new()`,
//!   setters, `mixin`);
//! - `kinds.<kind>`: the top-level objects (`new()` with the kind's apiVersion and kind).
//!
//! Every path and chain of ksonnet-lib exists with the same behaviour; Jsonnet's laziness
//! builds only the objects a component reaches.

mod files;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::ksonnetlib::constructors::{self, Constructor};
use crate::ksonnetlib::model::{ApiSpec, Definition, Literal, PropertyKind};
use crate::ksonnetlib::names::{
    field_key, format_kind, is_identifier, parse_description, quote, setter,
};

pub use files::print;

/// The folder beside k8s.libsonnet that holds the per-group files.
pub const PARTS_DIR: &str = "k8s";

/// A file of the library: (group, version); the version is empty for unversioned types.
type FileKey = (String, String);

struct Place {
    file: FileKey,
    /// The type's key in its part files' names (`core.v1.lits.<part>.libsonnet`): its
    /// name in the file, or its place in the file's list where that name is not plain
    /// letters and digits.
    part: String,
}

struct Library<'a> {
    spec: &'a ApiSpec,
    /// Where each definition's functions live (its own group and version).
    places: BTreeMap<&'a str, Place>,
    /// The definitions whose functions each file holds, in the spec's order.
    own: BTreeMap<FileKey, Vec<&'a Definition>>,
    /// A library for an API ksonnet never generated one for ([`constructors::TODAY_SINCE`]
    /// on): ksonnet-lib's shape without its bugs that the API server would see.
    today: bool,
    /// The definition each `hidden.<group>.<version>.<type>` path gives: the first of that
    /// name in its group and version, as in ksonnet-lib.
    hidden: BTreeMap<String, &'a str>,
}

/// `core.v1`: the API a file holds, and the start of its own and its parts' names.
fn stem(file: &FileKey) -> String {
    if file.1.is_empty() {
        file.0.clone()
    } else {
        format!("{}.{}", file.0, file.1)
    }
}

fn file_name(file: &FileKey) -> String {
    format!("{}.libsonnet", stem(file))
}

fn local_name(file: &FileKey) -> String {
    let raw = format!("f_{}_{}", file.0, file.1);
    raw.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// `a.b.c` with each part bare or bracketed as Jsonnet needs.
fn access(base: &str, parts: &[&str]) -> String {
    let mut out = base.to_string();
    for p in parts {
        if is_identifier(p) {
            out.push('.');
            out.push_str(p);
        } else {
            let _ = write!(out, "[{}]", quote(p));
        }
    }
    out
}

fn param_name(property: &str) -> String {
    let p: String = format_kind(property)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if is_identifier(&p) {
        p
    } else {
        format!("{p}_")
    }
}

/// A method field: `name(args):: body`, or `"name":: function(args) body` when `name`
/// is not an identifier.
fn method(name: &str, args: &str, body: &str) -> String {
    if is_identifier(name) {
        format!("{name}({args}):: {body}")
    } else {
        format!("{}:: function({args}) {body}", quote(name))
    }
}

/// `hidden.<group>.<version>.<type>` for the definition `id`, if ksonnet-lib links it.
fn hidden_path(id: &str) -> Option<String> {
    let d = parse_description(id)?;
    if d.version.is_empty() {
        return None;
    }
    let kind = format_kind(&d.kind);
    Some(access("hidden", &[d.group_or_core(), &d.version, &kind]))
}

/// Whether a definition has a standalone object in its group's `hidden` (types that are
/// not kinds).
fn is_hidden(def: &Definition) -> bool {
    def.component.is_none() && !def.desc.version.is_empty()
}

impl<'a> Library<'a> {
    fn new(spec: &'a ApiSpec) -> Library<'a> {
        let mut places = BTreeMap::new();
        let mut own: BTreeMap<FileKey, Vec<&Definition>> = BTreeMap::new();
        let mut taken: BTreeSet<(FileKey, String)> = BTreeSet::new();
        // The next suffix to try for a name already taken: every lower one is taken, so
        // a spec with thousands of same-named kinds costs no more than one with distinct
        // names.
        let mut next_suffix: BTreeMap<(FileKey, String), usize> = BTreeMap::new();
        for def in spec.definitions.values() {
            let file = (def.group().to_string(), def.desc.version.clone());
            let base = format_kind(&def.desc.kind);
            let mut key = base.clone();
            if !taken.insert((file.clone(), key.clone())) {
                let n = next_suffix.entry((file.clone(), base.clone())).or_insert(2);
                loop {
                    key = format!("{base}_{n}");
                    *n += 1;
                    if taken.insert((file.clone(), key.clone())) {
                        break;
                    }
                }
            }
            let list = own.entry(file.clone()).or_default();
            let part = if key.chars().all(|c| c.is_ascii_alphanumeric()) {
                key.clone()
            } else {
                list.len().to_string()
            };
            list.push(def);
            places.insert(def.id.as_str(), Place { file, part });
        }
        let mut hidden = BTreeMap::new();
        for (file, defs) in &own {
            let mut seen = BTreeSet::new();
            for def in defs.iter().filter(|d| is_hidden(d)) {
                let name = format_kind(&def.desc.kind);
                let path = access("hidden", &[&file.0, &file.1, &name]);
                if seen.insert(name) {
                    hidden.insert(path, def.id.as_str());
                }
            }
        }
        Library {
            spec,
            places,
            own,
            today: super::is_todays(&spec.kubernetes_version),
            hidden,
        }
    }

    /// The part file holding `what` (`lits` or `refs`) of the definition `id`.
    fn part(&self, id: &str, what: &str) -> String {
        let place = &self.places[id];
        format!("{}.{what}.{}.libsonnet", stem(&place.file), place.part)
    }

    /// `id`'s part `what` applied to its group's object and `args` (`, <mixin>` or none).
    /// Every file names the parts it uses directly: an index of a group's parts would be
    /// parsed whole to reach one (core.v1's were 50 kB).
    fn part_call(&self, from: &FileKey, id: &str, what: &str, args: &str) -> String {
        format!(
            "(import {})({}{args})",
            quote(&self.part(id, what)),
            self.file_ref(from, id)
        )
    }

    /// The nested object of the type `id` at the place `mixin` puts it: its setters and
    /// its nested objects.
    fn nested(&self, from: &FileKey, id: &str, mixin: &str) -> String {
        let def = &self.spec.definitions[id];
        let mut parts = Vec::new();
        if has_lits(def) {
            parts.push(self.part_call(from, id, "lits", &format!(", {mixin}")));
        }
        if has_refs(def) {
            parts.push(self.part_call(from, id, "refs", &format!(", {mixin}")));
        }
        if parts.is_empty() {
            return "{}".into();
        }
        parts.join(" + ")
    }

    /// How `from` refers to the file holding `id`'s functions.
    fn file_ref(&self, from: &FileKey, id: &str) -> String {
        let place = &self.places[id];
        if &place.file == from {
            "this".into()
        } else {
            local_name(&place.file)
        }
    }

    /// The definition whose standalone object an `xType` link to `id` gives, if any.
    fn link_target(&self, id: &str) -> Option<&'a str> {
        self.hidden.get(&hidden_path(id)?).copied()
    }

    /// An `xType` link from `from` to `id`: the standalone object ksonnet-lib's
    /// `hidden.<group>.<version>.<type>` gives, read from that type's own file, so that
    /// following a link does not parse its group's whole `hidden` (core.v1's is 24 kB,
    /// which most renders reached for `containersType` alone, on each of their threads);
    /// the path itself where it names no type (an error when followed, as in ksonnet-lib).
    fn type_link(&self, from: &FileKey, id: &str) -> Option<String> {
        let path = hidden_path(id)?;
        Some(match self.hidden.get(&path) {
            Some(target) => format!(
                "(import {})({})",
                quote(&self.part(target, "hidden")),
                self.file_ref(from, target)
            ),
            None => path,
        })
    }

    fn lits(&self, def: &Definition, file: &FileKey) -> String {
        let mut out = String::new();
        for p in &def.properties {
            let PropertyKind::Literal(kind) = p.kind else {
                continue;
            };
            let arg = param_name(&p.name);
            let key = field_key(&p.name);
            let frag = |plus: &str, value: &str| format!("__mixin({{ {key}{plus}: {value} }})");
            let setters: Vec<(String, String)> = match kind {
                Literal::Item => {
                    vec![(setter(&p.name, false), format!("self + {}", frag("", &arg)))]
                }
                Literal::Object => vec![
                    (setter(&p.name, false), format!("self + {}", frag("", &arg))),
                    (setter(&p.name, true), format!("self + {}", frag("+", &arg))),
                ],
                Literal::Array => [(false, ""), (true, "+")]
                    .iter()
                    .map(|(mixin, plus)| {
                        (
                            setter(&p.name, *mixin),
                            format!(
                                "self + if std.type({arg}) == 'array' then {} else {}",
                                frag(plus, &arg),
                                frag(plus, &format!("[{arg}]"))
                            ),
                        )
                    })
                    .collect(),
            };
            for (name, body) in setters {
                let _ = writeln!(out, "      {},", method(&name, &arg, &body));
            }
            if let Some(link) = p.type_ref.as_deref().and_then(|t| self.type_link(file, t)) {
                let _ = writeln!(
                    out,
                    "      {}:: {link},",
                    field_key(&format!("{}Type", p.name))
                );
            }
        }
        out
    }

    fn refs(&self, def: &Definition, file: &FileKey) -> String {
        let mut out = String::new();
        for p in &def.properties {
            let PropertyKind::Reference(target) = &p.kind else {
                continue;
            };
            // ksonnet-lib writes a nested object's fragment under the field's formatted
            // name (`scaleIo+:` for `scaleIO`), which the API server drops: a bug real
            // apps were rendered with, kept in ksonnet's versions, mended in today's.
            let name = format_kind(&p.name);
            let (key, arg) = (field_key(&name), param_name(&p.name));
            let field = if self.today {
                field_key(&p.name)
            } else {
                key.clone()
            };
            let nested = self.nested(
                file,
                target,
                &format!("function(o) __mixin({{ {field}+: o }})"),
            );
            let _ = writeln!(
                out,
                "      {key}:: {nested} + {{ {} }},",
                method(
                    "mixinInstance",
                    &arg,
                    &format!("__mixin({{ {field}+: {arg} }})")
                )
            );
            if let Some(link) = self.type_link(file, target) {
                let _ = writeln!(
                    out,
                    "      {}:: {link},",
                    field_key(&format!("{}Type", p.name))
                );
            }
        }
        out
    }

    /// `base + self.a.withX(x).withY(y) + self.b.withZ(z)`, as ksonnet-lib composes them.
    fn constructor(&self, ctor: &Constructor, base: &[&str]) -> String {
        let mut by_path: BTreeMap<String, Vec<(&str, &str)>> = BTreeMap::new();
        // `mixin.spec.withReplicas` → (`self.mixin.spec`, `withReplicas`)
        let place = |setter: &'static str| match setter.rsplit_once('.') {
            Some((path, func)) => (format!("self.{path}"), func),
            None => ("self".to_string(), setter),
        };
        for p in ctor.params {
            for setter in std::iter::once(p.setter).chain(p.also) {
                let (path, func) = place(setter);
                by_path.entry(path).or_default().push((func, p.name));
            }
        }
        let mut items: Vec<String> = base.iter().map(|b| b.to_string()).collect();
        for (path, mut calls) in by_path {
            calls.sort();
            let chain: String = calls.iter().map(|(f, a)| format!(".{f}({a})")).collect();
            items.push(format!("{path}{chain}"));
        }
        let args: Vec<String> = ctor
            .params
            .iter()
            .map(|p| format!("{}={}", p.name, p.default.jsonnet()))
            .collect();
        method(ctor.name, &args.join(", "), &items.join(" + "))
    }

    fn constructors(&self, def: &Definition, base: &[&str]) -> String {
        match constructors::custom(
            &def.desc.codebase,
            def.group(),
            def.version(),
            def.kind(),
            self.today,
        ) {
            Some(ctors) => {
                let mut seen = BTreeSet::new();
                ctors
                    .iter()
                    .filter(|c| seen.insert(c.name))
                    .map(|c| self.constructor(c, base))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
            None if base.is_empty() => "new():: {}".into(),
            None => format!("new():: {}", base.join(" + ")),
        }
    }

    /// The standalone object of a definition: constructors, setters and `mixin`.
    fn standalone(&self, def: &Definition, from: &FileKey, head: &str) -> String {
        let mut parts = vec![format!("{{ {head} }}")];
        if has_lits(def) {
            parts.push(self.part_call(from, &def.id, "lits", ", function(o) o"));
        }
        if has_refs(def) {
            parts.push(format!(
                "{{ mixin:: {} }}",
                self.part_call(from, &def.id, "refs", ", function(o) o")
            ));
        } else {
            parts.push("{ mixin:: {} }".into());
        }
        parts.join(" + ")
    }

    /// `name:: <standalone object>,` for each (name, constructor head, definition); the
    /// first definition of a name wins, as in ksonnet-lib.
    fn write_standalones<'d>(
        &self,
        body: &mut String,
        file: &FileKey,
        entries: impl Iterator<Item = (String, String, &'d Definition)>,
    ) {
        let mut seen = BTreeSet::new();
        for (name, head, def) in entries {
            if seen.insert(name.clone()) {
                let _ = writeln!(
                    body,
                    "    {}:: {},",
                    field_key(&name),
                    self.standalone(def, file, &head)
                );
            }
        }
    }

    /// The file of a group and version, and its parts. The group file holds the kinds;
    /// each definition's `lits` and `refs` are files of their own, which the files that
    /// use them import by name, so a render parses only the parts of the types it reaches
    /// (core.v1 is 143 kB whole, and parsing costs a hundred bytes of memory per byte of
    /// source; an index of its parts was 50 kB, parsed whole to reach one). So is each
    /// standalone object an `xType` link gives, and the group's `hidden` lists them.
    fn file(&self, file: &FileKey, kinds: &[&Definition]) -> (String, Vec<(String, String)>) {
        let own: &[&Definition] = self.own.get(file).map(Vec::as_slice).unwrap_or(&[]);
        let mut deps: BTreeSet<FileKey> = BTreeSet::new();
        let mut note = |id: &str| {
            let f = &self.places[id].file;
            if f != file {
                deps.insert(f.clone());
            }
        };
        for def in kinds {
            note(&def.id);
        }
        for p in own.iter().flat_map(|d| &d.properties) {
            if let PropertyKind::Reference(t) = &p.kind {
                note(t);
            }
            let linked = match &p.kind {
                PropertyKind::Reference(t) => Some(t.as_str()),
                _ => p.type_ref.as_deref(),
            };
            if let Some(target) = linked.and_then(|t| self.link_target(t)) {
                note(target);
            }
        }
        let mut body = String::new();
        if !kinds.is_empty() {
            body.push_str("  kinds:: {\n");
            let api_version = kinds[0].api_version().unwrap_or_default();
            let _ = writeln!(
                body,
                "    local apiVersion = {{ apiVersion: {} }},",
                quote(&api_version)
            );
            let entries = kinds.iter().map(|def| {
                let head = format!(
                    "local kind = {{ kind: {} }}, {}",
                    quote(def.kind()),
                    self.constructors(def, &["apiVersion", "kind"])
                );
                (format_kind(def.kind()), head, *def)
            });
            self.write_standalones(&mut body, file, entries);
            body.push_str("  },\n");
        }
        let stem = stem(file);
        // (part file name, its text after the header).
        let mut bodies: Vec<(String, String)> = Vec::new();
        for def in own {
            if has_lits(def) {
                let text = format!("function(this, __mixin) {{\n{}}}\n", self.lits(def, file));
                bodies.push((self.part(&def.id, "lits"), text));
            }
            if has_refs(def) {
                let text = format!("function(this, __mixin) {{\n{}}}\n", self.refs(def, file));
                bodies.push((self.part(&def.id, "refs"), text));
            }
        }
        // The standalone objects of the types that are not kinds, which the `xType` links
        // (`containersType`) give: a file each, and the group's `hidden`, an index of
        // them, for code that reaches them through it.
        let mut hidden = String::new();
        for def in own.iter().filter(|d| is_hidden(d)) {
            if self.link_target(&def.id) != Some(def.id.as_str()) {
                continue;
            }
            let name = self.part(&def.id, "hidden");
            let _ = writeln!(
                hidden,
                "    {}:: (import {})(this),",
                field_key(&format_kind(&def.desc.kind)),
                quote(&name)
            );
            let object = self.standalone(def, file, &self.constructors(def, &[]));
            bodies.push((name, format!("function(this)\n  {object}\n")));
        }
        if !hidden.is_empty() {
            let name = format!("{stem}.hidden.libsonnet");
            let _ = writeln!(body, "  hidden:: (import {})(this),", quote(&name));
            bodies.push((name, format!("function(this) {{\n{hidden}}}\n")));
        }
        // (local name, its line): each file gets those it uses.
        let mut imports = vec![(
            "hidden".to_string(),
            "local hidden = import 'hidden.libsonnet';\n".to_string(),
        )];
        for d in &deps {
            let name = local_name(d);
            let line = format!("local {name} = import {};\n", quote(&file_name(d)));
            imports.push((name, line));
        }
        let header = |what: &str, body: &str| {
            let mut out = format!(
                "// Generated by kf from the Kubernetes {} OpenAPI spec: ksonnet-lib's {stem} API{what}.\n// Do not edit; `kf env set <env> --api-spec` regenerates it.\n",
                self.spec.kubernetes_version
            );
            for (name, line) in &imports {
                if uses(body, name) {
                    out.push_str(line);
                }
            }
            out
        };
        let out = format!("{}local this = {{\n{body}}};\nthis\n", header("", &body));
        let parts = bodies
            .into_iter()
            .map(|(name, body)| {
                let what = name
                    .strip_prefix(&format!("{stem}."))
                    .and_then(|r| r.strip_suffix(".libsonnet"))
                    .map(|r| format!(", {r}"))
                    .unwrap_or_default();
                let text = format!(
                    "{}// `this` is the group's object; `__mixin` as in ksonnet-lib.\n{body}",
                    header(&what, &body)
                );
                (name, text)
            })
            .collect();
        (out, parts)
    }
}

/// Whether `body` names the local `name` (not as part of a longer name or a path).
fn uses(body: &str, name: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    body.match_indices(name).any(|(at, _)| {
        let before = body.as_bytes()[..at].last();
        let after = body.as_bytes().get(at + name.len());
        !before.is_some_and(|&b| word(b) || b == b'.') && !after.is_some_and(|&b| word(b))
    })
}

fn has_lits(def: &Definition) -> bool {
    def.properties
        .iter()
        .any(|p| matches!(p.kind, PropertyKind::Literal(_)))
}

fn has_refs(def: &Definition) -> bool {
    def.properties
        .iter()
        .any(|p| matches!(p.kind, PropertyKind::Reference(_)))
}
