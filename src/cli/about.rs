//! Commands about kf itself: `kf version`, `kf completion <shell>` and `kf man`.

use std::io::Write;

use anyhow::{Context, Result};
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

/// The version and the commit kf was built from ("unknown" for a build outside a git
/// checkout, e.g. from a crates.io package), for `kf version` and `kf --version`.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("KF_GIT_COMMIT"),
    ")"
);

/// Print kf's version and the git commit it was built from.
#[derive(Args)]
pub struct VersionArgs {}

pub fn run_version(_: VersionArgs) -> Result<()> {
    println!("kf {VERSION}");
    Ok(())
}

/// Print a shell completion script for kf on stdout.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
kf completion bash > ~/.local/share/bash-completion/completions/kf\n  \
kf completion zsh > \"${fpath[1]}/_kf\"\n  \
kf completion fish > ~/.config/fish/completions/kf.fish\n  \
kf completion powershell >> $PROFILE")]
pub struct CompletionArgs {
    /// The shell to complete for.
    #[arg(value_name = "SHELL", value_parser = ["bash", "zsh", "fish", "powershell"])]
    shell: String,
}

pub fn run_completion(a: CompletionArgs) -> Result<()> {
    let shell = match a.shell.as_str() {
        "bash" => Shell::Bash,
        "zsh" => Shell::Zsh,
        "fish" => Shell::Fish,
        _ => Shell::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kf", &mut script);
    print_bytes(&script)
}

/// Print kf's man page (roff) on stdout.
#[derive(Args)]
#[command(after_help = "Example:\n  kf man > ~/.local/share/man/man1/kf.1 && man kf")]
pub struct ManArgs {}

pub fn run_man(_: ManArgs) -> Result<()> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .context("cannot render the man page")?;
    print_bytes(&page)
}

/// `bytes` on stdout. A reader that went away (`kf man | head`) is not kf's failure: exit
/// quietly, as with SIGPIPE; any other write error (a full disk) is one.
fn print_bytes(bytes: &[u8]) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written.context("cannot write to stdout"),
    }
}
