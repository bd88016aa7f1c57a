//! Completion in real shells: bash, zsh and fish, each started in tmux with the script
//! `kf completion SHELL` prints, TAB pressed on an app whose names are hostile (a `$(…)`
//! command, a glob, ESC/BEL sequences that would retitle the terminal). What the shell
//! put on the line is then run through `printf` and read back from the screen.
//!
//! ```sh
//! apt-get install tmux zsh fish
//! cargo test --test completion_shells -- --include-ignored
//! ```
//!
//! Every test is `#[ignore]`d, so a plain `cargo test` lists each as ignored with what it
//! needs; with `--include-ignored` and a shell missing, it fails. `.ci/run` installs the
//! shells and runs them every time.

mod support;
use support::*;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const NEEDS: &str = "needs tmux, bash, zsh and fish (apt-get install tmux zsh fish), then cargo test --test completion_shells -- --include-ignored";

/// The title an OSC sequence in a hostile name would give the terminal.
const HOSTILE_TITLE: &str = "PWNED";

/// An app whose component file names and param keys a shell must not run, glob or print raw.
fn hostile_app() -> TempApp {
    let app = new_app();
    let components = app.root.join("components");
    for name in [
        "x$(touch pwned).jsonnet",
        "star*.jsonnet",
        &format!("esc\u{1b}]0;{HOSTILE_TITLE}\u{7}.jsonnet"),
        "team.jsonnet",
    ] {
        std::fs::write(components.join(name), "{}\n").unwrap();
    }
    write(
        components.join("params.libsonnet"),
        &format!(
            "{{\n  global: {{}},\n  components: {{\n    team: {{\n      name: 'team',\n      '$(touch pwned2)': 1,\n      'k*': 2,\n      'bel\\u0007': 3,\n      'osc\\u001b]0;{HOSTILE_TITLE}\\u0007': 4,\n    }},\n  }},\n}}\n"
        ),
    );
    // A file a glob `k*` or `star*` would expand to, were the candidates globbed.
    std::fs::write(app.root.join("kfile-one"), "").unwrap();
    std::fs::write(app.root.join("star-file"), "").unwrap();
    app
}

/// One interactive shell in a tmux server of its own.
struct Shell {
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Shell {
    fn start(shell: &str, app: &Path) -> Shell {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let script = dir.path().join(format!("kf.{shell}"));
        std::fs::write(&script, ok(app, &["completion", shell])).unwrap();
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_kf")).parent().unwrap();
        let path = format!("{}:/usr/bin:/bin", bin_dir.display());
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let command = match shell {
            "bash" => "bash --norc --noprofile -i",
            "zsh" => "zsh -f -i",
            _ => "fish --no-config -i",
        };
        let started = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["new-session", "-d", "-s", "t", "-x", "160", "-y", "50"])
            .arg(format!(
                "env -i HOME={} TERM=xterm PATH={path} {command}",
                home.display()
            ))
            .status()
            .unwrap_or_else(|e| panic!("tmux: {e}; {NEEDS}"));
        assert!(started.success(), "tmux could not start {shell}; {NEEDS}");
        let s = Shell { socket, _dir: dir };
        let setup = match shell {
            "bash" => format!("PS1='$ '; source {}", script.display()),
            "zsh" => format!(
                "PROMPT='$ '; autoload -U compinit; compinit -u; source {}",
                script.display()
            ),
            _ => format!(
                "function fish_prompt; echo '$ '; end; source {}",
                script.display()
            ),
        };
        s.keys(&[&format!("{setup}; cd {}", app.display()), "Enter"]);
        s.clear();
        s
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Send `keys` (tmux key names or text), each once the screen shows the one before
    /// took effect: zsh drops a completion when keys are waiting.
    fn keys(&self, keys: &[&str]) {
        for k in keys {
            let before = self.screen();
            self.tmux(&["send-keys", "-t", "t", k]);
            self.settle(&before);
        }
    }

    /// Wait until the screen differs from `before` (up to 3 s: some keys change nothing)
    /// and has then not changed for a moment.
    fn settle(&self, before: &str) {
        let start = Instant::now();
        let mut last = self.screen();
        while last == before && start.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(50));
            last = self.screen();
        }
        loop {
            std::thread::sleep(Duration::from_millis(250));
            let now = self.screen();
            if now == last || start.elapsed() > Duration::from_secs(10) {
                return;
            }
            last = now;
        }
    }

    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    fn title(&self) -> String {
        self.tmux(&["display-message", "-p", "-t", "t", "#{pane_title}"])
    }

    /// Abandon the line and clear the screen.
    fn clear(&self) {
        self.keys(&["C-c", "clear", "Enter"]);
    }

    /// Complete `line` (TAB twice in bash, which lists on the second), and return the
    /// screen.
    fn complete(&self, shell: &str, line: &str) -> String {
        self.clear();
        self.keys(&[line, "Tab"]);
        if shell == "bash" {
            self.keys(&["Tab"]);
        }
        self.screen()
    }

    /// What the shell put on the line, as the words a command receives: the line is
    /// prefixed with `printf '<%s>\n'` and run.
    fn words_after_tab(&self, line: &str) -> String {
        self.clear();
        self.keys(&[line, "Tab", "C-a", "printf '<%s>\\n' ", "Enter"]);
        self.screen()
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

fn completes_safely_in(shell: &str) {
    let app = hostile_app();
    let sh = Shell::start(shell, &app.root);

    // A name holding a command substitution goes on the line quoted: run, it is text.
    let screen = sh.words_after_tab("kf param set x");
    assert!(screen.contains("<x$(touch pwned)>"), "{shell}:\n{screen}");
    // A name holding a glob is not expanded to the files it matches.
    let screen = sh.words_after_tab("kf param set team k");
    assert!(screen.contains("<k*>"), "{shell}:\n{screen}");
    assert!(!screen.contains("<kfile-one>"), "{shell}:\n{screen}");
    let screen = sh.words_after_tab("kf param set st");
    assert!(screen.contains("<star*>"), "{shell}:\n{screen}");
    assert!(!screen.contains("<star-file>"), "{shell}:\n{screen}");

    // The params listed: the printable ones; those with control characters left out.
    let screen = sh.complete(shell, "kf param set team ");
    assert!(screen.contains("name"), "{shell}:\n{screen}");
    assert!(
        !screen.contains("bel") && !screen.contains("osc"),
        "{shell}:\n{screen}"
    );
    let screen = sh.complete(shell, "kf param set ");
    assert!(screen.contains("team"), "{shell}:\n{screen}");
    assert!(!screen.contains("esc"), "{shell}:\n{screen}");

    // After `kf export DIR`, environments; never a flag's `-`.
    let screen = sh.complete(shell, "kf export out ");
    assert!(
        screen.contains("default") && screen.contains("prod"),
        "{shell}:\n{screen}"
    );
    assert!(!screen.contains("out -"), "{shell}:\n{screen}");
    // The folder itself: the shell's file names.
    let screen = sh.complete(shell, "kf export ");
    assert!(screen.contains("app.yaml"), "{shell}:\n{screen}");
    // `local:` keeps its prefix once.
    let screen = sh.complete(shell, "kf diff local:p");
    assert!(screen.contains("kf diff local:prod"), "{shell}:\n{screen}");
    assert!(
        !screen.contains("local:local") && !screen.contains("local:-"),
        "{shell}:\n{screen}"
    );

    // kf's own listing is as safe as its completion.
    sh.clear();
    sh.keys(&["kf component list", "Enter"]);
    let screen = sh.screen();
    assert!(screen.contains("esc\\u{1b}]0;"), "{shell}:\n{screen}");

    assert_ne!(sh.title().trim(), HOSTILE_TITLE, "{shell} was retitled");
    for f in ["pwned", "pwned2"] {
        assert!(!app.root.join(f).exists(), "{shell} ran a name's $(…)");
    }
}

#[test]
#[ignore = "needs tmux, bash, zsh and fish: apt-get install tmux zsh fish; cargo test --test completion_shells -- --include-ignored"]
fn bash_completes_hostile_names_safely() {
    completes_safely_in("bash");
}

#[test]
#[ignore = "needs tmux, bash, zsh and fish: apt-get install tmux zsh fish; cargo test --test completion_shells -- --include-ignored"]
fn zsh_completes_hostile_names_safely() {
    completes_safely_in("zsh");
}

#[test]
#[ignore = "needs tmux, bash, zsh and fish: apt-get install tmux zsh fish; cargo test --test completion_shells -- --include-ignored"]
fn fish_completes_hostile_names_safely() {
    completes_safely_in("fish");
}
