//! One writer at a time: every command that changes an app holds an advisory lock on
//! `<app>/.kf.lock` from before it reads the files it edits until after it has written
//! them, so concurrent `kf param set` runs (scripts, CI jobs) never lose an update.
//! The lock is the operating system's (flock); it goes away with the process, so a
//! crashed kf never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::AppError;

pub const LOCK_FILE: &str = ".kf.lock";

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
        "another kf command has been changing this app for {waited:.0?} and still holds {path}; wait for it to finish (or raise KF_LOCK_TIMEOUT)"
    )]
    Timeout { path: PathBuf, waited: Duration },
}

impl From<LockError> for AppError {
    fn from(e: LockError) -> Self {
        match e {
            LockError::Io { path, source } => AppError::Read { path, source },
            t @ LockError::Timeout { .. } => AppError::Invalid {
                path: PathBuf::from(LOCK_FILE),
                message: t.to_string(),
            },
        }
    }
}

/// Take the app's write lock, waiting up to `timeout` for another holder.
pub fn lock(root: &Path, timeout: Duration) -> Result<AppLock, LockError> {
    let path = root.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| LockError::Io {
            path: path.clone(),
            source,
        })?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(2);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(AppLock { file }),
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
    }
}
