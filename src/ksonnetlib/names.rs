//! ksonnet-lib's naming rules: how a definition name splits into codebase, group, version
//! and kind, and how a property or kind name becomes a Jsonnet field name (`clusterIP` →
//! `clusterIp`, `$ref` → `dollarRef`, `error` → `errorParam`). The rules are facts about
//! ksonnet-lib's generator (ksonnet/ksonnet-lib ksonnet-gen/ksonnet/strings.go and
//! description.go); real apps call these names, so they are kept exactly.

/// Words that cannot be field or parameter names as they are (ksonnet-lib's list, which
/// predates `importbin` and handles `local` on its own).
const KEYWORDS: &[&str] = &[
    "assert",
    "else",
    "error",
    "false",
    "for",
    "function",
    "if",
    "import",
    "importstr",
    "in",
    "null",
    "tailstrict",
    "then",
    "self",
    "super",
    "true",
];

/// Words Jsonnet reserves (ksonnet-lib's list and the two it handles otherwise): a field
/// with such a name must be written quoted.
fn is_reserved(s: &str) -> bool {
    crate::params::lexer::is_keyword(s)
}

/// Acronym runs lowered but for their first letter: `clusterIP` → `clusterIp`,
/// `APIService` → `ApiService`, `hostIPC` → `hostIpc`.
fn capitalize(input: &str) -> String {
    let b = input.as_bytes();
    if b.len() <= 1 || !input.is_ascii() {
        return input.to_string();
    }
    let last = b.len() - 1;
    let up = |i: usize| b[i].is_ascii_uppercase();
    let mut out = String::with_capacity(b.len());
    out.push(b[0] as char);
    for (i, &c) in b.iter().enumerate().skip(1) {
        let lower = up(i - 1)
            && if i < last {
                up(i + 1) || (up(i) && i + 1 == last)
            } else {
                up(i)
            };
        out.push(if lower { c.to_ascii_lowercase() } else { c } as char);
    }
    out
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Go's `strings.Title`: every letter that follows a non-letter (or starts the string)
/// upper-cased.
fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut prev_letter = false;
    for c in s.chars() {
        let letter = c.is_alphanumeric() || c == '_' || c == '\'';
        if letter && !prev_letter {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = letter;
    }
    out
}

/// A kind or property name as ksonnet-lib names its field: `ConfigMap` → `configMap`,
/// `clusterIP` → `clusterIp`, `$ref` → `dollarRef`, `local` → `localStorage`, a keyword
/// gets `Param` appended.
pub fn format_kind(s: &str) -> String {
    if s.eq_ignore_ascii_case("local") {
        return "localStorage".into();
    }
    if let Some(rest) = s.strip_prefix('$') {
        return format!("dollar{}", title(rest));
    }
    let out = lower_first(&capitalize(s));
    if KEYWORDS.contains(&out.as_str()) {
        out + "Param"
    } else {
        out
    }
}

/// `withX` (or `withXMixin`) for a property.
pub fn setter(property: &str, mixin: bool) -> String {
    let base = format!("with{}", title(&format_kind(property)));
    if mixin { base + "Mixin" } else { base }
}

pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !is_reserved(s)
}

/// A field name as Jsonnet source: bare when it can be, quoted otherwise.
pub fn field_key(s: &str) -> String {
    if is_identifier(s) {
        s.to_string()
    } else {
        quote(s)
    }
}

/// A Jsonnet string literal (JSON's escaping is valid Jsonnet).
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// What a definition name says of itself (ksonnet-lib's `ParseDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Description {
    pub codebase: String,
    /// Empty for the core group.
    pub group: String,
    /// Empty for unversioned definitions (`runtime.RawExtension`, `version.Info`).
    pub version: String,
    pub kind: String,
}

impl Description {
    /// The group as ksonnet-lib files it: `core` when the name has none.
    pub fn group_or_core(&self) -> &str {
        if self.group.is_empty() {
            "core"
        } else {
            &self.group
        }
    }
}

#[derive(Clone, Copy)]
enum Piece {
    Lit(&'static str),
    /// One or more non-space characters, as many as can be taken (a greedy `\S+`).
    Cap(Slot),
}

#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Codebase,
    Group,
    Version,
    Kind,
}

use Piece::{Cap, Lit};

/// ksonnet-lib's name patterns, tried in order; the first that matches decides.
const PATTERNS: &[&[Piece]] = &[
    &[
        Lit("io.k8s."),
        Cap(Slot::Codebase),
        Lit(".pkg.api."),
        Cap(Slot::Version),
        Lit("."),
        Cap(Slot::Kind),
    ],
    &[
        Lit("io.k8s.api.core."),
        Cap(Slot::Version),
        Lit("."),
        Cap(Slot::Kind),
    ],
    &[
        Lit("io.k8s."),
        Cap(Slot::Codebase),
        Lit(".pkg.apis."),
        Cap(Slot::Group),
        Lit("."),
        Cap(Slot::Version),
        Lit("."),
        Cap(Slot::Kind),
    ],
    &[
        Lit("io.k8s.api."),
        Cap(Slot::Group),
        Lit("."),
        Cap(Slot::Version),
        Lit("."),
        Cap(Slot::Kind),
    ],
    &[
        Lit("io.k8s."),
        Cap(Slot::Codebase),
        Lit(".pkg.util."),
        Cap(Slot::Version),
        Lit("."),
        Cap(Slot::Kind),
    ],
    &[
        Lit("io.k8s."),
        Cap(Slot::Codebase),
        Lit(".pkg.version."),
        Cap(Slot::Kind),
    ],
    &[
        Lit("io.k8s."),
        Cap(Slot::Codebase),
        Lit(".pkg.runtime."),
        Cap(Slot::Kind),
    ],
];

/// Match `pieces` at the start of `s`, greedy and backtracking like a regex.
fn match_here<'a>(pieces: &[Piece], s: &'a str, caps: &mut Vec<(Slot, &'a str)>) -> bool {
    match pieces.first() {
        None => true,
        Some(Lit(l)) => s
            .strip_prefix(l)
            .is_some_and(|rest| match_here(&pieces[1..], rest, caps)),
        Some(Cap(slot)) => {
            let run = s.find(char::is_whitespace).unwrap_or(s.len());
            let ends: Vec<usize> = s[..run]
                .char_indices()
                .map(|(i, c)| i + c.len_utf8())
                .collect();
            for &end in ends.iter().rev() {
                caps.push((*slot, &s[..end]));
                if match_here(&pieces[1..], &s[end..], caps) {
                    return true;
                }
                caps.pop();
            }
            false
        }
    }
}

/// Split a definition name, or `None` when it is not a Kubernetes one ksonnet-lib knows.
pub fn parse_description(name: &str) -> Option<Description> {
    for pattern in PATTERNS {
        for (start, _) in name.char_indices() {
            let mut caps = Vec::new();
            if match_here(pattern, &name[start..], &mut caps) {
                let get = |slot: Slot| {
                    caps.iter()
                        .find(|(s, _)| *s == slot)
                        .map(|(_, v)| v.to_string())
                        .unwrap_or_default()
                };
                let codebase = get(Slot::Codebase);
                return Some(Description {
                    codebase: if codebase.is_empty() {
                        "api".into()
                    } else {
                        codebase
                    },
                    group: get(Slot::Group),
                    version: get(Slot::Version),
                    kind: get(Slot::Kind),
                });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_ksonnet_lib() {
        assert_eq!(format_kind("ConfigMap"), "configMap");
        assert_eq!(format_kind("APIService"), "apiService");
        assert_eq!(format_kind("clusterIP"), "clusterIp");
        assert_eq!(format_kind("hostIPC"), "hostIpc");
        assert_eq!(format_kind("volumeID"), "volumeId");
        assert_eq!(format_kind("downwardAPI"), "downwardApi");
        assert_eq!(format_kind("$ref"), "dollarRef");
        assert_eq!(format_kind("error"), "errorParam");
        assert_eq!(format_kind("local"), "localStorage");
        assert_eq!(setter("clusterIP", false), "withClusterIp");
        assert_eq!(setter("$schema", true), "withDollarSchemaMixin");
        assert_eq!(setter("error", false), "withErrorParam");
        assert_eq!(field_key("error"), "\"error\"");
        assert_eq!(field_key("spec"), "spec");
    }

    #[test]
    fn definition_names_split_as_ksonnet_lib_splits_them() {
        let d = parse_description("io.k8s.api.apps.v1.Deployment").unwrap();
        assert_eq!((d.group.as_str(), d.version.as_str()), ("apps", "v1"));
        assert_eq!(
            (d.codebase.as_str(), d.kind.as_str()),
            ("api", "Deployment")
        );
        let d = parse_description("io.k8s.api.core.v1.PodSpec").unwrap();
        assert_eq!((d.group_or_core(), d.version.as_str()), ("core", "v1"));
        let d = parse_description("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta").unwrap();
        assert_eq!(
            (d.codebase.as_str(), d.group.as_str()),
            ("apimachinery", "meta")
        );
        let d = parse_description("io.k8s.apimachinery.pkg.api.resource.Quantity").unwrap();
        assert_eq!(
            (d.group_or_core(), d.version.as_str()),
            ("core", "resource")
        );
        let d = parse_description("io.k8s.apimachinery.pkg.util.intstr.IntOrString").unwrap();
        assert_eq!(d.version, "intstr");
        let d = parse_description("io.k8s.apimachinery.pkg.runtime.RawExtension").unwrap();
        assert_eq!((d.version.as_str(), d.kind.as_str()), ("", "RawExtension"));
        let d =
            parse_description("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1beta1.APIService")
                .unwrap();
        assert_eq!(
            (d.group.as_str(), d.version.as_str()),
            ("apiregistration", "v1beta1")
        );
        assert!(parse_description("com.example.v1.Widget").is_none());
    }
}
