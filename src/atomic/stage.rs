//! Staging: temp files and folders beside their targets, fsynced, with the fault points
//! the crash tests kill kf at.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Component, Path};

use tempfile::NamedTempFile;

use super::{FileSet, WriteError, io_err};

/// Write one file atomically, inside `root`.
pub fn write_atomic(root: &Path, path: &Path, contents: &[u8]) -> Result<(), WriteError> {
    let mut set = FileSet::new(root);
    set.write(path, contents);
    set.commit()
}

pub(super) fn create_parent(path: &Path) -> Result<(), WriteError> {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => fs::create_dir_all(p).map_err(io_err(p)),
        _ => Ok(()),
    }
}

pub(super) fn stage(path: &Path, contents: &[u8]) -> Result<NamedTempFile, WriteError> {
    stage_file(path, contents, true)
}

/// Every file system write so far made durable, for the file system holding `dir`
/// (Linux's syncfs): one flush where a per-file fsync would be thousands.
#[cfg(target_os = "linux")]
pub(super) fn sync_filesystem(dir: &Path) -> Result<(), WriteError> {
    use std::os::fd::AsRawFd;
    let folder = fs::File::open(dir).map_err(io_err(dir))?;
    // SAFETY: syncfs takes an open file descriptor, which `folder` holds until it drops.
    if unsafe { libc::syncfs(folder.as_raw_fd()) } != 0 {
        return Err(io_err(dir)(std::io::Error::last_os_error()));
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub(super) fn sync_filesystem(_dir: &Path) -> Result<(), WriteError> {
    Ok(())
}

pub(super) fn stage_file(
    path: &Path,
    contents: &[u8],
    fsync: bool,
) -> Result<NamedTempFile, WriteError> {
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

pub(super) fn stage_dir(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    replacing: bool,
    fsync: bool,
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
        if fsync {
            f.sync_all().map_err(io_err(&path))?;
        }
    }
    // tempfile makes the folder 0700; the package folder is as readable as any other.
    set_mode(temp.path(), 0o755);
    Ok(temp)
}

pub(super) fn sync_dir(dir: &Path) -> Result<(), WriteError> {
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
pub(super) fn fault_point(name: &str) {
    if cfg!(debug_assertions) && std::env::var_os("KF_FAULT_POINT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}

/// Test-only crash injection by step: with `KF_TEST_FAIL_AT=<n>`, the process aborts just
/// before the n-th step (journal write, each rename or removal, journal removal) of its
/// commits, so tests can kill a command at every step of its plan.
pub(super) fn fault_step() {
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
pub(super) fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(mode));
}

#[cfg(not(unix))]
pub(super) fn set_mode(_path: &Path, _mode: u32) {}
