use anyhow::{Result, bail};
use clap::Args;

use kf::validate::{Finding, Validator};

use super::Context_;
use super::show::RenderArgs;

/// Check rendered objects offline: built-in kinds against Kubernetes' types, custom
/// resources against their CRDs (the built-in registry's and any CRD the app renders).
///
/// Unknown or mistyped fields are errors (the API server would drop or reject them); a
/// kind with no known schema is a warning. Exits 1 when any object has an error.
#[derive(Args)]
#[command(after_help = "Examples:\n  kf validate prod\n  kf validate --env prod -c mnist-train")]
pub struct ValidateArgs {
    #[command(flatten)]
    render: RenderArgs,
}

pub fn run(ctx: &Context_, a: ValidateArgs) -> Result<()> {
    let rendered = a.render.render(ctx)?;
    let mut validator = Validator::with_builtin_crds();
    for o in &rendered.objects {
        validator.add_crds(&serde_json::Value::Object(o.object.clone()));
    }
    let mut errors = 0;
    let mut unchecked = 0;
    for o in &rendered.objects {
        let name = o
            .object
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(|n| n.as_str())
            .unwrap_or("<unnamed>");
        let kind = o.object.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        match validator.validate(&o.object) {
            None => {}
            Some(Finding::Error(e)) => {
                errors += 1;
                eprintln!("error: {kind}/{name} (component {}): {e}", o.component);
            }
            Some(Finding::Unchecked(w)) => {
                unchecked += 1;
                eprintln!("warning: {kind}/{name} (component {}): {w}", o.component);
            }
        }
    }
    let total = rendered.objects.len();
    if errors > 0 {
        bail!(
            "{errors} of {total} objects in environment '{}' are invalid",
            rendered.env
        );
    }
    println!(
        "{} objects in environment '{}' are valid{}",
        total - unchecked,
        rendered.env,
        if unchecked > 0 {
            format!(" ({unchecked} not checked: no schema)")
        } else {
            String::new()
        }
    );
    Ok(())
}
