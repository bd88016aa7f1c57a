//! The annotation header of a prototype: `// @name`, `// @param`, `// @optionalParam`, …

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    Number,
    String,
    NumberOrString,
    Object,
    Array,
    Boolean,
}

impl ParamType {
    fn parse(s: &str) -> Option<ParamType> {
        Some(match s {
            "number" => ParamType::Number,
            "string" => ParamType::String,
            "numberOrString" => ParamType::NumberOrString,
            "object" => ParamType::Object,
            "array" => ParamType::Array,
            "boolean" | "bool" => ParamType::Boolean,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::Number => "number",
            ParamType::String => "string",
            ParamType::NumberOrString => "numberOrString",
            ParamType::Object => "object",
            ParamType::Array => "array",
            ParamType::Boolean => "boolean",
        }
    }
}

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
}

impl Prototype {
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
}

#[derive(Debug, Clone, thiserror::Error, PartialEq)]
#[error("{source_name}:{line}: {message}")]
pub struct HeaderError {
    pub source_name: String,
    pub line: usize,
    pub message: String,
}

/// Parse a prototype: leading `//` comment lines carry `@directives` (a directive continues
/// on following non-empty comment lines that are not directives); the rest is the body.
pub fn parse_prototype(text: &str, source_name: &str) -> Result<Prototype, HeaderError> {
    let err = |line: usize, message: String| HeaderError {
        source_name: source_name.to_string(),
        line,
        message,
    };
    let mut directives: Vec<(usize, String, String)> = Vec::new();
    let mut body_start = text.len();
    let mut offset = 0;
    let mut continuing = false;
    for (idx, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim();
        let Some(comment) = trimmed.strip_prefix("//") else {
            if trimmed.is_empty() && directives.is_empty() {
                offset += line.len();
                continue;
            }
            body_start = offset;
            break;
        };
        offset += line.len();
        let comment = comment.trim();
        if let Some(rest) = comment.strip_prefix('@') {
            let (name, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            directives.push((idx + 1, name.to_string(), value.trim().to_string()));
            continuing = true;
        } else if comment.is_empty() {
            continuing = false;
        } else if continuing && let Some(last) = directives.last_mut() {
            last.2.push(' ');
            last.2.push_str(comment);
        }
    }
    if body_start == text.len() && offset < text.len() {
        body_start = offset;
    }

    let mut proto = Prototype {
        name: String::new(),
        api_version: "0.0.1".to_string(),
        description: String::new(),
        short_description: String::new(),
        params: Vec::new(),
        body: text[body_start.min(text.len())..].to_string(),
        source: source_name.to_string(),
        package: None,
    };
    for (line, name, value) in directives {
        match name.as_str() {
            "apiVersion" => proto.api_version = value,
            "name" => proto.name = value,
            "description" => proto.description = value,
            "shortDescription" => proto.short_description = value,
            "param" => {
                let mut parts = value.splitn(3, char::is_whitespace);
                let (Some(pname), Some(ptype)) = (parts.next(), parts.next()) else {
                    return Err(err(
                        line,
                        "@param needs: <name> <type> <description>".into(),
                    ));
                };
                let kind = ParamType::parse(ptype).ok_or_else(|| {
                    err(line, format!("unknown param type '{ptype}' for '{pname}'"))
                })?;
                proto.params.push(ParamSpec {
                    name: pname.to_string(),
                    kind,
                    default: None,
                    description: parts.next().unwrap_or("").trim().to_string(),
                });
            }
            "optionalParam" => {
                let mut parts = value.splitn(4, char::is_whitespace);
                let (Some(pname), Some(ptype), Some(default)) =
                    (parts.next(), parts.next(), parts.next())
                else {
                    return Err(err(
                        line,
                        "@optionalParam needs: <name> <type> <default> <description>".into(),
                    ));
                };
                let kind = ParamType::parse(ptype).ok_or_else(|| {
                    err(line, format!("unknown param type '{ptype}' for '{pname}'"))
                })?;
                proto.params.push(ParamSpec {
                    name: pname.to_string(),
                    kind,
                    default: Some(default.to_string()),
                    description: parts.next().unwrap_or("").trim().to_string(),
                });
            }
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
