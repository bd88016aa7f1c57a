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

/// kf's global `--dir` and `--eval-timeout` mean nothing to the commands that read no app
/// (`version`, `completion`, `man`): declared here hidden, under the same ids, clap does
/// not copy the global ones into them, so their help, man pages and completion leave
/// them out (clap_builder Command::_propagate_global_args skips an id already there).
/// Given anyway, they are accepted and ignored, as before.
#[derive(Args)]
pub struct NoAppGlobals {
    #[arg(long = "dir", id = "dir", hide = true, value_name = "DIR")]
    _dir: Option<std::path::PathBuf>,
    #[arg(long = "eval-timeout", id = "eval_timeout", hide = true, value_name = "DURATION", value_parser = super::cluster_args::parse_duration)]
    _eval_timeout: Option<std::time::Duration>,
}

/// Print kf's version and the git commit it was built from.
#[derive(Args)]
pub struct VersionArgs {
    #[command(flatten)]
    _globals: NoAppGlobals,
}

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
    #[command(flatten)]
    _globals: NoAppGlobals,
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
    let script =
        String::from_utf8(script).context("clap wrote a completion script that is not UTF-8")?;
    print_bytes(with_app_names(shell, script)?.as_bytes())
}

/// Clap's static script (commands and flags), with the app's names in front of it: the
/// script asks `kf __complete` first, and uses clap's completion when it offers nothing.
fn with_app_names(shell: Shell, script: String) -> Result<String> {
    Ok(match shell {
        Shell::Bash => script + BASH_APP_NAMES,
        Shell::Zsh => {
            // Clap's script ends by calling or registering `_kf`; the wrapper takes its place.
            let call = "if [ \"$funcstack[1]\" = \"_kf\" ]; then\n    _kf \"$@\"\nelse\n    compdef _kf kf\nfi";
            anyhow::ensure!(
                script.contains(call),
                "clap's zsh script has changed shape; kf cannot add the app's names to it"
            );
            script.replace(
                call,
                &format!("{ZSH_APP_NAMES}\nif [ \"$funcstack[1]\" = \"_kf\" ]; then\n    _kf_app \"$@\"\nelse\n    compdef _kf_app kf\nfi"),
            )
        }
        Shell::Fish => script + FISH_APP_NAMES,
        _ => script,
    })
}

const BASH_APP_NAMES: &str = r#"
# The app's environments, components, prototypes, params, registries and packages,
# from `kf __complete`; clap's completion of commands and flags otherwise.
_kf_app() {
    # The words up to the cursor, split at blanks only (bash's COMP_WORDS also splits at
    # ':' and '=', which would cut `local:dev` in two); `read` expands no glob.
    local line="${COMP_LINE:0:COMP_POINT}" found strip="" name quoted
    local -a words names
    read -r -a words <<< "$line"
    if [[ -z "$line" || "$line" == *[[:space:]] ]]; then
        words+=("")
    fi
    local last=$(( ${#words[@]} - 1 ))
    found=$("${words[0]}" __complete "$last" "${words[@]}" 2>/dev/null)
    if [[ -n "$found" ]]; then
        # One name a line, read as it is (no splitting at blanks, no globbing), each put
        # on the line quoted (%q): a `*` or `$(...)` in a name stays text.
        mapfile -t names <<< "$found"
        # bash replaces only what follows the word's last ':' when ':' breaks words.
        if [[ "${words[last]}" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
            strip="${words[last]%:*}:"
        fi
        COMPREPLY=()
        for name in "${names[@]}"; do
            printf -v quoted '%q' "${name#"$strip"}"
            COMPREPLY+=("$quoted")
        done
        return 0
    fi
    _kf "$@"
    # clap offers every flag at every word; a word that does not start with '-' gets
    # its other answers only, and bash's own (file names) when none is left.
    if [[ "$2" != -* ]]; then
        local -a kept=()
        for name in "${COMPREPLY[@]}"; do
            [[ "$name" == -* ]] || kept+=("$name")
        done
        COMPREPLY=("${kept[@]}")
    fi
}
complete -F _kf_app -o bashdefault -o default kf
"#;

const ZSH_APP_NAMES: &str = r#"# The app's environments, components, prototypes, params, registries and packages,
# from `kf __complete`; clap's completion of commands and flags otherwise.
_kf_app() {
    local -a found
    found=("${(@f)$(${words[1]} __complete $((CURRENT-1)) "${words[@]}" 2>/dev/null)}")
    if [[ -n "${found[1]}" ]]; then
        compadd -- "${found[@]}"
    else
        _kf "$@"
    fi
}
"#;

const FISH_APP_NAMES: &str = r#"
# The app's environments, components, prototypes, params, registries and packages. Fish
# puts each on the line escaped. Only where kf has names are file names left out.
function __kf_app
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    $words[1] __complete (count $words) $words "$current" 2>/dev/null
end
complete -c kf -n 'count (__kf_app) >/dev/null' -f -a '(__kf_app)'
"#;

/// `kf __complete INDEX kf WORD…`: the app's names for word INDEX, one a line; nothing
/// (and exit 0) when there are none or the line is not one kf understands.
pub fn run_dynamic_completion(args: &[String]) -> Result<()> {
    let Some((index, words)) = args.split_first() else {
        return Ok(());
    };
    let Ok(index) = index.parse::<usize>() else {
        return Ok(());
    };
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let mut out = String::new();
    for name in kf::completion::candidates(&cwd, words, index) {
        out.push_str(&name);
        out.push('\n');
    }
    print_bytes(out.as_bytes())
}

/// Print kf's man page, or a subcommand's (roff), on stdout; or write them all.
#[derive(Args)]
#[command(after_help = "Examples:\n  \
kf man apply | man -l -\n  \
kf man param set > kf-param-set.1\n  \
kf man --out-dir ~/.local/share/man/man1 && man kf-apply")]
pub struct ManArgs {
    /// The subcommand whose page to print (`apply`, `param set`); none for kf(1).
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
    /// Write kf.1 and a kf-<command>.1 for every subcommand into this folder instead.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    out_dir: Option<std::path::PathBuf>,
    #[command(flatten)]
    _globals: NoAppGlobals,
}

/// A page's name as clap takes it (`&'static str`, without clap's `string` feature and
/// its build cost): a few short strings, kept until `kf man` exits a moment later.
fn leak(name: String) -> &'static str {
    Box::leak(name.into_boxed_str())
}

/// kf's command tree, built (global args propagated to every subcommand).
/// kf's command tree as its man pages show it: without clap's `help` subcommands, which
/// are no commands of kf's (`kf help show` is `kf show --help`; `kf-cmp-help.1` was a page
/// about nothing).
fn built() -> clap::Command {
    fn without_help(command: clap::Command) -> clap::Command {
        command
            .disable_help_subcommand(true)
            .mut_subcommands(without_help)
    }
    let mut command = without_help(Cli::command());
    command.build();
    command
}

/// Whether a subcommand has a page: any that is not hidden.
fn is_page(sub: &clap::Command) -> bool {
    !sub.is_hide_set()
}

/// The roff of `command`'s page, named `name` (`kf-param-set`).
fn page(command: &clap::Command, name: &str) -> Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(
        command
            .clone()
            .name(leak(name.to_string()))
            .version(VERSION),
    )
    .render(&mut page)
    .context("cannot render the man page")?;
    Ok(page)
}

/// Every page: (file name, roff), kf.1 first, then each subcommand's, depth first.
fn pages(command: &clap::Command, name: &str, out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
    out.push((format!("{name}.1"), page(command, name)?));
    for sub in command.get_subcommands().filter(|s| is_page(s)) {
        pages(sub, &format!("{name}-{}", sub.get_name()), out)?;
    }
    Ok(())
}

pub fn run_man(a: ManArgs) -> Result<()> {
    let root = built();
    if let Some(dir) = a.out_dir {
        let mut all = Vec::new();
        pages(&root, "kf", &mut all)?;
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        for (file, page) in &all {
            // Each page whole or not at all: written beside it, then renamed over it.
            let mut temp = tempfile::NamedTempFile::new_in(&dir)
                .with_context(|| format!("cannot write into {}", dir.display()))?;
            temp.write_all(page)
                .and_then(|()| temp.flush())
                .with_context(|| format!("cannot write {file}"))?;
            temp.persist(dir.join(file))
                .with_context(|| format!("cannot write {}", dir.join(file).display()))?;
        }
        eprintln!("{} man pages written to {}", all.len(), dir.display());
        return Ok(());
    }
    let mut command = &root;
    let mut name = "kf".to_string();
    for word in &a.command {
        command = command
            .get_subcommands()
            .filter(|s| is_page(s))
            .find(|s| s.get_name() == word || s.get_all_aliases().any(|al| al == word))
            .ok_or_else(|| {
                let known: Vec<&str> = command
                    .get_subcommands()
                    .filter(|s| is_page(s))
                    .map(|s| s.get_name())
                    .collect();
                anyhow::anyhow!(
                    "{name} has no subcommand '{word}'; its pages: {}",
                    known.join(", ")
                )
            })?;
        name = format!("{name}-{}", command.get_name());
    }
    print_bytes(&page(command, &name)?)
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
