//! The command line: flags and a call into the library per command, nothing more.

mod about;
mod apply;
mod chart;
mod cluster_args;
mod cmp;
mod component;
mod delete;
mod demo;
mod diff;
mod env;
mod export;
mod generate;
mod habits;
mod init;
mod param;
mod registry;
mod report;
mod show;
mod status;
mod stdout;
pub mod table;
mod upgrade;
mod validate;

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

use kf::app::App;
use kf::app::lock::{self, AppLock};

#[derive(Parser)]
#[command(
    name = "kf",
    version = about::VERSION,
    // `-V` is `--ext-str` on the rendering commands (as in ksonnet and kubecfg): the
    // version is `--version` or `kf version` only, so `-V` means one thing everywhere.
    disable_version_flag = true,
    about = "ksonnet-style Jsonnet apps for machine-learning workloads on Kubernetes",
    long_about = "kf manages a ksonnet app: prototypes become components, components have params, \
params are overridden per environment, and `kf show <env>` renders it all to Kubernetes manifests.\n\n\
Start with `kf init my-app`, then `kf generate <prototype> <component>` and `kf show default`."
)]
pub struct Cli {
    /// Print version
    #[arg(long, action = clap::ArgAction::Version)]
    version: Option<bool>,

    /// Run as if started in this folder (the app is found here or above).
    #[arg(long, global = true, value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Longest one Jsonnet evaluation may run (e.g. 90s, 10m) before kf stops with an error;
    /// the default is generous, for the slowest real app on a slow CI runner.
    #[arg(long, global = true, value_name = "DURATION", default_value = "300s", value_parser = cluster_args::parse_duration)]
    eval_timeout: std::time::Duration,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    Init(init::InitArgs),
    #[command(subcommand)]
    Env(env::EnvCommand),
    #[command(visible_alias = "gen", visible_alias = "g")]
    Generate(generate::GenerateArgs),
    #[command(subcommand, visible_alias = "proto")]
    Prototype(generate::PrototypeCommand),
    #[command(subcommand)]
    Param(param::ParamCommand),
    #[command(subcommand)]
    Component(component::ComponentCommand),
    Import(component::ImportArgs),
    Show(show::ShowArgs),
    Apply(apply::ApplyArgs),
    Delete(delete::DeleteArgs),
    Diff(diff::DiffArgs),
    Export(export::ExportArgs),
    #[command(subcommand)]
    Cmp(cmp::CmpCommand),
    Status(status::StatusArgs),
    #[command(subcommand)]
    Registry(registry::RegistryCommand),
    #[command(subcommand)]
    Pkg(registry::PkgCommand),
    #[command(subcommand)]
    Chart(chart::ChartCommand),
    Validate(validate::ValidateArgs),
    Upgrade(upgrade::UpgradeArgs),
    Recover(upgrade::RecoverArgs),
    Demo(demo::DemoArgs),
    Version(about::VersionArgs),
    Completion(about::CompletionArgs),
    Man(about::ManArgs),
}

pub fn run() -> Result<()> {
    // The shells' dynamic completion, called on every TAB: answered before clap builds
    // its command tree (`kf __complete INDEX kf WORD…`).
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("__complete") {
        return about::run_dynamic_completion(&args[2..]);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            print!("{e}");
            return Ok(());
        }
        Err(e) => {
            // Usage errors exit 1 like every other bad input (clap would use 2).
            match habits::hint(&args[1..]) {
                Some(hint) => eprint!("{}", habits::with_hint(&e.render().to_string(), &hint)),
                None => eprint!("{e}"),
            }
            std::process::exit(1);
        }
    };
    let Some(command) = cli.command else {
        // A bare `kf` is a request for help, not a mistake.
        use clap::CommandFactory;
        print!("{}", Cli::command().render_help());
        return Ok(());
    };
    let cwd = match &cli.dir {
        Some(d) => d.clone(),
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    kf::engine::watchdog::start(cli.eval_timeout);
    let ctx = Context_ { cwd };
    match command {
        Command::Init(a) => init::run(&ctx, a),
        Command::Env(c) => env::run(&ctx, c),
        Command::Generate(a) => generate::run_generate(&ctx, a),
        Command::Prototype(c) => generate::run_prototype(&ctx, c),
        Command::Param(c) => param::run(&ctx, c),
        Command::Component(c) => component::run(&ctx, c),
        Command::Import(a) => component::run_import(&ctx, a),
        Command::Show(a) => show::run(&ctx, a),
        Command::Apply(a) => apply::run(&ctx, a),
        Command::Delete(a) => delete::run(&ctx, a),
        Command::Diff(a) => diff::run(&ctx, a),
        Command::Export(a) => export::run(&ctx, a),
        Command::Cmp(c) => cmp::run(&ctx, c),
        Command::Status(a) => status::run(&ctx, a),
        Command::Registry(c) => registry::run_registry(&ctx, c),
        Command::Pkg(c) => registry::run_pkg(&ctx, c),
        Command::Chart(c) => chart::run(&ctx, c),
        Command::Validate(a) => validate::run(&ctx, a),
        Command::Upgrade(a) => upgrade::run(&ctx, a),
        Command::Recover(a) => upgrade::run_recover(&ctx, a),
        Command::Demo(a) => demo::run(a),
        Command::Version(a) => about::run_version(a),
        Command::Completion(a) => about::run_completion(a),
        Command::Man(a) => about::run_man(a),
    }
}

/// An exit status other than 1 (kf diff's 0/1/2), with the message to print, if any.
#[derive(Debug)]
pub struct Exit {
    pub code: i32,
    pub message: Option<String>,
}

impl Exit {
    pub fn silent(code: i32) -> Exit {
        Exit {
            code,
            message: None,
        }
    }

    pub fn error(code: i32, e: impl std::fmt::Display) -> Exit {
        Exit {
            code,
            message: Some(format!("{e:#}")),
        }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message.as_deref().unwrap_or(""))
    }
}

impl std::error::Error for Exit {}

/// Where the command runs.
pub struct Context_ {
    pub cwd: PathBuf,
}

impl Context_ {
    pub fn app(&self) -> Result<App> {
        Ok(App::find(&self.cwd)?)
    }

    /// The app, for a command that may change it: with `writes`, its write lock is taken
    /// first and the app is read under it, so nothing another kf writes meanwhile is lost.
    /// Taking the lock finishes a change a killed kf left half done, if its journal is
    /// provably kf's own.
    pub fn app_for(&self, writes: bool) -> Result<(App, Option<AppLock>)> {
        if !writes {
            return Ok((App::find(&self.cwd)?, None));
        }
        let root = kf::app::locate(&self.cwd)?;
        let guard = lock::lock(&root, lock::default_timeout()).map_err(kf::app::AppError::from)?;
        Ok((App::load(&root)?, Some(guard)))
    }
}

/// A listing verb reads an app whose declared libraries are missing from vendor/: it
/// goes on, and says so (the verbs that render refuse; docs/commands.md).
pub fn warn_missing_libraries(app: &App) {
    for m in kf::registry::missing_libraries(app, None) {
        eprintln!("warning: app.yaml: {m}");
    }
}

/// The environment a command acts on: the positional argument (ksonnet's form), `--env`
/// (what kf users type), or `.ks_environment`.
pub fn pick_env(app: &App, positional: Option<String>, flag: Option<String>) -> Result<String> {
    match (positional, flag) {
        (Some(p), Some(f)) if p != f => {
            bail!("environment given twice ('{p}' and --env '{f}'); give one")
        }
        (Some(e), _) | (None, Some(e)) => Ok(e),
        (None, None) => app.current_environment()?.ok_or_else(|| {
            anyhow::anyhow!(
                "no environment given: pass one (e.g. `--env default`) or set a current one with `kf env current --set <env>`"
            )
        }),
    }
}

/// `k=v` pairs from flags.
pub fn key_value(arg: &str, flag: &str) -> Result<(String, String)> {
    match arg.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => bail!("{flag} takes <name>=<value>, got '{arg}'"),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every command below `cmd`, with its path (`kf param set`).
    fn walk(cmd: &clap::Command, path: String, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands() {
            let sub_path = format!("{path} {}", sub.get_name());
            walk(sub, sub_path, out);
        }
        out.push((path, cmd.clone()));
    }

    /// Completion skips the word after a flag that takes a value (kf::completion's
    /// VALUED_FLAGS): the list must be exactly the flags of kf's commands that do.
    #[test]
    fn completion_knows_every_flag_that_takes_a_value() {
        let mut commands = Vec::new();
        let mut root = Cli::command();
        root.build();
        walk(&root, "kf".into(), &mut commands);
        let mut valued = std::collections::BTreeSet::new();
        for (_, cmd) in &commands {
            for arg in cmd.get_arguments() {
                if arg.is_positional() || !arg.get_action().takes_values() {
                    continue;
                }
                valued.extend(arg.get_long().map(|l| format!("--{l}")));
                valued.extend(arg.get_short().map(|c| format!("-{c}")));
                for alias in arg.get_all_aliases().unwrap_or_default() {
                    valued.insert(format!("--{alias}"));
                }
            }
        }
        let listed: std::collections::BTreeSet<String> = kf::completion::VALUED_FLAGS
            .iter()
            .map(|f| f.to_string())
            .collect();
        let missing: Vec<_> = valued.difference(&listed).collect();
        let extra: Vec<_> = listed.difference(&valued).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "VALUED_FLAGS lacks {missing:?} and has {extra:?}, which take no value"
        );
    }

    #[test]
    fn every_argument_of_every_command_has_help_and_a_user_facing_value_name() {
        let mut commands = Vec::new();
        let mut root = Cli::command();
        root.build();
        walk(&root, "kf".into(), &mut commands);
        assert!(
            commands.len() > 30,
            "found only {} commands",
            commands.len()
        );
        let mut problems = Vec::new();
        for (path, cmd) in &commands {
            if cmd.get_about().is_none() && path != "kf help" && !path.starts_with("kf help ") {
                problems.push(format!("{path}: no about line"));
            }
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && !arg.is_hide_set() {
                    problems.push(format!("{path}: argument '{id}' has no help line"));
                }
                // A positional without a value name shows as its id in capitals.
                let values: Vec<String> = match arg.get_value_names() {
                    _ if !arg.get_action().takes_values() => Vec::new(),
                    Some(names) => names.iter().map(|n| n.to_string()).collect(),
                    None => vec![id.to_uppercase()],
                };
                for name in values {
                    // clap derives a value name from the field (`env_pos` → ENV_POS);
                    // one with an underscore is an internal name leaking into usage.
                    if name.contains('_') {
                        problems.push(format!("{path}: argument '{id}' shows as <{name}>"));
                    }
                }
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
