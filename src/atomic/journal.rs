//! The journal of a multi-step change (`<app>/.kf-journal`), and why kf trusts one.
//!
//! An app folder may come from a stranger (a cloned repository holds any file, a
//! `.kf-journal` too), so a journal on disk is replayed only if it is provably kf's own:
//! - it is a regular file of this user's, read without following a symlink, capped;
//! - it carries an HMAC-SHA256 over the app's real path and its steps, keyed by this
//!   user's secret ([`crate::userdir::secret`]), which no repository, other user or
//!   machine has;
//! - every step is one kf itself could have written: a path kf manages ([`is_managed`]),
//!   never `.git/`, a rename only of kf's own staging into place in the same folder, a
//!   tree removal only of kf's own graveyard.
//!
//! Anything else is refused with a message, and nothing is replayed.

use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The journal of a multi-step change, in the root.
pub const JOURNAL_FILE: &str = ".kf-journal";

/// The folders below the app root whose contents kf writes.
pub const MANAGED_FOLDERS: &[&str] = &["components", "environments", "vendor", "lib", "charts"];
/// The files at the app root that kf writes.
const MANAGED_FILES: &[&str] = &[
    "app.yaml",
    "app.override.yaml",
    ".ks_environment",
    ".gitignore",
    "chartfile.yaml",
    "chartfile.lock",
];
/// kf's own staging files and folders start so; its graveyards of replaced folders so.
pub const STAGING_PREFIX: &str = ".kf-";
pub const GRAVEYARD_PREFIX: &str = ".kf-old-";

/// One step of a commit, as the journal records it (paths relative to the root).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    /// A staged temp file or folder into place; done once `from` is gone.
    Rename {
        from: PathBuf,
        to: PathBuf,
    },
    /// An existing folder out of the way (or to its new name); done once `to` exists.
    Move {
        from: PathBuf,
        to: PathBuf,
    },
    RemoveFile {
        path: PathBuf,
    },
    /// A graveyard folder of kf's own, deleted last.
    RemoveTree {
        path: PathBuf,
    },
}

/// Which files a journal's steps may touch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// An app folder: the files kf manages there ([`is_managed`]).
    #[default]
    App,
    /// A folder `kf export` writes: any plain path in it but `.git` and the journal.
    Export,
}

impl Scope {
    /// Whether kf may name `rel` (relative to the folder) in a journal of this scope.
    pub fn allows(self, rel: &Path) -> bool {
        match self {
            Scope::App => is_managed(rel),
            Scope::Export => {
                rel.components().next().is_some()
                    && rel.components().all(|c| {
                        matches!(c, Component::Normal(p) if p.to_str().is_some_and(|s| !s.eq_ignore_ascii_case(".git")))
                    })
                    && rel != Path::new(JOURNAL_FILE)
            }
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Sealed {
    #[serde(default, skip_serializing_if = "is_app")]
    scope: Scope,
    steps: Vec<Step>,
    /// HMAC-SHA256 of the app's real path and the steps, in hex.
    #[serde(default)]
    mac: String,
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("{0}")]
    Untrusted(String),
    #[error(transparent)]
    Key(#[from] crate::userdir::UserDirError),
}

/// Whether `rel` (relative to the app root) is a path kf manages: below one of
/// [`MANAGED_FOLDERS`], one of [`MANAGED_FILES`], or a staging name of kf's own at the
/// root; plain names only, and nothing named `.git` anywhere on the way.
pub fn is_managed(rel: &Path) -> bool {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => match p.to_str() {
                Some(s) if !s.eq_ignore_ascii_case(".git") => parts.push(s),
                _ => return false,
            },
            _ => return false,
        }
    }
    match parts.as_slice() {
        [] => false,
        [one] => MANAGED_FILES.contains(one) || one.starts_with(STAGING_PREFIX),
        [first, ..] => MANAGED_FOLDERS.contains(first) || first.starts_with(GRAVEYARD_PREFIX),
    }
}

fn name_starts(path: &Path, prefix: &str) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with(prefix))
}

fn is_app(scope: &Scope) -> bool {
    *scope == Scope::App
}

impl Step {
    /// Why kf could not have written this step in a folder of `scope`, if it could not.
    fn implausible(&self, scope: Scope) -> Option<String> {
        let unmanaged = |p: &PathBuf| {
            (!scope.allows(p)).then(|| format!("{} is not a file kf manages", p.display()))
        };
        match self {
            Step::Rename { from, to } => {
                if !name_starts(from, STAGING_PREFIX) || from.parent() != to.parent() {
                    return Some(format!(
                        "renames {} to {}, which is not kf's staging put into place",
                        from.display(),
                        to.display()
                    ));
                }
                unmanaged(from).or_else(|| unmanaged(to))
            }
            Step::Move { from, to } => unmanaged(from).or_else(|| unmanaged(to)),
            Step::RemoveFile { path } => unmanaged(path),
            Step::RemoveTree { path } => {
                if !name_starts(path, GRAVEYARD_PREFIX) {
                    return Some(format!(
                        "removes {}, which is not kf's own graveyard",
                        path.display()
                    ));
                }
                unmanaged(path)
            }
        }
    }
}

const PURPOSE: &str = "kf journal v1";

/// What a journal's signature covers: the app's real path (a journal cannot be moved
/// to another app) and its steps, handed to `f`.
fn signed_parts<T>(
    real_root: &Path,
    scope: Scope,
    steps: &[Step],
    f: impl FnOnce(&[&[u8]]) -> T,
) -> T {
    // Serializing plain data to JSON cannot fail.
    let steps = serde_json::to_vec(steps).unwrap_or_default();
    let root = real_root.as_os_str().as_encoded_bytes();
    match scope {
        // An app's journal signs what it always did.
        Scope::App => f(&[root, &steps]),
        Scope::Export => f(&[root, b"export", &steps]),
    }
}

fn signature(key: &[u8], real_root: &Path, scope: Scope, steps: &[Step]) -> String {
    signed_parts(real_root, scope, steps, |parts| {
        crate::signing::sign(key, PURPOSE, parts)
    })
}

fn signed_by(key: &[u8], real_root: &Path, scope: Scope, steps: &[Step], claimed: &str) -> bool {
    signed_parts(real_root, scope, steps, |parts| {
        crate::signing::verify(key, PURPOSE, parts, claimed)
    })
}

/// The journal's bytes for `steps` (relative to `real_root`, a folder of `scope`), signed
/// with `key`.
pub fn seal(
    real_root: &Path,
    scope: Scope,
    steps: Vec<Step>,
    key: &[u8],
) -> Result<Vec<u8>, JournalError> {
    if let Some(why) = steps.iter().find_map(|s| s.implausible(scope)) {
        return Err(JournalError::Untrusted(format!(
            "kf would journal a step outside the files it manages ({why}); this is a kf bug"
        )));
    }
    let mac = signature(key, real_root, scope, &steps);
    let record = Sealed { scope, steps, mac };
    Ok(serde_json::to_vec_pretty(&record).unwrap_or_default())
}

/// The steps of a journal read from `real_root`, if kf wrote it there with `key`.
pub fn open(real_root: &Path, bytes: &[u8], key: &[u8]) -> Result<Vec<Step>, JournalError> {
    let record: Sealed = serde_json::from_slice(bytes).map_err(|e| {
        JournalError::Untrusted(format!(
            "it is not a kf journal ({})",
            crate::message::json_error_summary(&e)
        ))
    })?;
    if record.mac.is_empty() {
        return Err(JournalError::Untrusted(
            "it carries no signature of this user's kf (it came with the folder, or from an older kf)".into(),
        ));
    }
    if !signed_by(key, real_root, record.scope, &record.steps, &record.mac) {
        return Err(JournalError::Untrusted(
            "its signature is not this user's kf's for this folder (it came with the folder, from another user or machine, or the app was moved)".into(),
        ));
    }
    if let Some(why) = record
        .steps
        .iter()
        .find_map(|s| s.implausible(record.scope))
    {
        return Err(JournalError::Untrusted(format!("one of its steps {why}")));
    }
    Ok(record.steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn managed_paths_are_kfs_files_and_never_git() {
        for good in [
            "app.yaml",
            ".ks_environment",
            "components/a.jsonnet",
            "environments/prod/params.libsonnet",
            "vendor/kubeflow/tf-job/parts.yaml",
            ".kf-abc.tmp",
            ".kf-old-x/x",
        ] {
            assert!(is_managed(&p(good)), "{good}");
        }
        for bad in [
            ".git/config",
            ".git/hooks/pre-commit",
            "components/.git/config",
            "vendor/.GIT/x",
            "README.md",
            "src/main.rs",
            "../outside",
            "/etc/passwd",
            "components/../.git/config",
            "",
        ] {
            assert!(!is_managed(&p(bad)), "{bad}");
        }
    }

    #[test]
    fn a_sealed_journal_opens_only_with_its_key_and_folder() {
        let steps = vec![
            Step::Rename {
                from: p("components/.kf-1.tmp"),
                to: p("components/a.jsonnet"),
            },
            Step::RemoveTree {
                path: p("vendor/.kf-old-2"),
            },
        ];
        let root = Path::new("/srv/app");
        let bytes = seal(root, Scope::App, steps.clone(), b"k1").unwrap();
        assert_eq!(open(root, &bytes, b"k1").unwrap(), steps);
        assert!(open(root, &bytes, b"k2").is_err());
        assert!(open(Path::new("/srv/other"), &bytes, b"k1").is_err());
        let tampered = String::from_utf8(bytes)
            .unwrap()
            .replace("a.jsonnet", "b.jsonnet");
        assert!(open(root, tampered.as_bytes(), b"k1").is_err());
        let unsigned = br#"{"steps":[{"op":"remove_file","path":"app.yaml"}]}"#;
        assert!(open(root, unsigned, b"k1").is_err());
    }

    #[test]
    fn steps_kf_never_writes_are_refused_even_when_signed() {
        let root = Path::new("/srv/app");
        for step in [
            Step::Rename {
                from: p(".kf-1.tmp"),
                to: p(".git/config"),
            },
            Step::Rename {
                from: p("components/x.jsonnet"),
                to: p("components/y.jsonnet"),
            },
            Step::Rename {
                from: p(".kf-1.tmp"),
                to: p("components/y.jsonnet"),
            },
            Step::Move {
                from: p(".git"),
                to: p(".kf-old-1/x"),
            },
            Step::RemoveFile {
                path: p("README.md"),
            },
            Step::RemoveTree {
                path: p("components"),
            },
        ] {
            assert!(
                seal(root, Scope::App, vec![step.clone()], b"k").is_err(),
                "{step:?}"
            );
            // A signature made without the checks (a stolen key) still does not pass.
            let mac = signature(b"k", root, Scope::App, std::slice::from_ref(&step));
            let forged = serde_json::to_vec(&Sealed {
                scope: Scope::App,
                steps: vec![step.clone()],
                mac,
            })
            .unwrap();
            assert!(open(root, &forged, b"k").is_err(), "{step:?}");
        }
    }

    /// An export folder's journal may name any plain path of that folder, but `.git`,
    /// a path climbing out, or the journal itself; and its scope is signed: an app
    /// journal cannot be turned into an export one.
    #[test]
    fn an_export_journal_covers_the_export_folder_only() {
        let root = Path::new("/srv/out");
        let ok = vec![
            Step::Rename {
                from: p("prod/.kf-1.tmp"),
                to: p("prod/apps-v1.Deployment-ml.web.yaml"),
            },
            Step::RemoveFile {
                path: p("manifest.json"),
            },
        ];
        let bytes = seal(root, Scope::Export, ok.clone(), b"k").unwrap();
        assert_eq!(open(root, &bytes, b"k").unwrap(), ok);
        assert!(seal(root, Scope::App, ok.clone(), b"k").is_err());
        let relabelled = String::from_utf8(bytes.clone())
            .unwrap()
            .replace("\"scope\": \"export\",", "");
        assert_ne!(relabelled.as_bytes(), &bytes[..]);
        assert!(open(root, relabelled.as_bytes(), b"k").is_err());
        for bad in [".git/config", "a/.GIT/x", "../x", ".kf-journal"] {
            let step = Step::RemoveFile { path: p(bad) };
            assert!(
                seal(root, Scope::Export, vec![step], b"k").is_err(),
                "{bad}"
            );
        }
    }
}
