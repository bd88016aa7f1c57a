//! What a cluster verb did to one object, and whether it was a dry run.

use super::resources::Resource;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DryRun {
    None,
    /// Nothing is sent; kf only checks what it would send.
    Client,
    /// The server runs the apply without persisting it.
    Server,
}

impl DryRun {
    /// `none`, `client` or `server`, as `--dry-run` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            DryRun::None => "none",
            DryRun::Client => "client",
            DryRun::Server => "server",
        }
    }

    /// What a line about a dry run ends with: ` (dry run)`, ` (server dry run)`, or nothing.
    pub fn suffix(self) -> &'static str {
        match self {
            DryRun::None => "",
            DryRun::Client => " (dry run)",
            DryRun::Server => " (server dry run)",
        }
    }
}

/// What happened to one object.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Created,
    Configured,
    Unchanged,
    /// Not sent, and why.
    Skipped(String),
}

#[derive(Debug, Clone)]
pub struct Outcome {
    /// `deployment.apps/web`
    pub id: String,
    pub namespace: Option<String>,
    pub result: Result<Action, String>,
    /// The object's UID on the cluster after the apply (none for dry runs).
    pub uid: Option<String>,
    pub resource: Option<Resource>,
    pub name: String,
}
