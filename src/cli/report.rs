//! How the cluster verbs print: a line per event (kubectl's `created`/`configured`/…
//! lines), or, with `-o json|yaml|name`, nothing but the report at the end; warnings and
//! errors on stderr either way. On a terminal, a progress line on stderr says which step
//! a long apply, wait or delete is in and for how long; in a log (no terminal) each wait
//! is one line.

use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use kf::cluster::client::humantime;
use kf::cluster::events::{Event, Phase, Reporter};
use kf::cluster::outcome::{Action, DryRun, Outcome};
use kf::cluster::prune::Deleted;

use super::stdout;

/// `-o`: what a cluster verb prints on stdout.
#[derive(Args, Clone)]
pub struct OutputArgs {
    /// Print the report as one JSON or YAML document, or the objects' names (kind/name
    /// lines), instead of a line per object. Warnings and errors stay on stderr.
    #[arg(short = 'o', long = "output", value_name = "FORMAT", value_parser = ["json", "yaml", "name"])]
    output: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// A line per object.
    Text,
    Json,
    Yaml,
    Name,
}

impl OutputArgs {
    pub fn output(&self) -> Output {
        match self.output.as_deref() {
            Some("json") => Output::Json,
            Some("yaml") => Output::Yaml,
            Some("name") => Output::Name,
            _ => Output::Text,
        }
    }
}

/// The reporter of a command run by a person or a pipeline.
pub struct Printer {
    output: Output,
    bar: Option<indicatif::ProgressBar>,
}

impl Printer {
    pub fn new(output: Output) -> Printer {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            bar
        });
        Printer { output, bar }
    }

    pub fn text(&self) -> bool {
        self.output == Output::Text
    }

    /// Print a line on stdout (above the progress line).
    pub fn out(&self, line: impl std::fmt::Display) {
        match &self.bar {
            Some(bar) => bar.suspend(|| stdout::line(line)),
            None => stdout::line(line),
        }
    }

    /// Print a line on stderr (above the progress line).
    pub fn err(&self, line: impl std::fmt::Display) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// The progress line goes away.
    pub fn done(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// With `-o json|yaml`, the report; with `-o name`, `names`. Nothing in text mode.
    pub fn document<T: Serialize>(&mut self, report: &T, names: &[String]) {
        self.done();
        let text = match self.output {
            Output::Text => return,
            Output::Json => serde_json::to_string_pretty(report)
                .map(|s| s + "\n")
                .map_err(|e| e.to_string()),
            Output::Yaml => serde_saphyr::to_string(report).map_err(|e| e.to_string()),
            Output::Name => Ok(names.iter().map(|n| format!("{n}\n")).collect()),
        };
        match text {
            Ok(text) => stdout::print(&text),
            Err(e) => eprintln!("error: cannot write the report: {e}"),
        }
    }
}

impl Drop for Printer {
    fn drop(&mut self) {
        self.done();
    }
}

/// `1 object`, `3 objects`.
fn objects(n: usize) -> String {
    if n == 1 {
        "1 object".into()
    } else {
        format!("{n} objects")
    }
}

/// The progress line of a phase.
fn describe(phase: &Phase) -> String {
    match phase {
        Phase::Discovering => "reading the cluster's version and kinds".into(),
        Phase::Applying { what, count } => format!("applying {what} ({})", objects(*count)),
        Phase::WaitingForCrds { count, limit } => format!(
            "waiting up to {} for {count} new {} to be Established",
            humantime(*limit),
            if *count == 1 { "CRD" } else { "CRDs" }
        ),
        Phase::FindingPrunable => "listing what prune may delete".into(),
        Phase::Deleting { count } => format!("deleting {}", objects(*count)),
        Phase::WaitingForDeletion { count } => format!(
            "waiting for {count} deleted {} to be gone",
            if *count == 1 { "object" } else { "objects" }
        ),
        Phase::WaitingForReady {
            ready,
            total,
            pending,
        } => match pending {
            Some(p) => format!("{ready}/{total} ready; waiting for {p}"),
            None => format!("{ready}/{total} ready"),
        },
        Phase::Comparing { count } => format!("asking the server about {}", objects(*count)),
    }
}

impl Reporter for Printer {
    fn event(&mut self, event: Event<'_>) {
        if let Event::StateChanged { id, state, detail } = &event {
            // A log gets each change; a terminal has the progress line.
            if self.bar.is_none() {
                self.err(format!("{id}: {} ({detail})", state.as_str()));
            }
            return;
        }
        if !self.text() {
            return;
        }
        let line = match event {
            Event::NamespaceCreated { name, dry_run } => {
                format!("namespace/{name} created{}", dry_run.suffix())
            }
            Event::WillPrune(f) => format!("{} will be pruned: no longer in the render", f.id()),
            Event::Applied(o, dry_run) => applied_line(o, dry_run),
            Event::PruneSkipped => "prune skipped: some objects failed to apply".into(),
            Event::Removed {
                deleted,
                verb,
                dry_run,
            } => removed_line(deleted, verb, dry_run),
            Event::LeftAlone { id, why } => format!("{id} left alone: {why}"),
            Event::AlreadyGone { id } => format!("{id} already gone"),
            Event::BeingDeleted { id } => format!("{id} already being deleted"),
            Event::Unserved { id, why } => format!("{id} skipped: {why}"),
            Event::StateChanged { .. } => return,
        };
        self.out(line);
    }

    fn warning(&mut self, message: &str) {
        self.err(format!("warning: {message}"));
    }

    fn error(&mut self, message: &str) {
        self.err(format!("error: {message}"));
    }

    fn phase(&mut self, phase: Phase) {
        match &self.bar {
            Some(bar) => {
                bar.set_message(describe(&phase));
                bar.enable_steady_tick(Duration::from_millis(120));
            }
            // A log gets a line for the waits that can take minutes, not for every step.
            None => {
                if matches!(phase, Phase::WaitingForCrds { .. }) {
                    eprintln!("{}", describe(&phase));
                }
            }
        }
    }
}

/// `deployment.apps/web -n prod configured (dry run)`: one object's apply, as kubectl says it.
pub fn applied_line(o: &Outcome, dry_run: DryRun) -> String {
    let suffix = dry_run.suffix();
    let ns = o
        .namespace
        .as_deref()
        .map(|n| format!(" -n {n}"))
        .unwrap_or_default();
    match &o.result {
        Ok(Action::Created) => format!("{}{ns} created{suffix}", o.id),
        Ok(Action::Configured) => format!("{}{ns} configured{suffix}", o.id),
        Ok(Action::Unchanged) => format!("{}{ns} unchanged{suffix}", o.id),
        Ok(Action::Skipped(why)) => format!("{}{ns} skipped: {why}", o.id),
        Err(e) => format!("{}{ns} failed: {e}", o.id),
    }
}

/// One deletion; `verb` is "pruned" or "deleted", and a dry run says "would be pruned" /
/// "would delete".
pub fn removed_line(d: &Deleted, verb: &str, dry_run: DryRun) -> String {
    let suffix = dry_run.suffix();
    match &d.result {
        Ok(true) if dry_run == DryRun::None => format!("{} {verb}", d.id),
        Ok(true) if verb == "deleted" => format!("{} would delete{suffix}", d.id),
        Ok(true) => format!("{} would be {verb}{suffix}", d.id),
        Ok(false) => format!("{} already gone or replaced, left alone", d.id),
        Err(e) => format!("{} failed: {e}", d.id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_count_in_words() {
        let line = |p| describe(&p);
        assert_eq!(
            line(Phase::Applying {
                what: "workloads",
                count: 1
            }),
            "applying workloads (1 object)"
        );
        assert_eq!(
            line(Phase::WaitingForCrds {
                count: 2,
                limit: Duration::from_secs(60)
            }),
            "waiting up to 1m for 2 new CRDs to be Established"
        );
        assert_eq!(
            line(Phase::WaitingForDeletion { count: 1 }),
            "waiting for 1 deleted object to be gone"
        );
    }
}
