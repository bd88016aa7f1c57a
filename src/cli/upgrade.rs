use anyhow::Result;
use clap::Args;

use kf::app::upgrade;

use super::Context_;

/// Rewrite an app made by ksonnet 0.11 or 0.12 (app.yaml apiVersion 0.1.0 / 0.2.0) in
/// ksonnet 0.13's shape (0.3.0). kf reads the old shapes anyway; this makes it permanent.
#[derive(Args)]
#[command(after_help = "Examples:\n  kf upgrade --dry-run\n  kf upgrade")]
pub struct UpgradeArgs {
    /// Print what would change and the new app.yaml; write nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(ctx: &Context_, a: UpgradeArgs) -> Result<()> {
    let (app, _lock) = ctx.app_for(!a.dry_run)?;
    let plan = upgrade::plan(&app);
    if plan.is_noop() {
        println!(
            "The app is already in the current shape (apiVersion {}); nothing to do",
            plan.from
        );
        return Ok(());
    }
    for c in &plan.changes {
        println!("{c}");
    }
    if a.dry_run {
        match &plan.app_yaml {
            Some(y) => println!("--- new app.yaml (dry run: nothing written)\n{y}"),
            None => println!("(dry run: nothing written)"),
        }
        return Ok(());
    }
    upgrade::apply(&app, &plan)?;
    if plan.from == kf::app::spec::CURRENT_API_VERSION {
        println!("Upgraded the app");
    } else {
        println!("Upgraded the app from apiVersion {} to 0.3.0", plan.from);
    }
    Ok(())
}

/// Finish a change that an interrupted kf command (killed, or its machine lost power) left
/// half done, as recorded in the app's journal. Commands that only read refuse to run
/// until then; commands that write finish it first by themselves. A journal that this
/// user's kf did not write here (one that came with a cloned repository) is refused and
/// nothing is replayed.
#[derive(Args)]
#[command(after_help = "Examples:\n  kf recover")]
pub struct RecoverArgs {}

pub fn run_recover(ctx: &Context_, _a: RecoverArgs) -> Result<()> {
    let root = kf::app::locate(&ctx.cwd)?;
    let lock = kf::app::lock::finish_interrupted(&root, kf::app::lock::default_timeout());
    if lock.map_err(kf::app::AppError::from)? {
        super::stdout::line(format!(
            "Finished the change an interrupted kf command left in {}",
            root.display()
        ));
    } else {
        super::stdout::line(format!(
            "Nothing to recover: no kf change was interrupted in {}",
            root.display()
        ));
    }
    Ok(())
}
