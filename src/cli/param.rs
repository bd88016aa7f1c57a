use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use kf::params::display;
use kf::workflow::params::{self as ops, ParamTarget};

use super::{Context_, table};

/// Set, remove and inspect component params, per environment.
#[derive(Subcommand)]
pub enum ParamCommand {
    /// Set a param: `set <component> <key> <value>`, or `set <key> <value>` for globals.
    #[command(
        override_usage = "kf param set [OPTIONS] [COMPONENT] <KEY> <VALUE>",
        after_help = "Arguments:\n  [COMPONENT] <KEY> <VALUE>  the component (none for a global param), the param's key\n                             (dotted for a field inside an object param) and its value\n\nExamples:\n  kf param set my-model numGpus 1 --env prod\n  kf param set web resources.limits.cpu 2\n  kf param set replicas 3 --env prod        (env globals)\n  kf param set web tag 1.10 --as-string"
    )]
    Set(SetArgs),
    /// Remove a param: `unset <component> <key>`, or `unset <key>` for globals.
    #[command(
        visible_alias = "delete",
        override_usage = "kf param unset [OPTIONS] [COMPONENT] <KEY>",
        after_help = "Example:\n  kf param unset web replicas --env prod"
    )]
    Unset(UnsetArgs),
    /// List params of all components, or of one; with --env, the values that env renders with.
    #[command(after_help = "Example:\n  kf param list web --env prod")]
    List(ListArgs),
    /// Show params that differ between two environments.
    #[command(after_help = "Example:\n  kf param diff dev prod")]
    Diff(DiffArgs),
}

#[derive(Args)]
pub struct SetArgs {
    // Listed under "Arguments:" in the command's after_help: clap would name its words
    // `<ARG> <ARG>...`, not the usage line's `[COMPONENT] <KEY> <VALUE>`.
    #[arg(
        num_args = 2..=3,
        required = true,
        allow_negative_numbers = true,
        value_name = "ARG",
        hide = true
    )]
    args: Vec<String>,
    /// The environment whose params to change or show (default: the component's own params).
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
    /// Store the value as a string, whatever it looks like.
    #[arg(long)]
    as_string: bool,
    /// Set the key even if the component's prototype has no such param, and store the
    /// value as typed, unchecked against the param's type.
    #[arg(long)]
    force: bool,
}

#[derive(Args)]
pub struct UnsetArgs {
    /// [COMPONENT] KEY: the component (none for a global param) and the param's key
    #[arg(num_args = 1..=2, required = true, value_name = "ARG")]
    args: Vec<String>,
    /// The environment whose params to change or show (default: the component's own params).
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
}

#[derive(Args)]
pub struct ListArgs {
    /// Only this component's params.
    component: Option<String>,
    /// The environment whose params to change or show (default: the component's own params).
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
    /// The module whose params to list, by local names (default: the root module, `/`).
    #[arg(long, value_name = "MODULE")]
    module: Option<String>,
    /// Output format: table, wide, json or yaml.
    #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
    output: String,
}

#[derive(Args)]
pub struct DiffArgs {
    /// The first environment.
    #[arg(value_name = "ENV1")]
    env1: String,
    /// The second environment.
    #[arg(value_name = "ENV2")]
    env2: String,
    /// Only this component's params.
    #[arg(long, value_name = "NAME")]
    component: Option<String>,
    /// Output format: table, wide, json or yaml.
    #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
    output: String,
}

pub fn run(ctx: &Context_, cmd: ParamCommand) -> Result<()> {
    let writes = matches!(cmd, ParamCommand::Set(_) | ParamCommand::Unset(_));
    let (app, _lock) = ctx.app_for(writes)?;
    match cmd {
        ParamCommand::Set(a) => {
            let (component, key, value) = match a.args.as_slice() {
                [c, k, v] => (Some(c.clone()), k.clone(), v.clone()),
                [k, v] => (None, k.clone(), v.clone()),
                _ => bail!("usage: kf param set [component] <key> <value>"),
            };
            let what = changed_key(component.as_deref(), &key);
            let changed = ops::set(
                &app,
                &ParamTarget {
                    component,
                    key,
                    env: a.env,
                },
                &value,
                ops::SetOptions {
                    as_string: a.as_string,
                    force: a.force,
                },
            )?;
            let value = changed.value.as_ref().map(display).unwrap_or_default();
            eprintln!("{what} set to {value} in {}", changed.file);
        }
        ParamCommand::Unset(a) => {
            let (component, key) = match a.args.as_slice() {
                [c, k] => (Some(c.clone()), k.clone()),
                [k] => (None, k.clone()),
                _ => bail!("usage: kf param unset [component] <key>"),
            };
            let what = changed_key(component.as_deref(), &key);
            let changed = ops::unset(
                &app,
                &ParamTarget {
                    component,
                    key,
                    env: a.env,
                },
            )?;
            eprintln!("{what} unset in {}", changed.file);
        }
        ParamCommand::List(a) => {
            super::warn_missing_libraries(&app);
            let rows = ops::list(
                &app,
                a.component.as_deref(),
                a.env.as_deref(),
                a.module.as_deref(),
            )?;
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| vec![r.component.clone(), r.param.clone(), display(&r.value)])
                .collect();
            table::print_keeping_lines(
                "params",
                &["COMPONENT", "PARAM", "VALUE"],
                &cells,
                &a.output,
                Some(2),
            );
        }
        ParamCommand::Diff(a) => {
            let rows = ops::diff(&app, &a.env1, &a.env2, a.component.as_deref())?;
            let show = |v: &Option<serde_json::Value>| {
                v.as_ref().map(|v| v.to_string()).unwrap_or_default()
            };
            let cells: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.component.clone(),
                        r.param.clone(),
                        show(&r.left),
                        show(&r.right),
                    ]
                })
                .collect();
            // ksonnet's headers: ENV1 and ENV2 are the two environments, in order.
            table::print(
                "paramDiff",
                &["COMPONENT", "PARAM", "ENV1", "ENV2"],
                &cells,
                &a.output,
            );
        }
    }
    Ok(())
}

/// `web.replicas`, or the key alone for a global param: how kubectl names what it changed.
fn changed_key(component: Option<&str>, key: &str) -> String {
    match component {
        Some(c) => format!("{c}.{key}"),
        None => key.to_string(),
    }
}
