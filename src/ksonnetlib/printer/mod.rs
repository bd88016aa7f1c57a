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
//! - `hidden.<type>`: the standalone object `xType` links reach (`new()`, setters, `mixin`);
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

/// The helper every file of standalone objects starts with: `head + lits + { mixin:: refs }`
/// as ksonnet-lib composes each, with each part applied to its group's object, and
/// [`PLAIN_HEAD`] for a type without constructors of its own. Written out per entry, the
/// composition was most of core.v1's `hidden` file, which most renders parse on each of
/// their threads (24.5 kB; on the corpus' largest app, 5% of kf's instructions).
const STANDALONE: &str = "local standalone(group, lits, refs, head={ new():: {} }) = head + lits(group, function(o) o) + { mixin:: refs(group, function(o) o) },\n    nothing(group, mixin) = {};\n";

/// The constructors of a type ksonnet-lib gives none of its own.
const PLAIN_HEAD: &str = "new():: {}";

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
fn type_link(id: &str) -> Option<String> {
    let d = parse_description(id)?;
    if d.version.is_empty() {
        return None;
    }
    let kind = format_kind(&d.kind);
    Some(access("hidden", &[d.group_or_core(), &d.version, &kind]))
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
        Library {
            spec,
            places,
            own,
            today: super::is_todays(&spec.kubernetes_version),
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

    fn lits(&self, def: &Definition) -> String {
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
            if let Some(link) = p.type_ref.as_deref().and_then(type_link) {
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
            if let Some(link) = type_link(target) {
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
            None if base.is_empty() => PLAIN_HEAD.into(),
            None => format!("new():: {}", base.join(" + ")),
        }
    }

    /// The standalone object of a definition: constructors, setters and `mixin`, built by
    /// the file's [`STANDALONE`] helper from its head and its parts (`nothing` for a part
    /// it has not).
    fn standalone(&self, def: &Definition, from: &FileKey, head: &str) -> String {
        let part = |what: &str, present: bool| {
            if present {
                format!("import {}", quote(&self.part(&def.id, what)))
            } else {
                "nothing".into()
            }
        };
        let head = if head == PLAIN_HEAD {
            String::new()
        } else {
            format!(", {{ {head} }}")
        };
        format!(
            "standalone({}, {}, {}{head})",
            self.file_ref(from, &def.id),
            part("lits", has_lits(def)),
            part("refs", has_refs(def))
        )
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
    /// source; an index of its parts was 50 kB, parsed whole to reach one). The `hidden`
    /// standalone objects are one more file, parsed when an `xType` link is followed.
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
                let text = format!("function(this, __mixin) {{\n{}}}\n", self.lits(def));
                bodies.push((self.part(&def.id, "lits"), text));
            }
            if has_refs(def) {
                let text = format!("function(this, __mixin) {{\n{}}}\n", self.refs(def, file));
                bodies.push((self.part(&def.id, "refs"), text));
            }
        }
        // The standalone objects of the types that are not kinds, reached through the
        // `xType` links (`containersType`): a file of their own, parsed when one is used.
        let mut hidden = String::new();
        let entries = own
            .iter()
            .filter(|d| d.component.is_none() && !d.desc.version.is_empty());
        let entries = entries.map(|def| {
            (
                format_kind(&def.desc.kind),
                self.constructors(def, &[]),
                *def,
            )
        });
        self.write_standalones(&mut hidden, file, entries);
        if !hidden.is_empty() {
            let name = format!("{stem}.hidden.libsonnet");
            let _ = writeln!(body, "  hidden:: (import {})(this),", quote(&name));
            bodies.push((name, format!("{STANDALONE}function(this) {{\n{hidden}}}\n")));
        }
        let mut imports = String::from("local hidden = import 'hidden.libsonnet';\n");
        for d in &deps {
            let _ = writeln!(
                imports,
                "local {} = import {};",
                local_name(d),
                quote(&file_name(d))
            );
        }
        let header = |what: &str| {
            format!(
                "// Generated by kf from the Kubernetes {} OpenAPI spec: ksonnet-lib's {stem} API{what}.\n// Do not edit; `kf env set <env> --api-spec` regenerates it.\n{imports}",
                self.spec.kubernetes_version
            )
        };
        let helper = if kinds.is_empty() { "" } else { STANDALONE };
        let out = format!("{}{helper}local this = {{\n{body}}};\nthis\n", header(""));
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
                    header(&what)
                );
                (name, text)
            })
            .collect();
        (out, parts)
    }
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
