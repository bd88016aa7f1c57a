//! After a kf was killed: roll its journal forward, sweep its staging files.

use std::fs;
use std::path::Path;

use super::stage::sync_dir;
use super::{JOURNAL_FILE, LOCK_FILE, WriteError, io_err};

use super::journal::{self, STAGING_PREFIX, Step};

/// Finish a change a killed kf left half done (roll its journal forward). The caller holds
/// the app's write lock. Returns whether there was anything to recover. A journal that is
/// not provably this user's kf's own (see [`journal`]) is refused and nothing is replayed.
pub fn recover(root: &Path) -> Result<bool, WriteError> {
    let journal = root.join(JOURNAL_FILE);
    let refused = |why: String| WriteError::Recovery {
        step: "read the journal".into(),
        journal: journal.clone(),
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "{why}; kf replays only journals it wrote itself, so it changed nothing: if no kf of yours was interrupted here, remove {JOURNAL_FILE}"
            ),
        ),
    };
    let text = match read_journal(&journal) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(false),
        Err(why) => return Err(refused(why)),
    };
    let real_root = root.canonicalize().map_err(io_err(root))?;
    let key = crate::userdir::secret().map_err(|e| refused(e.to_string()))?;
    let recorded = journal::open(&real_root, &text, &key).map_err(|e| refused(e.to_string()))?;
    let steps: Vec<Step> = recorded
        .iter()
        .map(|s| s.absolute(&real_root))
        .collect::<Result<_, _>>()?;
    // Steps ran in order: everything up to the last one that is provably done is done
    // (a later step may have undone an earlier one's evidence, e.g. deleted a graveyard
    // a folder was moved into).
    let resume = steps
        .iter()
        .rposition(Step::is_provably_done)
        .map_or(0, |i| i + 1);
    for step in &steps[resume..] {
        step.run(&journal)?;
    }
    fs::remove_file(&journal).map_err(io_err(&journal))?;
    sync_dir(root)?;
    Ok(true)
}

/// The journal's bytes, if there is one: a regular file of this user's (never through a
/// symlink, never blocking on a FIFO), of at most a state file's size.
pub(super) fn read_journal(path: &Path) -> Result<Option<Vec<u8>>, String> {
    use crate::sandbox::{self, ReadError};
    let file = match sandbox::open_regular(path) {
        Ok(f) => f,
        Err(ReadError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !crate::userdir::is_own_file(&meta) {
        return Err("it belongs to another user (or others may write it)".into());
    }
    sandbox::read_capped(file, path, sandbox::STATE_FILE_CAP)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Whether an app has a change a killed kf left half done.
pub fn has_journal(root: &Path) -> bool {
    fs::symlink_metadata(root.join(JOURNAL_FILE)).is_ok()
}

/// Remove `.kf-*` staging files and folders a kf killed before its journal left behind.
/// The caller holds the write lock and has recovered any journal, so none is in use.
/// kf stages only at the root and below the folders it manages
/// ([`journal::MANAGED_FOLDERS`]): a `.kf-` file elsewhere (`docs/`, `.github/`, a
/// nested app's staging mid-commit) is not its own, and is left alone.
pub fn remove_leftovers(root: &Path) {
    let keep = [LOCK_FILE, JOURNAL_FILE];
    let mut stack = vec![(root.to_path_buf(), true)];
    while let Some((dir, at_root)) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if name.starts_with(STAGING_PREFIX) && !keep.contains(&name.as_ref()) {
                // Only what this user's kf could have staged: another user's file is theirs.
                if !entry
                    .metadata()
                    .is_ok_and(|m| crate::userdir::is_own_file(&m))
                {
                    continue;
                }
                let path = entry.path();
                let _ = if kind.is_dir() {
                    fs::remove_dir_all(&path)
                } else {
                    fs::remove_file(&path)
                };
            } else if kind.is_dir()
                && name != ".git"
                && (!at_root || journal::MANAGED_FOLDERS.contains(&name.as_ref()))
            {
                stack.push((entry.path(), false));
            }
        }
    }
}
