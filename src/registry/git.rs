//! Running `git` for a registry: bounded by the command's deadline, in a process group of
//! its own that is killed whole when the deadline passes, its messages cut to one line.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// git's own stall limit on HTTP transfers: slower than 1000 bytes a second for this long
/// aborts with git's message, before `--timeout` would.
pub(super) const GIT_LOW_SPEED_SECS: u64 = 30;

/// How long a command may spend fetching git registries (`--timeout`): one deadline for
/// every git command it runs, however many registries it fetches.
#[derive(Debug, Clone, Copy)]
pub struct FetchDeadline {
    at: Instant,
    timeout: Duration,
}

impl FetchDeadline {
    /// `timeout` from now.
    pub fn after(timeout: Duration) -> FetchDeadline {
        FetchDeadline {
            at: Instant::now() + timeout,
            timeout,
        }
    }

    /// The time left, `None` once it is spent.
    fn remaining(&self) -> Option<Duration> {
        Some(self.at.saturating_duration_since(Instant::now())).filter(|d| !d.is_zero())
    }
}

/// The first line of git's message, cut short: git may quote what it read (a file given
/// to an option, a config value), and kf never prints file contents in an error.
pub(super) fn git_message(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("git failed without a message");
    let mut out: String = line.chars().take(200).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}

/// Why a git command did not succeed.
#[derive(Debug)]
pub(super) enum GitFailure {
    /// git ran and failed: the first line of what it said.
    Failed(String),
    /// git could not be started.
    NotRun(std::io::Error),
    /// The command's `--timeout` passed; git and everything it started were killed.
    TimedOut { command: String, timeout: Duration },
}

/// Run git, bounded by `deadline`, and return what it printed on stdout.
///
/// git runs in a process group of its own, and the whole group is killed when the
/// deadline passes: `git clone` over HTTP hands the connection to `git-remote-https`,
/// which would otherwise go on waiting (and hold git's output pipes open).
pub(super) fn git(
    args: &[&str],
    dir: Option<&Path>,
    deadline: &FetchDeadline,
) -> Result<Vec<u8>, GitFailure> {
    let timed_out = || GitFailure::TimedOut {
        command: format!("git {}", args.first().copied().unwrap_or_default()),
        timeout: deadline.timeout,
    };
    let Some(left) = deadline.remaining() else {
        return Err(timed_out());
    };
    let mut cmd = Command::new("git");
    cmd.arg("-c")
        .arg("http.lowSpeedLimit=1000")
        .arg("-c")
        .arg(format!("http.lowSpeedTime={GIT_LOW_SPEED_SECS}"))
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let child = cmd.spawn().map_err(GitFailure::NotRun)?;
    let pid = child.id();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    let out = match finished.recv_timeout(left) {
        Ok(out) => out.map_err(GitFailure::NotRun)?,
        Err(_) => {
            kill_group(pid);
            // The group's pipes close as it dies; wait for that (briefly), so that no git
            // is left writing into the checkout kf is about to remove.
            let _ = finished.recv_timeout(Duration::from_secs(5));
            return Err(timed_out());
        }
    };
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(GitFailure::Failed(git_message(&out.stderr)))
    }
}

/// SIGKILL the process group `pid` leads (git and every helper it started).
#[cfg(unix)]
pub(super) fn kill_group(pid: u32) {
    if let Ok(pgid) = libc::pid_t::try_from(pid) {
        // SAFETY: killpg has no memory preconditions. The group is git's own (made with
        // process_group(0)): its leader was not reaped when the deadline passed (the
        // waiting thread had not sent), and a pid is not handed out again that soon.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
pub(super) fn kill_group(pid: u32) {
    let _ = Command::new("taskkill")
        .args(["/F", "/T", "/PID", &pid.to_string()])
        .status();
}
