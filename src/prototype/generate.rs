//! `kf generate` / `kf prototype use`: write a component and its params into an app.

use std::collections::BTreeMap;

use super::{Catalog, Given, instantiate};
use crate::app::{self, App};
use crate::atomic::{self, FileSet};
use crate::params::{Inherit, ParamsFile, Root};

#[derive(Debug, thiserror::Error)]
pub enum ComponentWriteError {
    #[error(transparent)]
    App(#[from] app::AppError),
    #[error(transparent)]
    Lookup(#[from] super::LookupError),
    #[error(transparent)]
    Generate(#[from] super::GenerateError),
    #[error(transparent)]
    Edit(#[from] crate::params::EditError),
    #[error("component '{0}' already exists; pick another name or `kf component rm {0}` first")]
    Exists(String),
    #[error(
        "{file}: the edit would not parse ({message}); nothing was written. This is a kf bug, please report it"
    )]
    BrokenEdit { file: String, message: String },
    /// The edit would change more than the component's own entry, or the file does not
    /// evaluate (the message names the file).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Write(#[from] atomic::WriteError),
    #[error(transparent)]
    Registry(#[from] crate::registry::RegistryError),
}

/// Syntax-check Jsonnet that kf is about to write. The parser recurses once per nesting
/// level (`local` and `if` chains as well as brackets): deeper text is refused first.
pub fn check_syntax(file: &str, code: &str) -> Result<(), ComponentWriteError> {
    let code = crate::params::split_bom(code).1;
    crate::params::syntax::parses(file, code).map_err(|e| ComponentWriteError::BrokenEdit {
        file: file.to_string(),
        message: e.message,
    })
}

/// The params block for a component, as Jsonnet source lines.
fn params_block(params: &BTreeMap<String, String>) -> String {
    if params.is_empty() {
        return "{}".into();
    }
    // Placeholder indentation; ParamsFile::set re-indents nested lines.
    let fields: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{}: {v}", crate::params::value::render_key(k)))
        .collect();
    format!(
        "{{\n{}\n}}",
        fields
            .iter()
            .map(|f| format!("  {f},"))
            .collect::<Vec<_>>()
            .join("\n")
    )
}

/// What checks an edit of a params file before it is written: (path, text as it is, text
/// as edited, component) → why not (a higher layer evaluates both; see
/// `workflow::params::check_component_edit`).
pub type VerifyEdit<'a> = &'a dyn Fn(&std::path::Path, &str, &str, &str) -> Result<(), String>;

pub fn generate(
    app: &App,
    catalog: &Catalog,
    prototype: &str,
    component: &str,
    given: &BTreeMap<String, Given>,
    verify: VerifyEdit,
) -> Result<(), ComponentWriteError> {
    app::validate_component_name(component)?;
    let proto = catalog.find(prototype)?;
    if app.components()?.iter().any(|c| c.name == component) {
        return Err(ComponentWriteError::Exists(component.to_string()));
    }
    let instance = instantiate(proto, component, given)?;
    let params_path = app.component_params_path();
    let params_text = app.read_text(&params_path)?;
    let file = "components/params.libsonnet";
    let edited = crate::params::edit_keeping_bom(&params_text, |body| {
        ParamsFile::parse(file, body)?.set_block(
            Root::Components,
            &[component.to_string()],
            &params_block(&instance.params),
            Inherit::Replace,
        )
    })?;
    check_syntax(file, &edited)?;
    verify(&params_path, &params_text, &edited, component).map_err(ComponentWriteError::Refused)?;
    let comp_file = format!("components/{component}.jsonnet");
    check_syntax(&comp_file, &instance.source)?;
    let mut files = FileSet::new(&app.root);
    if let Some(pkg) = &proto.package
        && pkg.registry == crate::registry::BUILTIN
        && crate::registry::vendored_dir(app, pkg).is_none()
    {
        let mut spec = app.spec.clone();
        crate::registry::stage_install(app, &pkg.name, &mut spec, &mut files)?;
        files.write(app.root.join(app::APP_FILE), app.spec_text(&spec));
    }
    files.write(app.root.join(&comp_file), instance.source);
    files.write(params_path, edited);
    files.commit()?;
    Ok(())
}
