//! Prototypes: ksonnet's annotated Jsonnet templates, their lookup by name and their
//! instantiation into components.

pub mod conformance;
pub mod generate;
mod header;
mod instantiate;

use std::collections::BTreeMap;

pub use header::{Conventions, HeaderError, ParamSpec, ParamType, Prototype, parse_prototype};
pub use instantiate::{GenerateError, Given, Instance, instantiate, recorded_prototype};

use crate::embedded;
use crate::registry::{Origin, Package, RegistryError};

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error(transparent)]
    Header(#[from] HeaderError),
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LookupError {
    #[error("no prototype matches '{query}'{hint}; `kf prototype list` shows them all")]
    NotFound { query: String, hint: String },
    #[error("'{query}' is ambiguous; it matches: {}. Use a longer name", .candidates.join(", "))]
    Ambiguous {
        query: String,
        candidates: Vec<String>,
    },
}

/// A package's prototypes (its `prototypes/*.jsonnet`), each tagged with the package.
pub fn of_package(pkg: &Package) -> Result<Vec<Prototype>, HeaderError> {
    let mut out = Vec::new();
    for (rel, bytes) in &pkg.files {
        let Some(file) = rel.strip_prefix("prototypes/") else {
            continue;
        };
        if !file.ends_with(".jsonnet") || file.contains('/') {
            continue;
        }
        let source = match &pkg.origin {
            Origin::Builtin => {
                format!("kf:registry/{}/{}/{rel}", pkg.id.registry, pkg.id.name)
            }
            Origin::Vendored(dir) => dir.join(rel).display().to_string(),
        };
        let text = std::str::from_utf8(bytes).map_err(|_| HeaderError {
            source_name: source.clone(),
            line: 1,
            message: "a prototype must be UTF-8 text".into(),
        })?;
        let mut proto = parse_prototype(text, &source)?;
        proto.package = Some(pkg.id.clone());
        out.push(proto);
    }
    Ok(out)
}

/// Every prototype kf knows, by full name.
#[derive(Debug, Default)]
pub struct Catalog {
    pub prototypes: BTreeMap<String, Prototype>,
}

impl Catalog {
    /// kf's built-in prototypes. A malformed built-in is a kf bug, caught by the tests.
    pub fn builtin() -> Result<Catalog, HeaderError> {
        let mut catalog = Catalog::default();
        for (path, text) in embedded::files_under("prototypes/") {
            if path.ends_with(".jsonnet") {
                let mut proto = parse_prototype(text, &format!("kf:{path}"))?;
                proto.conventions = Conventions::Kf;
                catalog.add(proto);
            }
        }
        Ok(catalog)
    }

    /// The generic prototypes, the built-in registry's, and those of the packages
    /// vendored in `app` (which win over the built-in copies: they are what renders).
    /// An app with a registry of its own named like the built-in one (an old Kubeflow app
    /// with its `kubeflow` registry) sees that registry instead, as with ksonnet: only
    /// the generic prototypes and its installed packages.
    pub fn for_app(app: Option<&crate::app::App>) -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::builtin()?;
        let shadowed = app.is_some_and(|a| {
            a.spec.registries.contains_key(crate::registry::BUILTIN)
                || a.overrides
                    .as_ref()
                    .is_some_and(|o| o.registries.contains_key(crate::registry::BUILTIN))
        });
        if !shadowed {
            for pkg in crate::registry::builtin_packages().values() {
                for mut proto in of_package(pkg)? {
                    proto.conventions = Conventions::Kf;
                    catalog.add(proto);
                }
            }
        }
        if let Some(app) = app {
            for pkg in crate::registry::vendored_packages(app)? {
                let conventions = if crate::registry::vendored_by_kf(app, &pkg.id) {
                    Conventions::Kf
                } else {
                    Conventions::Ksonnet
                };
                for mut proto in of_package(&pkg)? {
                    proto.conventions = conventions;
                    catalog.add(proto);
                }
            }
        }
        Ok(catalog)
    }

    pub fn add(&mut self, proto: Prototype) {
        self.prototypes.insert(proto.name.clone(), proto);
    }

    /// ksonnet's lookup: an exact name, else the one name ending with `query` (at a `.`
    /// or `-` boundary or whole), else an error naming the partial matches.
    pub fn find(&self, query: &str) -> Result<&Prototype, LookupError> {
        if let Some(p) = self.prototypes.get(query) {
            return Ok(p);
        }
        let suffix: Vec<&Prototype> = self
            .prototypes
            .values()
            .filter(|p| {
                p.name.ends_with(query) && {
                    let head = &p.name[..p.name.len() - query.len()];
                    head.is_empty() || head.ends_with('.') || head.ends_with('-')
                }
            })
            .collect();
        // A suffix that is the whole last segment wins over one inside it
        // ("service" is the last segment of neither deployed-service nor single-port-service).
        let whole: Vec<&Prototype> = suffix
            .iter()
            .copied()
            .filter(|p| p.short_name() == query)
            .collect();
        let pick = if whole.len() == 1 { whole } else { suffix };
        match pick.len() {
            1 => Ok(pick[0]),
            0 => {
                let partial: Vec<&str> = self
                    .prototypes
                    .keys()
                    .filter(|n| n.contains(query))
                    .map(String::as_str)
                    .collect();
                let hint = if partial.is_empty() {
                    crate::suggest::hint(query, self.prototypes.values().map(Prototype::short_name))
                } else {
                    format!("; partial matches: {}", partial.join(", "))
                };
                Err(LookupError::NotFound {
                    query: query.to_string(),
                    hint,
                })
            }
            _ => Err(LookupError::Ambiguous {
                query: query.to_string(),
                candidates: pick.iter().map(|p| p.name.clone()).collect(),
            }),
        }
    }

    /// Prototypes whose name or description contains `query` (case-insensitive).
    pub fn search(&self, query: &str) -> Vec<&Prototype> {
        let q = query.to_lowercase();
        self.prototypes
            .values()
            .filter(|p| {
                p.name.to_lowercase().contains(&q)
                    || p.short_description.to_lowercase().contains(&q)
            })
            .collect()
    }
}
