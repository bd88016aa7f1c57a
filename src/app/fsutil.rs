//! Crash-safe file writes: every change kf makes to an app goes through here.
//!
//! A write lands in a temp file in the target's own folder (so the rename never crosses a
//! file system), is fsynced, renamed over the target, and the folder is fsynced so the
//! rename itself survives a crash. A set of writes is staged completely before the first
//! rename, so a failure while preparing leaves every file as it was.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
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

/// A new folder's files: path relative to the folder → contents.
pub type DirFiles = Vec<(String, Vec<u8>)>;

/// Files to be written together; nothing touches the targets until [`FileSet::commit`].
#[derive(Default)]
pub struct FileSet {
    writes: Vec<(PathBuf, Vec<u8>)>,
    dirs: Vec<(PathBuf, DirFiles)>,
    removals: Vec<PathBuf>,
    dir_removals: Vec<PathBuf>,
}

impl FileSet {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn write(&mut self, path: impl Into<PathBuf>, contents: impl Into<Vec<u8>>) -> &mut Self {
        self.writes.push((path.into(), contents.into()));
        self
    }

    /// A new folder with these files (paths relative to it). It is built in full in a
    /// hidden sibling folder and renamed into place; the folder must not exist yet.
    pub fn write_dir(&mut self, dir: impl Into<PathBuf>, files: DirFiles) -> &mut Self {
        self.dirs.push((dir.into(), files));
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
            && self.removals.is_empty()
            && self.dir_removals.is_empty()
    }

    /// Stage every write in a temp file, then rename them all into place and apply removals.
    pub fn commit(self) -> Result<(), WriteError> {
        let mut staged_dirs = Vec::with_capacity(self.dirs.len());
        for (dir, files) in &self.dirs {
            let replacing = self.dir_removals.contains(dir);
            staged_dirs.push((dir, stage_dir(dir, files, replacing)?));
        }
        let mut staged = Vec::with_capacity(self.writes.len());
        for (path, contents) in &self.writes {
            staged.push((path, stage(path, contents)?));
        }
        let mut dirs = Vec::new();
        let mut graveyard = Vec::new();
        for dir in &self.dir_removals {
            let Some(parent) = dir.parent() else { continue };
            if !dir.exists() {
                continue;
            }
            let away = tempfile::Builder::new()
                .prefix(".kf-old-")
                .tempdir_in(parent)
                .map_err(io_err(dir))?
                .keep();
            let target = away.join("x");
            fs::rename(dir, &target).map_err(io_err(dir))?;
            graveyard.push(away);
            dirs.push(parent.to_path_buf());
        }
        for (dir, temp) in staged_dirs {
            fault_point("before-rename");
            let temp = temp.keep();
            fs::rename(&temp, dir).map_err(|e| {
                let _ = fs::remove_dir_all(&temp);
                io_err(dir)(e)
            })?;
            if let Some(parent) = dir.parent() {
                dirs.push(parent.to_path_buf());
            }
        }
        for (path, temp) in staged {
            fault_point("before-rename");
            temp.persist(path).map_err(|e| WriteError::Io {
                path: path.clone(),
                source: e.error,
            })?;
            if let Some(dir) = path.parent() {
                dirs.push(dir.to_path_buf());
            }
        }
        for path in &self.removals {
            match fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err(path)(e)),
            }
            if let Some(dir) = path.parent() {
                dirs.push(dir.to_path_buf());
            }
        }
        dirs.sort();
        dirs.dedup();
        for dir in dirs {
            sync_dir(&dir)?;
        }
        for g in graveyard {
            let _ = fs::remove_dir_all(g);
        }
        Ok(())
    }
}

/// Write one file atomically.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let mut set = FileSet::new();
    set.write(path, contents);
    set.commit()
}

fn stage(path: &Path, contents: &[u8]) -> Result<NamedTempFile, WriteError> {
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
    if let Ok(meta) = fs::metadata(path) {
        let _ = fs::set_permissions(temp.path(), meta.permissions());
    } else {
        set_mode(temp.path(), 0o644);
    }
    temp.write_all(contents).map_err(io_err(path))?;
    fault_point("after-partial-write");
    temp.as_file().sync_all().map_err(io_err(path))?;
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
        let path = temp.path().join(rel);
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

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) {}
