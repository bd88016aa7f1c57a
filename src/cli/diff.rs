use std::io::Write;

use anyhow::{Result, anyhow};
use clap::Args;

use kf::workflow::diff::{DiffOptions, DiffReport, diff_env, diff_renders};

use super::cluster_args::{ClusterArgs, runtime};
use super::report::{OutputArgs, Printer};
use super::show::{JsonnetArgs, Rendered};
use super::{Context_, Exit, pick_env};

/// Show what `kf apply` would change, as a unified diff, or diff two environments' renders.
///
/// `kf diff ENV` asks the server for a dry-run apply of every object and compares it with
/// the live object (server-set fields such as managedFields, resourceVersion and status
/// left out); with --prune, the objects `kf apply --prune` would delete show as removals.
/// `kf diff local:dev local:prod` compares two renders with no cluster at all, pairing
/// objects by group, kind and name (the envs' namespaces may differ). Secret values are
/// shown as `***` (kubectl's mask) unless --show-secrets is given. Exit status as
/// kubectl's: 0 no differences, 1 differences, 2 an error.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf diff --env prod\n  kf diff prod -c mnist-train --color=always | less -R\n  kf diff local:dev local:prod"
)]
pub struct DiffArgs {
    /// `ENV` (the cluster against the render) or `local:ENV1 local:ENV2` (two renders).
    #[arg(num_args = 0..=2)]
    sides: Vec<String>,
    /// Environment whose cluster is compared with its render (the same as `kf diff ENV`).
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
    #[command(flatten)]
    jsonnet: JsonnetArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Colour the diff: auto (on a terminal), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
    /// Print Secret values instead of `***`.
    #[arg(long)]
    show_secrets: bool,
    /// Also show, as removals, the objects `kf apply --prune` would delete.
    #[arg(long)]
    prune: bool,
    /// Objects asked about at once (a GET and a dry-run apply each), as `kf apply`.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
    #[command(flatten)]
    output: OutputArgs,
}

fn print_diffs(diffs: &[&str], color: &str) -> Result<()> {
    let choice = match color {
        "always" => anstream::ColorChoice::Always,
        "never" => anstream::ColorChoice::Never,
        _ => anstream::ColorChoice::Auto,
    };
    let mut out = anstream::AutoStream::new(std::io::stdout(), choice);
    let red = anstyle::AnsiColor::Red.on_default();
    let green = anstyle::AnsiColor::Green.on_default();
    let cyan = anstyle::AnsiColor::Cyan.on_default();
    let bold = anstyle::Style::new().bold();
    for d in diffs {
        for line in d.lines() {
            let style = if line.starts_with("+++") || line.starts_with("---") {
                bold
            } else if line.starts_with('+') {
                green
            } else if line.starts_with('-') {
                red
            } else if line.starts_with("@@") {
                cyan
            } else {
                anstyle::Style::new()
            };
            match writeln!(out, "{style}{line}{style:#}") {
                Ok(()) => {}
                // The reader has gone (`kf diff | head`): the exit status still tells.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(())
}

pub fn run(ctx: &Context_, a: DiffArgs) -> Result<()> {
    let mut printer = Printer::new(a.output.output());
    match diff(ctx, &a, &mut printer) {
        Ok(report) => {
            printer.done();
            if printer.text() {
                let diffs: Vec<&str> = report.changes.iter().map(|c| c.diff.as_str()).collect();
                print_diffs(&diffs, &a.color).map_err(|e| Exit::error(2, e))?;
            }
            let names: Vec<String> = report.changes.iter().map(|c| c.name.clone()).collect();
            printer.document(&report, &names);
            if let Some(why) = &report.incomplete {
                // Exit 2 as for any error: a diff that could not look everywhere cannot say
                // there is nothing to prune.
                return Err(
                    Exit::error(2, anyhow::anyhow!("{why}; the diff is incomplete")).into(),
                );
            }
            if report.changes.is_empty() {
                Ok(())
            } else {
                Err(Exit::silent(1).into())
            }
        }
        Err(e) => Err(Exit::error(2, e).into()),
    }
}

fn diff(ctx: &Context_, a: &DiffArgs, printer: &mut Printer) -> Result<DiffReport> {
    let app = ctx.app()?;
    let locals: Vec<&str> = a
        .sides
        .iter()
        .filter_map(|s| s.strip_prefix("local:"))
        .collect();
    if !locals.is_empty() {
        let [left, right] = locals.as_slice() else {
            return Err(anyhow!(
                "give two renders to compare: kf diff local:ENV1 local:ENV2"
            ));
        };
        if a.sides.len() != 2 {
            return Err(anyhow!(
                "give two renders to compare: kf diff local:ENV1 local:ENV2"
            ));
        }
        let l = a.jsonnet.render(ctx, &app, left)?;
        let r = a.jsonnet.render(ctx, &app, right)?;
        return Ok(diff_renders(left, l, right, r, a.show_secrets));
    }
    if a.sides.len() > 1 {
        return Err(anyhow!(
            "kf diff takes one environment, or local:ENV1 local:ENV2"
        ));
    }
    let env = pick_env(&app, a.sides.first().cloned(), a.env.clone())?;
    app.environment(&env)?;
    let objects = a.jsonnet.render(ctx, &app, &env)?;
    let rendered = Rendered { app, env, objects };
    let target = a.cluster.target(&rendered, &a.jsonnet)?;
    let options = DiffOptions {
        show_secrets: a.show_secrets,
        prune: a.prune,
        concurrency: a.concurrency,
        connection: a.cluster.connection(ctx),
    };
    runtime()?.block_on(diff_env(target, &options, printer))
}
