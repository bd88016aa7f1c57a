//! Which app a command runs on: the folder it starts in, or the nearest one above that
//! holds app.yaml — but never one that somebody else could have put there.
//!
//! A shared, world-writable parent (`/tmp`), a folder of another user's, another file
//! system (a network mount) or the folder above `$HOME` may hold an `app.yaml` the user
//! never wrote; adopting it would render, and write, another person's app. As git's
//! `safe.directory` check does, the walk up stops before such a folder. The starting
//! folder itself is the user's choice (`cd`, `--dir`) and is taken as it is.

use std::path::{Path, PathBuf};

use super::{APP_FILE, AppError};

/// The root of the app `start` is in.
pub fn locate(start: &Path) -> Result<PathBuf, AppError> {
    let start = start.canonicalize().map_err(|source| AppError::Read {
        path: start.to_path_buf(),
        source,
    })?;
    let boundary = Boundary::of(&start);
    let mut dir = start.as_path();
    // The folder the walk came up from (where it ends, if it stops at `dir`).
    let mut below: Option<&Path> = None;
    loop {
        if let Some(below) = below
            && let Some(why) = boundary.stops_at(dir)
        {
            return Err(AppError::NotFound {
                start: start.clone(),
                stopped: format!(
                    " up to {} (kf does not look in {}: {why})",
                    below.display(),
                    dir.display()
                ),
            });
        }
        if std::fs::symlink_metadata(dir.join(APP_FILE)).is_ok() {
            return Ok(dir.to_path_buf());
        }
        match dir.parent() {
            Some(parent) => {
                below = Some(dir);
                dir = parent;
            }
            None => {
                return Err(AppError::NotFound {
                    start,
                    stopped: String::new(),
                });
            }
        }
    }
}

/// `root` (an app's folder) and the folders above it, nearest first, as far as
/// [`locate`]'s walk may go.
fn walk_up(root: &Path) -> impl Iterator<Item = PathBuf> {
    let root = root.canonicalize().ok();
    let boundary = root.as_deref().map(Boundary::of);
    std::iter::successors(root, |dir| dir.parent().map(Path::to_path_buf))
        .enumerate()
        .take_while(move |(i, dir)| {
            *i == 0 || boundary.as_ref().is_some_and(|b| b.stops_at(dir).is_none())
        })
        .map(|(_, dir)| dir)
}

fn holds_git(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok()
}

/// The repository `root` is in: the nearest folder of [`walk_up`] holding `.git`, the
/// app's own included.
pub fn repository_root(root: &Path) -> Option<PathBuf> {
    walk_up(root).find(|dir| holds_git(dir))
}

/// The `vendor/` folder of the jsonnet-bundler project `root` is in: the nearest folder
/// above it holding a `jsonnetfile.json` and a `vendor/` folder, looked for up to the
/// repository's root (the folder holding `.git`). A Tanka monorepo keeps its libraries
/// there, beside the apps, and an app's `vendor` is often a symlink to it.
pub fn bundler_vendor(root: &Path) -> Option<PathBuf> {
    for (i, dir) in walk_up(root).enumerate() {
        let vendor = dir.join("vendor");
        if i > 0 && dir.join("jsonnetfile.json").is_file() && vendor.is_dir() {
            return Some(vendor);
        }
        if holds_git(&dir) {
            return None;
        }
    }
    None
}

/// What the walk up from one starting folder may not cross.
struct Boundary {
    /// The starting folder's file system.
    device: Option<u64>,
    /// The folder above `$HOME`, when the start is inside it.
    above_home: Option<PathBuf>,
}

impl Boundary {
    fn of(start: &Path) -> Boundary {
        let home = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .and_then(|h| PathBuf::from(h).canonicalize().ok());
        Boundary {
            device: device_of(start),
            above_home: home
                .filter(|h| start.starts_with(h))
                .and_then(|h| h.parent().map(Path::to_path_buf)),
        }
    }

    /// Why the walk stops before looking in `dir`, if it does.
    fn stops_at(&self, dir: &Path) -> Option<String> {
        if self.above_home.as_deref() == Some(dir) {
            return Some("it is above your home folder".into());
        }
        if self.device.is_some() && device_of(dir) != self.device {
            return Some("it is on another file system".into());
        }
        foreign(dir)
    }
}

#[cfg(unix)]
fn device_of(dir: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).ok().map(|m| m.dev())
}

#[cfg(not(unix))]
fn device_of(_dir: &Path) -> Option<u64> {
    None
}

/// Why `dir`, or an app.yaml in it, may be somebody else's: owned by another user, or a
/// folder anybody may create files in.
#[cfg(unix)]
fn foreign(dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let uid = crate::userdir::uid();
    let meta = std::fs::metadata(dir).ok()?;
    if meta.uid() != uid {
        return Some(format!("it belongs to uid {}", meta.uid()));
    }
    if meta.mode() & 0o002 != 0 {
        return Some("anybody may create files in it".into());
    }
    match std::fs::symlink_metadata(dir.join(APP_FILE)) {
        Ok(m) if m.uid() != uid => Some(format!("its {APP_FILE} belongs to uid {}", m.uid())),
        _ => None,
    }
}

#[cfg(not(unix))]
fn foreign(_dir: &Path) -> Option<String> {
    None
}
