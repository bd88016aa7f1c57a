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
