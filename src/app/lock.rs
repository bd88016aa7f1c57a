//! One writer at a time: every command that changes an app holds an advisory lock on
//! `<app>/.kf.lock` from before it reads the files it edits until after it has written
//! them, so concurrent `kf param set` runs (scripts, CI jobs) never lose an update.
//! The lock is the operating system's (flock); it goes away with the process, so a
//! crashed kf never leaves a stale lock behind.
//!
//! The lock file is in an untrusted folder: it is opened without following a symlink and
//! without blocking on a FIFO or device, and anything but a regular file is refused.
//! Whoever takes the lock first finishes any change a killed kf left half done.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::AppError;
use crate::atomic;

pub use crate::atomic::LOCK_FILE;

/// How long a command waits for another one to finish; `KF_LOCK_TIMEOUT` (seconds)
/// changes it.
pub fn default_timeout() -> Duration {
    std::env::var("KF_LOCK_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(Duration::from_secs(60))
}

/// Held while a command writes the app; released on drop.
#[derive(Debug)]
pub struct AppLock {
    file: File,
}

impl Drop for AppLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("cannot lock the app ({path}): {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot lock the app: {path} is {what}, not a regular file; remove it (kf recreates it)"
    )]
    NotAFile { path: PathBuf, what: &'static str },
    #[error(
        "another kf command has been changing this app for {waited:.0?} and still holds {path}; wait for it to finish (or raise KF_LOCK_TIMEOUT)"
    )]
    Timeout { path: PathBuf, waited: Duration },
    #[error(transparent)]
    Recovery(#[from] atomic::WriteError),
}

impl From<LockError> for AppError {
    fn from(e: LockError) -> Self {
        match e {
            LockError::Io { path, source } => AppError::Read { path, source },
            LockError::Recovery(w) => AppError::Write(w),
            other => AppError::Invalid {
                path: PathBuf::from(LOCK_FILE),
                message: other.to_string(),
            },
        }
    }
}

/// Open (or create) the lock file: never through a symlink, never blocking on a FIFO,
/// only a regular file.
#[cfg(unix)]
fn open_lock_file(path: &Path) -> Result<File, LockError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path);
    let file = match file {
        Ok(f) => f,
        // ELOOP: the last component is a symlink.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(LockError::NotAFile {
                path: path.to_path_buf(),
                what: "a symlink",
            });
        }
        Err(e) => match std::fs::symlink_metadata(path) {
            Ok(m) if !m.is_file() => {
                return Err(LockError::NotAFile {
                    path: path.to_path_buf(),
                    what: crate::sandbox::kind_of(&m),
                });
            }
            _ => return Err(io(e)),
        },
    };
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(LockError::NotAFile {
            path: path.to_path_buf(),
            what: crate::sandbox::kind_of(&meta),
        });
    }
    Ok(file)
}

#[cfg(not(unix))]
fn open_lock_file(path: &Path) -> Result<File, LockError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(LockError::NotAFile {
            path: path.to_path_buf(),
            what: "not a plain file",
        });
    }
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|source| LockError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// Take the app's write lock, waiting up to `timeout` for another holder; then finish
/// any change a killed kf left half done and remove its leftovers.
pub fn lock(root: &Path, timeout: Duration) -> Result<AppLock, LockError> {
    let path = root.join(LOCK_FILE);
    let file = open_lock_file(&path)?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    let held = loop {
        match file.try_lock() {
            Ok(()) => break AppLock { file },
            Err(TryLockError::WouldBlock) => {
                let waited = start.elapsed();
                if waited >= timeout {
                    return Err(LockError::Timeout { path, waited });
                }
                std::thread::sleep(pause.min(timeout - waited));
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            Err(TryLockError::Error(source)) => return Err(LockError::Io { path, source }),
        }
    };
    atomic::recover(root)?;
    atomic::remove_leftovers(root);
    Ok(held)
}

/// `kf recover`: take the lock long enough to finish a change a killed kf left half done.
/// Whether there was one.
pub fn finish_interrupted(root: &Path, timeout: Duration) -> Result<bool, LockError> {
    let pending = atomic::has_journal(root);
    drop(lock(root, timeout)?);
    Ok(pending)
}
