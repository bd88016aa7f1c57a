//! [`FileSet`]: files and folders changed together, staged first, then renamed in order
//! under a journal.

use std::fs;
use std::path::{Path, PathBuf};

use super::stage::{
    create_parent, fault_point, fault_step, stage, stage_dir, stage_file, sync_dir, sync_filesystem,
};
use super::{DirFiles, JOURNAL_FILE, WriteError, io_err, resolve_inside};

use super::journal::{self, GRAVEYARD_PREFIX, Step};

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
        // An export folder's files are named from templates and objects: one its journal
        // could not name is refused before anything is staged.
        if self.scope == journal::Scope::Export {
            for path in targets
                .writes
                .iter()
                .map(|(p, _)| p)
                .chain(&targets.removals)
            {
                let rel = path.strip_prefix(&root).unwrap_or(path);
                if !self.scope.allows(rel) {
                    return Err(WriteError::BadName {
                        path: path.to_string_lossy().escape_debug().to_string(),
                        why: "kf never writes `.git` or its own journal in an export folder",
                    });
                }
            }
        }
        let mut plan = Plan::default();
        if let Err(e) = plan.stage(&targets) {
            plan.discard();
            return Err(e);
        }
        if let Err(e) = plan.journal(&root, self.scope) {
            // Nothing was renamed: what was staged goes.
            plan.discard();
            return Err(e);
        }
        plan.run(&root)
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
                .map(|(p, f)| {
                    super::check_dir_files(p, f)?;
                    Ok((inside(p)?, f.clone()))
                })
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
        // A staged folder's files (a package, a generated library: up to ~1,400) and an
        // export folder's (one per object) are staged without an fsync each, then made
        // durable together by one syncfs before anything is renamed.
        let batch = cfg!(target_os = "linux");
        for (dir, files) in &set.dirs {
            let replacing = set.dir_removals.contains(dir);
            let temp = stage_dir(dir, files, replacing, !batch)?.keep();
            self.puts.push(Step::Rename {
                from: temp,
                to: dir.clone(),
            });
            self.synced.extend(dir.parent().map(Path::to_path_buf));
        }
        let batched = batch && set.scope == journal::Scope::Export;
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
        if (batch && !set.dirs.is_empty()) || (batched && !set.writes.is_empty()) {
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

    /// Whether one rename does it all (no journal needed).
    fn single(&self) -> bool {
        let steps: Vec<&Step> = self.steps().collect();
        steps.len() == 1 && matches!(steps[0], Step::Rename { .. })
    }

    /// Write the journal (the commit point), unless one rename does it all.
    fn journal(&self, root: &Path, scope: journal::Scope) -> Result<(), WriteError> {
        let steps: Vec<&Step> = self.steps().collect();
        let journal = root.join(JOURNAL_FILE);
        if !self.single() {
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
        Ok(())
    }

    /// Run every step, fsync, drop the journal.
    fn run(&self, root: &Path) -> Result<(), WriteError> {
        let steps: Vec<&Step> = self.steps().collect();
        let single = self.single();
        let journal = root.join(JOURNAL_FILE);
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
    pub(super) fn absolute(&self, root: &Path) -> Result<Step, WriteError> {
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
    pub(super) fn is_provably_done(&self) -> bool {
        let present = |p: &Path| fs::symlink_metadata(p).is_ok();
        match self {
            Step::Rename { from, .. } => !present(from),
            Step::Move { to, .. } => present(to),
            Step::RemoveTree { path } => !present(path),
            Step::RemoveFile { .. } => false,
        }
    }

    /// Carry out the step unless it is done already (so running a journal twice is safe).
    pub(super) fn run(&self, journal: &Path) -> Result<(), WriteError> {
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
