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
    crate::engine::lexer::is_keyword(s)
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

/// The longest definition or property name kf reads from a spec. Kubernetes names are far
/// shorter (a group is at most 253 bytes, a kind 63); a longer one is a crafted or broken
/// spec, and printing it as field names would only multiply it.
pub const MAX_NAME_LEN: usize = 1024;

#[derive(Clone, Copy, PartialEq)]
enum Slot {
    Codebase,
    Group,
    Version,
    Kind,
}

/// One of ksonnet-lib's name patterns: a literal, then captures (each one or more
/// non-space characters, as many as can be taken: a greedy `\S+`) separated by literals.
struct Pattern {
    lead: &'static str,
    /// Every capture but the last, with the literal that follows it.
    inner: &'static [(Slot, &'static str)],
    last: Slot,
}

const fn pattern(
    lead: &'static str,
    inner: &'static [(Slot, &'static str)],
    last: Slot,
) -> Pattern {
    Pattern { lead, inner, last }
}

/// ksonnet-lib's name patterns (unanchored Go regexps), tried in order; the first that
/// matches decides.
const PATTERNS: &[Pattern] = &[
    pattern(
        "io.k8s.",
        &[(Slot::Codebase, ".pkg.api."), (Slot::Version, ".")],
        Slot::Kind,
    ),
    pattern("io.k8s.api.core.", &[(Slot::Version, ".")], Slot::Kind),
    pattern(
        "io.k8s.",
        &[
            (Slot::Codebase, ".pkg.apis."),
            (Slot::Group, "."),
            (Slot::Version, "."),
        ],
        Slot::Kind,
    ),
    pattern(
        "io.k8s.api.",
        &[(Slot::Group, "."), (Slot::Version, ".")],
        Slot::Kind,
    ),
    pattern(
        "io.k8s.",
        &[(Slot::Codebase, ".pkg.util."), (Slot::Version, ".")],
        Slot::Kind,
    ),
    pattern("io.k8s.", &[(Slot::Codebase, ".pkg.version.")], Slot::Kind),
    pattern("io.k8s.", &[(Slot::Codebase, ".pkg.runtime.")], Slot::Kind),
];

/// The byte offset of the last character of `s[..end]`, if there is one.
fn last_char_start(s: &str, end: usize) -> Option<usize> {
    s[..end].chars().next_back().map(|c| end - c.len_utf8())
}

impl Pattern {
    /// The captures of the leftmost match in `run` (text without whitespace), as a
    /// backtracking regex engine finds them, in time linear in `run`'s length.
    ///
    /// A capture takes the most it can while the rest still matches, and whether the rest
    /// matches from a position only depends on the position being early enough. So,
    /// from the right: the last capture may start anywhere before the end; the literal
    /// before it is its last occurrence that leaves the capture a character; and so on
    /// leftwards. Those occurrences do not depend on where the match starts, which is the
    /// leftmost `lead` that leaves the first capture a character.
    fn captures<'a>(&self, run: &'a str) -> Option<Vec<(Slot, &'a str)>> {
        let mut bound = run.len();
        let mut seps = Vec::with_capacity(self.inner.len());
        for (_, sep) in self.inner.iter().rev() {
            // The separator must end before the last character below `bound`, so that
            // the capture after it is not empty.
            let limit = last_char_start(run, bound)?;
            let at = run[..limit].rfind(sep)?;
            seps.push(at);
            bound = at;
        }
        seps.reverse();
        let start = run.find(self.lead)? + self.lead.len();
        if start >= bound {
            return None;
        }
        let mut caps = Vec::with_capacity(self.inner.len() + 1);
        let mut from = start;
        for ((slot, sep), at) in self.inner.iter().zip(seps) {
            caps.push((*slot, &run[from..at]));
            from = at + sep.len();
        }
        caps.push((self.last, &run[from..]));
        Some(caps)
    }
}

/// Split a definition name, or `None` when it is not a Kubernetes one ksonnet-lib knows.
pub fn parse_description(name: &str) -> Option<Description> {
    for pattern in PATTERNS {
        // A match never spans whitespace: the first run holding one is the leftmost.
        let Some(caps) = name
            .split(char::is_whitespace)
            .find_map(|run| pattern.captures(run))
        else {
            continue;
        };
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

    /// The backtracking matcher kf had before (exponential on crafted names), kept as the
    /// specification the linear one must agree with.
    fn backtracking(name: &str) -> Option<Vec<(u8, String)>> {
        fn here(pieces: &[Result<&str, Slot>], s: &str, caps: &mut Vec<(u8, String)>) -> bool {
            match pieces.first() {
                None => true,
                Some(Ok(l)) => s
                    .strip_prefix(l)
                    .is_some_and(|rest| here(&pieces[1..], rest, caps)),
                Some(Err(slot)) => {
                    let run = s.find(char::is_whitespace).unwrap_or(s.len());
                    let ends: Vec<usize> = s[..run]
                        .char_indices()
                        .map(|(i, c)| i + c.len_utf8())
                        .collect();
                    for &end in ends.iter().rev() {
                        caps.push((*slot as u8, s[..end].to_string()));
                        if here(&pieces[1..], &s[end..], caps) {
                            return true;
                        }
                        caps.pop();
                    }
                    false
                }
            }
        }
        for p in PATTERNS {
            let mut pieces = vec![Ok(p.lead)];
            for (slot, sep) in p.inner {
                pieces.extend([Err(*slot), Ok(*sep)]);
            }
            pieces.push(Err(p.last));
            for (start, _) in name.char_indices() {
                let mut caps = Vec::new();
                if here(&pieces, &name[start..], &mut caps) {
                    return Some(caps);
                }
            }
        }
        None
    }

    fn linear(name: &str) -> Option<Vec<(u8, String)>> {
        PATTERNS.iter().find_map(|p| {
            name.split(char::is_whitespace)
                .find_map(|run| p.captures(run))
                .map(|caps| {
                    caps.into_iter()
                        .map(|(slot, v)| (slot as u8, v.to_string()))
                        .collect()
                })
        })
    }

    proptest::proptest! {
        #[test]
        fn the_linear_matcher_splits_every_name_as_backtracking_did(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "io.k8s.", "io.k8s.api.", "io.k8s.api.core.", ".pkg.api.", ".pkg.apis.",
                    ".pkg.util.", ".pkg.version.", ".pkg.runtime.", "pkg", ".", "..", "v1",
                    "x", "é", " ", "\t", "io", "k8s",
                ]),
                0..14,
            )
        ) {
            let name = pieces.concat();
            proptest::prop_assert_eq!(linear(&name), backtracking(&name), "{:?}", name);
        }
    }

    #[test]
    fn a_name_repeating_io_k8s_thousands_of_times_splits_at_once() {
        let name = format!("{}api.apps.v1.Deployment", "io.k8s.".repeat(20_000));
        let d = parse_description(&name).unwrap();
        assert_eq!(d.kind, "Deployment");
        assert_eq!(d.version, "v1");
        assert!(parse_description(&"io.k8s.".repeat(20_000)).is_none());
    }
}
