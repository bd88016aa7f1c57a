//! Opening a file below a sandbox folder in one system call (Linux's `openat2`), where
//! the careful way (`lstat`, `open`, then `readlink` of `/proc/self/fd` to learn where the
//! open landed) takes three. A render reads a hundred and more files, and those calls were
//! a tenth of `kf show`'s time (docs/benchmarks.md, "Sixth pass").
//!
//! The folder is opened once for the process, by its real path, and checked to be that
//! path; each file is then opened relative to it with `RESOLVE_BENEATH` and
//! `RESOLVE_NO_SYMLINKS`: the kernel refuses any `..` out and any symlink on the way, so
//! the file opened is the one at the folder's path joined with the file's, and nowhere
//! else. Whatever this cannot open (a symlink inside the app, an older kernel, a
//! container that forbids the call) is left to the careful way, which decides.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::File;
use std::os::fd::{FromRawFd, IntoRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Folders opened for the process (never closed), by real path; `None`: not usable.
static FOLDERS: Mutex<BTreeMap<PathBuf, Option<RawFd>>> = Mutex::new(BTreeMap::new());

/// `openat2` failed as unavailable (ENOSYS: before Linux 5.6; EPERM: a seccomp filter):
/// not tried again.
static UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// `rel` (below the folder `dir`, a real path) opened for reading without blocking, if
/// it is there with no symlink and no `..` on the way; `None` for anything else.
pub(super) fn open(dir: &Path, rel: &Path) -> Option<File> {
    if UNAVAILABLE.load(Ordering::Relaxed)
        || rel.as_os_str().is_empty()
        || !rel.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let folder = folder(dir)?;
    let name = CString::new(rel.as_os_str().as_bytes()).ok()?;
    // SAFETY: open_how is three integers, for which zero is a valid value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: `folder` is an open descriptor kept for the process, `name` a NUL-terminated
    // string and `how` a valid open_how of the size given; the kernel writes nothing.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            folder,
            name.as_ptr(),
            &raw const how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        let errno = std::io::Error::last_os_error().raw_os_error();
        if matches!(errno, Some(libc::ENOSYS | libc::EPERM)) {
            UNAVAILABLE.store(true, Ordering::Relaxed);
        }
        return None;
    }
    let fd = RawFd::try_from(fd).ok()?;
    // SAFETY: the kernel just returned this descriptor, and nothing else owns it.
    Some(unsafe { File::from_raw_fd(fd) })
}

/// The descriptor of folder `dir` (a real path), opened once: without following a
/// symlink in its last component, and only if the kernel says it opened `dir` itself
/// (no folder on the way swapped for a symlink since its real path was found).
fn folder(dir: &Path) -> Option<RawFd> {
    let mut folders = FOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = folders.get(dir) {
        return *known;
    }
    let opened = open_folder(dir);
    folders.insert(dir.to_path_buf(), opened);
    opened
}

fn open_folder(dir: &Path) -> Option<RawFd> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
        .ok()?;
    (super::opened_path(&file)? == dir).then(|| file.into_raw_fd())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn opens_only_what_is_below_the_folder_with_no_symlink_on_the_way() {
        let tmp = tempfile::tempdir().unwrap();
        let root = crate::sandbox::real_dir(tmp.path()).unwrap();
        let app = root.join("app");
        std::fs::create_dir_all(app.join("lib")).unwrap();
        std::fs::write(app.join("lib/a.libsonnet"), "{}").unwrap();
        std::fs::write(root.join("outside"), "secret").unwrap();
        symlink(app.join("lib"), app.join("linked")).unwrap();
        symlink(root.join("outside"), app.join("out")).unwrap();
        let opened = open(&app, Path::new("lib/a.libsonnet"));
        if UNAVAILABLE.load(Ordering::Relaxed) {
            eprintln!("SKIPPED: this kernel has no openat2 (Linux 5.6+); kf reads the careful way");
            return;
        }
        assert!(opened.is_some());
        for refused in [
            "linked/a.libsonnet",
            "out",
            "../outside",
            "lib/../../outside",
            "",
            "/etc/passwd",
            "missing",
        ] {
            assert!(open(&app, Path::new(refused)).is_none(), "{refused}");
        }
        // A folder named by a path through a symlink is not the folder it names.
        symlink(&app, root.join("app-link")).unwrap();
        assert!(open(&root.join("app-link"), Path::new("lib/a.libsonnet")).is_none());
    }
}
