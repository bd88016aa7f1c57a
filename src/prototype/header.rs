//! The annotation header of a prototype: `// @name`, `// @param`, `// @optionalParam`, …

pub use crate::params::ParamType;

#[derive(Debug, Clone, PartialEq)]
pub struct ParamSpec {
    pub name: String,
    pub kind: ParamType,
    /// Jsonnet source of the default; `None` for a required param.
    pub default: Option<String>,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Prototype {
    /// Full name, e.g. `io.ksonnet.pkg.deployed-service`.
    pub name: String,
    pub api_version: String,
    pub description: String,
    pub short_description: String,
    pub params: Vec<ParamSpec>,
    /// Jsonnet after the header.
    pub body: String,
    /// Where it came from, for messages (`kf:prototypes/x.jsonnet`, a vendor path, …).
    pub source: String,
    /// The registry package it belongs to; `None` for kf's generic prototypes.
    pub package: Option<crate::registry::PackageRef>,
    /// What must be on the cluster for its objects to run (`// @requires` lines, kf's own
    /// directive: an operator, CRDs, a Secret), in the order written.
    pub requires: Vec<String>,
    /// The upstream releases and source files its output was checked against, and how
    /// (`// @checkedAgainst` lines, kf's own directive), in the order written.
    pub checked_against: Vec<String>,
    /// The oldest Kubernetes that serves its objects, and which of their APIs decides it
    /// (`// @kubernetes v1.21.0 batch/v1 CronJob`, kf's own directive): `prototype list`
    /// offers it only to apps with an environment that new.
    pub kubernetes: Option<(String, String)>,
    /// Who refuses an object whose `name` param is not a DNS-1035 label (`// @nameRule
    /// dns1035 <who, and where in their source>`, kf's own directive): `generate` and
    /// `param set name` check it.
    pub name_rule: Option<String>,
    pub conventions: Conventions,
}

/// Whose rules a prototype was written to: kf's own, or ksonnet's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conventions {
    /// kf's generic prototypes and its registry's packages (built in, or vendored by kf):
    /// a `null` default is null, and values are typed by the declared param type when
    /// generated and when set with `kf param set`.
    Kf,
    /// Any other registry's (Kubeflow's ksonnet-era ones): declared types were
    /// documentation to ksonnet (Kubeflow v0.5 declares `deployHttpProxy string false`
    /// and sets it to `true`), and a `string null` default was stored as the string
    /// "null", which their Jsonnet compares against. kf keeps both as ksonnet did.
    Ksonnet,
}

impl Prototype {
    /// Why the `name` param's value `name` breaks the prototype's `@nameRule`, if it does.
    pub fn name_problem(&self, name: &str) -> Option<String> {
        let who = self.name_rule.as_ref()?;
        let why = crate::app::dns1035_problem(name)?;
        Some(format!(
            "name '{}' is not a DNS-1035 label ({why}), and {who} refuses it; give it lower-case letters, digits and -, starting with a letter, at most 63 characters",
            name.escape_debug()
        ))
    }

    /// The part after the last `.`: `deployed-service`.
    pub fn short_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    pub fn required(&self) -> impl Iterator<Item = &ParamSpec> {
        self.params.iter().filter(|p| p.default.is_none())
    }

    pub fn optional(&self) -> impl Iterator<Item = &ParamSpec> {
        self.params.iter().filter(|p| p.default.is_some())
    }

    /// What must be there for its objects to run, as `prototype describe` and its doc page
    /// list them: the Kubernetes version it needs, then its `@requires` lines.
    pub fn requirements(&self) -> Vec<String> {
        self.kubernetes
            .iter()
            .map(|(version, api)| format!("Kubernetes {version} or newer ({api})"))
            .chain(self.requires.iter().cloned())
            .collect()
    }

    /// Whether Kubernetes `k8s_version` serves its objects (see [`Prototype::kubernetes`]).
    pub fn served_by(&self, k8s_version: &str) -> bool {
        use crate::k8s_version::version_triple;
        self.kubernetes
            .as_ref()
            .is_none_or(|(oldest, _)| version_triple(k8s_version) >= version_triple(oldest))
    }

    /// Whether `app` has an environment that serves its objects (outside an app, or in one
    /// without environments, every prototype is).
    pub fn offered_to(&self, app: Option<&crate::app::App>) -> bool {
        let Some(app) = app else { return true };
        let envs = app.environments();
        envs.is_empty() || envs.iter().any(|e| self.served_by(&e.k8s_version))
    }
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("{source_name}:{line}: {message}")]
pub struct HeaderError {
    pub source_name: String,
    pub line: usize,
    pub message: String,
}

/// The text of a `// comment` line as ksonnet reads it: at least one blank after `//`
/// (`//@name` is not a comment it reads), then everything to the end of the line.
fn comment_text(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("//")?;
    let text = rest.trim_start();
    (text.len() < rest.len() && !text.is_empty()).then_some(text)
}

/// A `@param <name> <type> <description>` or `@optionalParam <name> <type> <default>
/// <description>` directive's value; why not, if it is not one.
fn param_spec(value: &str, optional: bool) -> Result<ParamSpec, String> {
    let fields = if optional { 4 } else { 3 };
    let parts: Vec<&str> = value.splitn(fields, ' ').collect();
    let (pname, ptype, default, description) = match parts[..] {
        [pname, ptype, description] if !optional => (pname, ptype, None, description),
        [pname, ptype, default, description] if optional => {
            (pname, ptype, Some(default.to_string()), description)
        }
        _ if optional => {
            return Err("@optionalParam needs: <name> <type> <default> <description>".into());
        }
        _ => return Err("@param needs: <name> <type> <description>".into()),
    };
    let kind = ParamType::from_header(ptype)
        .ok_or_else(|| format!("unknown param type '{ptype}' for '{pname}'"))?;
    Ok(ParamSpec {
        name: pname.to_string(),
        kind,
        default,
        description: description.to_string(),
    })
}

/// Parse a prototype the way ksonnet 0.13 did: any `// @directive` comment line, wherever
/// it is, is a directive, continued (joined with a newline) by the comment lines right
/// after it that are neither empty nor directives; every other line is the body. Fields
/// are split on single spaces, so `string  x` has an empty default and `The GCP project`
/// as a default gives `The` (real registries depend on both).
pub fn parse_prototype(text: &str, source_name: &str) -> Result<Prototype, HeaderError> {
    let err = |line: usize, message: String| HeaderError {
        source_name: source_name.to_string(),
        line,
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut directives: Vec<(usize, String, String)> = Vec::new();
    let mut body: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
        match comment_text(line).and_then(|t| t.strip_prefix('@')) {
            Some(directive) => {
                let start = i + 1;
                let mut value = directive.to_string();
                while let Some(next) = lines.get(i + 1).and_then(|l| comment_text(l)) {
                    if next.starts_with('@') {
                        break;
                    }
                    value.push('\n');
                    value.push_str(next.strip_suffix('\r').unwrap_or(next));
                    i += 1;
                }
                let (name, rest) = value.split_once(' ').unwrap_or((&value, ""));
                directives.push((start, name.to_string(), rest.to_string()));
            }
            None => body.push(lines[i]),
        }
        i += 1;
    }
    let body = body.join("\n");
    let body = body.trim_start_matches(['\n', '\r']);

    let mut proto = Prototype {
        name: String::new(),
        api_version: "0.0.1".to_string(),
        description: String::new(),
        short_description: String::new(),
        params: Vec::new(),
        body: body.to_string(),
        source: source_name.to_string(),
        package: None,
        requires: Vec::new(),
        checked_against: Vec::new(),
        kubernetes: None,
        name_rule: None,
        conventions: Conventions::Ksonnet,
    };
    for (line, name, value) in directives {
        match name.as_str() {
            "apiVersion" => proto.api_version = value,
            "name" => proto.name = value,
            "description" => proto.description = value,
            "shortDescription" => proto.short_description = value,
            "requires" => proto
                .requires
                .push(value.split_whitespace().collect::<Vec<_>>().join(" ")),
            "checkedAgainst" => proto
                .checked_against
                .push(value.split_whitespace().collect::<Vec<_>>().join(" ")),
            "kubernetes" => {
                let (version, api) = value.trim().split_once(' ').unwrap_or((value.trim(), ""));
                if !crate::k8s_version::is_k8s_version(version) || api.trim().is_empty() {
                    return Err(err(
                        line,
                        format!(
                            "@kubernetes needs: <oldest version, such as v1.21.0> <the API that needs it>; got '{value}'"
                        ),
                    ));
                }
                proto.kubernetes = Some((version.to_string(), api.trim().to_string()));
            }
            "nameRule" => match value.trim().split_once(' ') {
                Some(("dns1035", who)) if !who.trim().is_empty() => {
                    proto.name_rule = Some(who.trim().to_string());
                }
                _ => {
                    return Err(err(
                        line,
                        format!(
                            "@nameRule needs: dns1035 <who refuses other names, and where>; got '{value}'"
                        ),
                    ));
                }
            },
            "param" => proto
                .params
                .push(param_spec(&value, false).map_err(|m| err(line, m))?),
            "optionalParam" => proto
                .params
                .push(param_spec(&value, true).map_err(|m| err(line, m))?),
            // Unknown directives are documentation to ksonnet; ignore them the same way.
            _ => {}
        }
    }
    if proto.name.is_empty() {
        return Err(err(1, "prototype has no `// @name` line".into()));
    }
    if proto.short_description.is_empty() {
        proto.short_description = proto.description.clone();
    }
    Ok(proto)
}
