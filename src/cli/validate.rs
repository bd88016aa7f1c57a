use anyhow::{Result, bail};
use clap::Args;

use kf::workflow::validate::{destination_problems, validate_offline, validate_on_server};

use super::Context_;
use super::cluster_args::runtime;
use super::report::{OutputArgs, Printer};
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
    /// Also have the environment's cluster check every object with a server-side dry-run
    /// apply (admission, defaulting and its own schemas); nothing is changed.
    #[arg(long)]
    server: bool,
    #[command(flatten)]
    cluster: super::cluster_args::ClusterArgs,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(ctx: &Context_, a: ValidateArgs) -> Result<()> {
    // Offline, components that fail to render are reported with the rest, so that what
    // a move to another API (`kf env set --api-spec`) breaks shows at once.
    let (rendered, failed) = if a.server {
        (a.render.render(ctx)?, Vec::new())
    } else {
        a.render.render_partial(ctx)?
    };
    let env = rendered.app.environment(&rendered.env)?;
    let k8s_version = env.k8s_version.clone();
    // The env's own entry first: a server without a scheme is not worth connecting to.
    let app_file = rendered.app.root.join(if env.is_override {
        kf::app::OVERRIDE_FILE
    } else {
        kf::app::APP_FILE
    });
    let text = std::fs::read_to_string(&app_file).unwrap_or_default();
    let destination = destination_problems(&env, &app_file, &text);
    if a.server && !destination.is_empty() {
        for p in &destination {
            eprintln!("{}", p.line());
        }
        bail!(
            "environment '{}' sets a destination the API server would refuse",
            env.name
        );
    }
    let mut printer = Printer::new(a.output.output());
    let report = if a.server {
        let target = a.cluster.target(&rendered, &a.render.jsonnet)?;
        let connection = a.cluster.connection(ctx);
        runtime()?.block_on(validate_on_server(
            target,
            &rendered.objects,
            &k8s_version,
            &connection,
            &mut printer,
        ))?
    } else {
        let mut report = validate_offline(&rendered.env, &rendered.objects, &k8s_version).0;
        report.add_render_failures(&failed);
        report
    };
    let mut report = report;
    report.add_destination_problems(destination);
    printer.done();
    for p in &report.problems {
        eprintln!("{}", p.line());
    }
    if printer.text() && report.failure().is_none() {
        super::stdout::line(report.summary());
    }
    let mut names: Vec<String> = Vec::new();
    for p in report.problems.iter().filter(|p| p.level == "error") {
        if !names.contains(&p.object) {
            names.push(p.object.clone());
        }
    }
    printer.document(&report, &names);
    match report.failure() {
        Some(e) => bail!(e),
        None => Ok(()),
    }
}
