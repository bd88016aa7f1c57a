//! What the cluster verbs tell their user while they run: each thing that happened to an
//! object, warnings, and the phase a long step is in. The verbs call a [`Reporter`]; the
//! command line decides how (and whether) each is printed, so the same workflow serves
//! text lines, `-o json|yaml|name` and a progress line on a terminal.

use std::time::Duration;

use super::outcome::{DryRun, Outcome};
use super::prune::{Deleted, Found};
use super::status::State;

/// One thing that happened, in the order it happened.
#[derive(Debug)]
pub enum Event<'a> {
    /// `--create-namespace` made the env's namespace (or would have, in a dry run).
    NamespaceCreated { name: &'a str, dry_run: DryRun },
    /// Prune found an object the render no longer has; nothing is deleted yet.
    WillPrune(&'a Found),
    /// One object's apply (or why it was not sent).
    Applied(&'a Outcome, DryRun),
    /// Prune did not run because an apply failed.
    PruneSkipped,
    /// One deletion: `verb` is "pruned" or "deleted".
    Removed {
        deleted: &'a Deleted,
        verb: &'static str,
        dry_run: DryRun,
    },
    /// `kf delete` met an object that is not this app's and env's.
    LeftAlone { id: String, why: String },
    /// `kf delete` met an object already gone.
    AlreadyGone { id: String },
    /// `kf delete` met an object the server is deleting already.
    BeingDeleted { id: String },
    /// `kf delete` met an object whose kind the cluster does not serve.
    Unserved { id: String, why: String },
    /// While waiting: an object's readiness changed.
    StateChanged {
        id: String,
        state: State,
        detail: &'a str,
    },
}

/// The long steps, for a progress line.
#[derive(Debug, Clone)]
pub enum Phase {
    /// Reading the API server's version and kinds.
    Discovering,
    /// Applying one tier (`what`: "namespaces", "CRDs", …) of `count` objects.
    Applying { what: &'static str, count: usize },
    /// Waiting until `count` new CRDs are Established, for at most `limit`.
    WaitingForCrds { count: usize, limit: Duration },
    /// Listing what prune may delete.
    FindingPrunable,
    /// Deleting `count` objects.
    Deleting { count: usize },
    /// Waiting for `count` deleted objects to be gone.
    WaitingForDeletion { count: usize },
    /// Waiting for readiness: `ready` of `total`, and the first one still pending.
    WaitingForReady {
        ready: usize,
        total: usize,
        pending: Option<String>,
    },
    /// Asking the server about each object (diff, a server dry run).
    Comparing { count: usize },
}

/// Who hears what a workflow does. Every method has a default that does nothing, so a
/// caller that only wants the report passes [`Silent`].
pub trait Reporter {
    fn event(&mut self, _event: Event<'_>) {}
    /// Something the user should know that is not an object's result.
    fn warning(&mut self, _message: &str) {}
    /// An error that does not stop the workflow (it is in the report too).
    fn error(&mut self, _message: &str) {}
    fn phase(&mut self, _phase: Phase) {}
}

/// A reporter that hears nothing.
pub struct Silent;

impl Reporter for Silent {}
