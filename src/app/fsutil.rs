//! Crash-safe, confined file changes: every change kf makes to an app goes through here.
//!
//! Confinement: a [`FileSet`] belongs to one root (the app). Every path it writes, renames
//! or deletes is resolved by [`resolve_inside`] — real path of every existing folder on
//! the way, symlinks included — and refused unless it lands inside the root's real path.
//! The last component is never followed: kf does not write, rename or delete a symlink,
//! so nothing outside the app is ever reached through one.
//!
//! Atomicity: every new file lands in a temp file in the target's own folder (so the
//! rename never crosses a file system), is fsynced, and only then do renames start. A
//! change of more than one step first writes a journal (`.kf-journal`) listing every
//! rename and removal; it is the commit point. A kf killed after it is rolled forward by
//! the next kf that opens the app ([`recover`]), so the app is always as before or as
//! after a command, never half. Leftover `.kf-*` staging files of a kf killed before the
//! journal are removed by the next command that takes the write lock.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use tempfile::NamedTempFile;

pub use super::journal::JOURNAL_FILE;
use super::journal::{self, GRAVEYARD_PREFIX, STAGING_PREFIX, Step};

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "refusing to change {path}: it resolves to {resolved}, outside the app ({root}); kf writes and deletes only inside the app (check for a symlink or a `..` in the path)"
    )]
    Outside {
        path: PathBuf,
        resolved: PathBuf,
        root: PathBuf,
    },
    #[error(
        "refusing to change {path}: it is a symlink, and kf never writes, moves or deletes through one; replace it with a real file or folder"
    )]
    Symlink { path: PathBuf },
    #[error(
        "an interrupted kf change could not be completed ({step}): {source}; fix the cause and run kf again (the plan is in {journal})"
    )]
    Recovery {
        step: String,
        journal: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The real path `path` names, if it is inside `root`: `path` (absolute, or relative to
/// `root`) may not contain `..`; every existing folder on the way is resolved through its
/// symlinks and must stay inside the real root; the last component must not be a
/// symlink. Folders that do not exist yet are fine (they will be created inside).
pub fn resolve_inside(root: &Path, path: &Path) -> Result<PathBuf, WriteError> {
    let real_root = root.canonicalize().map_err(io_err(root))?;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let outside = |resolved: PathBuf| WriteError::Outside {
        path: path.to_path_buf(),
        resolved,
        root: real_root.clone(),
    };
    let rel = joined
        .strip_prefix(root)
        .or_else(|_| joined.strip_prefix(&real_root))
        .map_err(|_| outside(joined.clone()))?;
    let parts: Vec<&std::ffi::OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(p) => Ok(p),
            _ => Err(outside(joined.clone())),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, folders)) = parts.split_last() else {
        return Err(outside(joined.clone()));
    };
    let mut real = real_root.clone();
    let mut exists = true;
    for (i, part) in folders.iter().enumerate() {
        real.push(part);
        if !exists {
            continue;
        }
        match fs::symlink_metadata(&real) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = real.canonicalize().map_err(io_err(&real))?;
                if !target.starts_with(&real_root) {
                    let rest: PathBuf = parts[i + 1..].iter().collect();
                    return Err(outside(target.join(rest)));
                }
                real = target;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => exists = false,
            Err(e) => return Err(io_err(&real)(e)),
        }
    }
    real.push(last);
    if exists
        && fs::symlink_metadata(&real)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false)
    {
        return Err(WriteError::Symlink {
            path: path.to_path_buf(),
        });
    }
    Ok(real)
}

/// A new folder's files: path relative to the folder → contents.
pub type DirFiles = Vec<(String, Vec<u8>)>;

/// Files and folders to change together, all inside `root`; nothing touches the targets
/// until [`FileSet::commit`].
pub struct FileSet {
    root: PathBuf,
    /// Which files its journal may name: an app's (the default) or an export folder's.
    scope: journal::Scope,
    writes: Vec<(PathBuf, Vec<u8>)>,
    dirs: Vec<(PathBuf, DirFiles)>,
    moves: Vec<(PathBuf, PathBuf)>,
    removals: Vec<PathBuf>,
    dir_removals: Vec<PathBuf>,
}

impl FileSet {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FileSet {
            root: root.into(),
            scope: journal::Scope::App,
            writes: Vec::new(),
            dirs: Vec::new(),
            moves: Vec::new(),
            removals: Vec::new(),
            dir_removals: Vec::new(),
        }
    }

    /// Changes to a folder `kf export` writes (any file in it but `.git`), not an app.
    pub fn for_export(root: impl Into<PathBuf>) -> Self {
        FileSet {
            scope: journal::Scope::Export,
            ..FileSet::new(root)
        }
    }

    pub fn write(&mut self, path: impl Into<PathBuf>, contents: impl Into<Vec<u8>>) -> &mut Self {
        self.writes.push((path.into(), contents.into()));
        self
    }

    /// A new folder with these files (paths relative to it). It is built in full in a
    /// hidden sibling folder and renamed into place; the folder must not exist yet
    /// (unless it is also removed with [`FileSet::remove_dir`]).
    pub fn write_dir(&mut self, dir: impl Into<PathBuf>, files: DirFiles) -> &mut Self {
        self.dirs.push((dir.into(), files));
        self
    }

    /// Rename a folder (before anything else is written, so writes may target its new place).
    pub fn move_dir(&mut self, from: impl Into<PathBuf>, to: impl Into<PathBuf>) -> &mut Self {
        self.moves.push((from.into(), to.into()));
        self
    }

    /// Remove a whole folder: it is renamed away first (before any new folder takes its
    /// place), and deleted once everything else is in place.
    pub fn remove_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.dir_removals.push(dir.into());
        self
    }

    pub fn remove(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.removals.push(path.into());
        self
    }

    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
            && self.dirs.is_empty()
            && self.moves.is_empty()
            && self.removals.is_empty()
            && self.dir_removals.is_empty()
    }

    /// Check every path, stage every write, then carry out the renames and removals as
    /// one journaled step.
    pub fn commit(self) -> Result<(), WriteError> {
        let root = self.root.canonicalize().map_err(io_err(&self.root))?;
        let targets = self.resolved()?;
        let mut plan = Plan::default();
        if let Err(e) = plan.stage(&targets) {
            plan.discard();
            return Err(e);
        }
        plan.execute(&root, self.scope)
    }

    /// Every target as a real path inside the root (or the first one that is not).
    fn resolved(&self) -> Result<FileSet, WriteError> {
        let inside = |p: &PathBuf| resolve_inside(&self.root, p);
        Ok(FileSet {
            root: self.root.clone(),
            scope: self.scope,
            writes: self
                .writes
                .iter()
                .map(|(p, c)| Ok((inside(p)?, c.clone())))
                .collect::<Result<_, WriteError>>()?,
            dirs: self
                .dirs
                .iter()
                .map(|(p, f)| Ok((inside(p)?, f.clone())))
                .collect::<Result<_, WriteError>>()?,
            moves: self
                .moves
                .iter()
                .map(|(a, b)| Ok((inside(a)?, inside(b)?)))
                .collect::<Result<_, WriteError>>()?,
            removals: self.removals.iter().map(inside).collect::<Result<_, _>>()?,
            dir_removals: self
                .dir_removals
                .iter()
                .map(inside)
                .collect::<Result<_, _>>()?,
        })
    }
}

/// The steps of a commit, once everything they need is staged, in the order they run:
/// folders out of the way (or to their new names), staged files and folders into
/// place, removals, then the graveyards of replaced folders.
#[derive(Default)]
struct Plan {
    moves: Vec<Step>,
    puts: Vec<Step>,
    removals: Vec<Step>,
    graves: Vec<Step>,
    /// Folders whose entries change, fsynced before and after the steps.
    synced: Vec<PathBuf>,
}

impl Plan {
    fn steps(&self) -> impl Iterator<Item = &Step> {
        self.moves
            .iter()
            .chain(&self.puts)
            .chain(&self.removals)
            .chain(&self.graves)
    }

    /// Stage every new file and folder (nothing the app reads changes here) and list the
    /// steps that put them in place.
    fn stage(&mut self, set: &FileSet) -> Result<(), WriteError> {
        for (from, to) in &set.moves {
            if to.exists() {
                return Err(io_err(to)(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "already exists",
                )));
            }
            create_parent(to)?;
            self.moves.push(Step::Move {
                from: from.clone(),
                to: to.clone(),
            });
            self.synced.extend(from.parent().map(Path::to_path_buf));
            self.synced.extend(to.parent().map(Path::to_path_buf));
        }
        for dir in &set.dir_removals {
            let Some(parent) = dir.parent() else { continue };
            if fs::symlink_metadata(dir).is_err() {
                continue;
            }
            let away = tempfile::Builder::new()
                .prefix(GRAVEYARD_PREFIX)
                .tempdir_in(parent)
                .map_err(io_err(dir))?
                .keep();
            self.moves.push(Step::Move {
                from: dir.clone(),
                to: away.join("x"),
            });
            self.graves.push(Step::RemoveTree { path: away });
            self.synced.push(parent.to_path_buf());
        }
        for (dir, files) in &set.dirs {
            let replacing = set.dir_removals.contains(dir);
            let temp = stage_dir(dir, files, replacing)?.keep();
            self.puts.push(Step::Rename {
                from: temp,
                to: dir.clone(),
            });
            self.synced.extend(dir.parent().map(Path::to_path_buf));
        }
        // An export folder's files are many (one per object): staged without an fsync
        // each, then made durable together by one syncfs before anything is renamed.
        let batched = cfg!(target_os = "linux") && set.scope == journal::Scope::Export;
        for (path, contents) in &set.writes {
            create_parent(path)?;
            let (_, temp) = stage_file(path, contents, !batched)?
                .keep()
                .map_err(|e| io_err(path)(e.error))?;
            self.puts.push(Step::Rename {
                from: temp,
                to: path.clone(),
            });
            self.synced.extend(path.parent().map(Path::to_path_buf));
        }
        for path in &set.removals {
            self.removals.push(Step::RemoveFile { path: path.clone() });
            self.synced.extend(path.parent().map(Path::to_path_buf));
        }
        if batched && !set.writes.is_empty() {
            sync_filesystem(&set.root)?;
        }
        self.synced.sort();
        self.synced.dedup();
        for dir in &self.synced {
            sync_dir(dir)?;
        }
        Ok(())
    }

    /// Remove what staging made, after it failed: nothing was renamed yet.
    fn discard(&self) {
        for step in self.puts.iter().chain(&self.graves) {
            let (Step::Rename { from: staged, .. } | Step::RemoveTree { path: staged }) = step
            else {
                continue;
            };
            let _ = fs::remove_dir_all(staged).or_else(|_| fs::remove_file(staged));
        }
    }

    /// Journal (unless one rename does it all), run every step, fsync, drop the journal.
    fn execute(&self, root: &Path, scope: journal::Scope) -> Result<(), WriteError> {
        let steps: Vec<&Step> = self.steps().collect();
        let single = steps.len() == 1 && matches!(steps[0], Step::Rename { .. });
        let journal = root.join(JOURNAL_FILE);
        if !single {
            let relative = steps.iter().map(|s| s.relative_to(root)).collect();
            let invalid =
                |e: journal::JournalError| io_err(&journal)(std::io::Error::other(e.to_string()));
            let key = crate::userdir::secret().map_err(|e| invalid(e.into()))?;
            let text = journal::seal(root, scope, relative, &key).map_err(invalid)?;
            fault_step();
            let temp = stage(&journal, &text)?;
            temp.persist(&journal)
                .map_err(|e| io_err(&journal)(e.error))?;
            sync_dir(root)?;
        }
        for step in steps {
            fault_point("before-rename");
            fault_step();
            step.run(&journal)?;
        }
        for dir in &self.synced {
            if dir.exists() {
                sync_dir(dir)?;
            }
        }
        if !single {
            fault_step();
            fs::remove_file(&journal).map_err(io_err(&journal))?;
            sync_dir(root)?;
        }
        Ok(())
    }
}

impl Step {
    fn relative_to(&self, root: &Path) -> Step {
        let r = |p: &PathBuf| p.strip_prefix(root).unwrap_or(p).to_path_buf();
        match self {
            Step::Rename { from, to } => Step::Rename {
                from: r(from),
                to: r(to),
            },
            Step::Move { from, to } => Step::Move {
                from: r(from),
                to: r(to),
            },
            Step::RemoveFile { path } => Step::RemoveFile { path: r(path) },
            Step::RemoveTree { path } => Step::RemoveTree { path: r(path) },
        }
    }

    /// A journal step read back from disk (checked by [`journal::open`]), as real paths
    /// inside the root.
    fn absolute(&self, root: &Path) -> Result<Step, WriteError> {
        let a = |p: &PathBuf| resolve_inside(root, p);
        Ok(match self {
            Step::Rename { from, to } => Step::Rename {
                from: a(from)?,
                to: a(to)?,
            },
            Step::Move { from, to } => Step::Move {
                from: a(from)?,
                to: a(to)?,
            },
            Step::RemoveFile { path } => Step::RemoveFile { path: a(path)? },
            Step::RemoveTree { path } => Step::RemoveTree { path: a(path)? },
        })
    }

    /// Whether the files show this step ran. Staged temp files and graveyards are kf's
    /// own, unique, and gone only once their step ran; a moved folder is at its target.
    fn is_provably_done(&self) -> bool {
        let present = |p: &Path| fs::symlink_metadata(p).is_ok();
        match self {
            Step::Rename { from, .. } => !present(from),
            Step::Move { to, .. } => present(to),
            Step::RemoveTree { path } => !present(path),
            Step::RemoveFile { .. } => false,
        }
    }

    /// Carry out the step unless it is done already (so running a journal twice is safe).
    fn run(&self, journal: &Path) -> Result<(), WriteError> {
        let failed = |what: String| {
            let journal = journal.to_path_buf();
            move |source| WriteError::Recovery {
                step: what,
                journal,
                source,
            }
        };
        let present = |p: &Path| fs::symlink_metadata(p).is_ok();
        match self {
            Step::Rename { from, to } => {
                if present(from) {
                    fs::rename(from, to).map_err(failed(format!(
                        "rename {} to {}",
                        from.display(),
                        to.display()
                    )))?;
                }
            }
            Step::Move { from, to } => {
                if present(from) && !present(to) {
                    fs::rename(from, to).map_err(failed(format!(
                        "move {} to {}",
                        from.display(),
                        to.display()
                    )))?;
                }
            }
            Step::RemoveFile { path } => match fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(failed(format!("remove {}", path.display()))(e)),
            },
            Step::RemoveTree { path } => {
                // remove_dir_all deletes symlinks inside, never what they point to.
                match fs::remove_dir_all(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(failed(format!("remove {}", path.display()))(e)),
                }
            }
        }
        Ok(())
    }
}

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
fn read_journal(path: &Path) -> Result<Option<Vec<u8>>, String> {
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
    let keep = [super::lock::LOCK_FILE, JOURNAL_FILE];
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

/// Write one file atomically, inside `root`.
pub fn write_atomic(root: &Path, path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let mut set = FileSet::new(root);
    set.write(path, contents);
    set.commit()
}

fn create_parent(path: &Path) -> Result<(), WriteError> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => fs::create_dir_all(p).map_err(io_err(p)),
        _ => Ok(()),
    }
}

fn stage(path: &Path, contents: &[u8]) -> Result<NamedTempFile, WriteError> {
    stage_file(path, contents, true)
}

/// Every file system write so far made durable, for the file system holding `dir`
/// (Linux's syncfs): one flush where a per-file fsync would be thousands.
#[cfg(target_os = "linux")]
fn sync_filesystem(dir: &Path) -> Result<(), WriteError> {
    use std::os::fd::AsRawFd;
    let folder = fs::File::open(dir).map_err(io_err(dir))?;
    // SAFETY: syncfs takes an open file descriptor, which `folder` holds until it drops.
    if unsafe { libc::syncfs(folder.as_raw_fd()) } != 0 {
        return Err(io_err(dir)(std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn sync_filesystem(_dir: &Path) -> Result<(), WriteError> {
    Ok(())
}

fn stage_file(path: &Path, contents: &[u8], fsync: bool) -> Result<NamedTempFile, WriteError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".kf-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io_err(path))?;
    // Keep the permissions of the file being replaced (a params file may be group-writable).
    // A new file gets the usual 0644, not the temp file's private 0600.
    if let Ok(meta) = fs::symlink_metadata(path) {
        let _ = fs::set_permissions(temp.path(), meta.permissions());
    } else {
        set_mode(temp.path(), 0o644);
    }
    temp.write_all(contents).map_err(io_err(path))?;
    fault_point("after-partial-write");
    if fsync {
        temp.as_file().sync_all().map_err(io_err(path))?;
    }
    Ok(temp)
}

fn stage_dir(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    replacing: bool,
) -> Result<tempfile::TempDir, WriteError> {
    if dir.exists() && !replacing {
        return Err(io_err(dir)(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "the folder already exists",
        )));
    }
    let parent = match dir.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(parent).map_err(io_err(parent))?;
    let temp = tempfile::Builder::new()
        .prefix(".kf-")
        .tempdir_in(parent)
        .map_err(io_err(dir))?;
    for (rel, contents) in files {
        let rel_path = Path::new(rel);
        if !rel_path
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
        {
            return Err(WriteError::Outside {
                path: dir.join(rel_path),
                resolved: dir.join(rel_path),
                root: dir.to_path_buf(),
            });
        }
        let path = temp.path().join(rel_path);
        if let Some(p) = path.parent() {
            fs::create_dir_all(p).map_err(io_err(p))?;
        }
        let mut f = File::create(&path).map_err(io_err(&path))?;
        f.write_all(contents).map_err(io_err(&path))?;
        f.sync_all().map_err(io_err(&path))?;
    }
    // tempfile makes the folder 0700; the package folder is as readable as any other.
    set_mode(temp.path(), 0o755);
    Ok(temp)
}

fn sync_dir(dir: &Path) -> Result<(), WriteError> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(io_err(dir))
}

/// Test-only crash injection: with `KF_FAULT_POINT=<name>` set, the process aborts there,
/// as a SIGKILL would, so tests can prove the old file survives.
fn fault_point(name: &str) {
    if cfg!(debug_assertions) && std::env::var_os("KF_FAULT_POINT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}

/// Test-only crash injection by step: with `KF_TEST_FAIL_AT=<n>`, the process aborts just
/// before the n-th step (journal write, each rename or removal, journal removal) of its
/// commits, so tests can kill a command at every step of its plan.
fn fault_step() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static STEPS: AtomicUsize = AtomicUsize::new(0);
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(at) = std::env::var("KF_TEST_FAIL_AT")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    if STEPS.fetch_add(1, Ordering::SeqCst) + 1 == at {
        std::process::abort();
    }
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_the_root_or_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("app");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("components")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("vendor")).unwrap();
        std::os::unix::fs::symlink(root.join("components"), root.join("comps")).unwrap();
        let real = root.canonicalize().unwrap();
        assert_eq!(
            resolve_inside(&root, Path::new("components/a.jsonnet")).unwrap(),
            real.join("components/a.jsonnet")
        );
        assert_eq!(
            resolve_inside(&root, &root.join("comps/new/a")).unwrap(),
            real.join("components/new/a")
        );
        for bad in ["../x", "vendor/pkg", "/etc/passwd", "components/../../x"] {
            assert!(
                matches!(
                    resolve_inside(&root, Path::new(bad)),
                    Err(WriteError::Outside { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            resolve_inside(&root, Path::new("vendor")),
            Err(WriteError::Symlink { .. })
        ));
    }

    #[test]
    fn a_commit_that_fails_while_staging_changes_nothing_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "old").unwrap();
        fs::write(root.join("blocker"), "a file, not a folder").unwrap();
        fs::create_dir_all(root.join("pkg")).unwrap();
        let mut set = FileSet::new(root);
        set.write(root.join("a"), "new")
            .remove_dir(root.join("pkg"))
            .write_dir(root.join("pkg"), vec![("f".into(), b"x".to_vec())])
            .write(root.join("blocker/b"), "cannot be staged");
        assert!(set.commit().is_err());
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "old");
        let mut names: Vec<String> = fs::read_dir(root)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "blocker", "pkg"]);
    }

    #[test]
    fn a_journal_kf_did_not_write_cannot_delete_the_app() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("components")).unwrap();
        fs::write(
            root.join(JOURNAL_FILE),
            r#"{"steps":[{"op":"remove_tree","path":"components"}]}"#,
        )
        .unwrap();
        assert!(matches!(recover(root), Err(WriteError::Recovery { .. })));
        assert!(root.join("components").is_dir());
    }
}
