//! Opening a file below a sandbox folder in one system call (Linux's `openat2`), where
//! the careful way (`lstat`, `open`, then `readlink` of `/proc/self/fd` to learn where the
//! open landed) takes three. A render reads a hundred and more files, and those calls were
//! a tenth of `kf show`'s time (docs/benchmarks.md, "Sixth pass").
//!
//! The folder is opened once per sandbox (one render), by its real path, and checked to be
//! that path; each file is then opened relative to it with `RESOLVE_BENEATH` and
//! `RESOLVE_NO_SYMLINKS`: the kernel refuses any `..` out and any symlink on the way, so
//! the file opened is the one at the folder's path joined with the file's, and nowhere
//! else. Whatever this cannot open (a symlink inside the app, an older kernel, a
//! container that forbids the call) is left to the careful way, which decides.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::File;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// `openat2` is not there (ENOSYS: before Linux 5.6; EPERM for the call itself: a
/// seccomp filter): not tried again in this process.
static UNAVAILABLE: AtomicBool = AtomicBool::new(false);

/// A sandbox's folders, each opened when a file below it is first read, for as long as the
/// sandbox lives (one render): a folder moved away meanwhile is read as it was when the
/// render opened it, never another one put in its place later. `None`: not usable.
#[derive(Debug, Default)]
pub(super) struct Folders(Mutex<BTreeMap<PathBuf, Option<OwnedFd>>>);

impl Folders {
    /// `rel` (below the folder `dir`, a real path) opened for reading without blocking, if
    /// it is there with no symlink and no `..` on the way; `None` for anything else.
    pub(super) fn open(&self, dir: &Path, rel: &Path) -> Option<File> {
        let bytes = rel.as_os_str().as_bytes();
        if UNAVAILABLE.load(Ordering::Relaxed)
            || bytes.is_empty()
            || bytes.ends_with(b"/")
            || !rel.components().all(|c| matches!(c, Component::Normal(_)))
        {
            return None;
        }
        let folder = self.folder(dir)?;
        let name = CString::new(bytes).ok()?;
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        match open_beneath(folder, &name, flags) {
            Ok(file) => Some(file),
            Err(errno) => {
                let unavailable = errno == libc::ENOSYS
                    || (errno == libc::EPERM
                        && open_beneath(folder, c".", libc::O_PATH | libc::O_CLOEXEC)
                            .is_err_and(|e| e == libc::EPERM));
                if unavailable {
                    UNAVAILABLE.store(true, Ordering::Relaxed);
                }
                None
            }
        }
    }

    /// The descriptor of folder `dir` (a real path), opened once: without following a
    /// symlink in its last component, and only if the kernel says it opened `dir` itself
    /// (no folder on the way swapped for a symlink since its real path was found). The
    /// descriptor stays in the map, and so open, while `self` lives.
    fn folder(&self, dir: &Path) -> Option<RawFd> {
        let mut folders = self.0.lock().unwrap_or_else(|e| e.into_inner());
        folders
            .entry(dir.to_path_buf())
            .or_insert_with(|| open_folder(dir))
            .as_ref()
            .map(AsRawFd::as_raw_fd)
    }
}

fn open_folder(dir: &Path) -> Option<OwnedFd> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir)
        .ok()?;
    (super::opened_path(&file)? == dir).then(|| file.into())
}

/// `openat2(folder, name, flags)` confined below `folder` with no symlink on the way; the
/// error number if the kernel refuses.
fn open_beneath(folder: RawFd, name: &std::ffi::CStr, flags: i32) -> Result<File, i32> {
    // SAFETY: open_how is three integers, for which zero is a valid value.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = flags as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    // SAFETY: `folder` is a descriptor its map keeps open, `name` a NUL-terminated string
    // and `how` a valid open_how of the size given; the kernel writes nothing.
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
        return Err(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO));
    }
    let fd = RawFd::try_from(fd).map_err(|_| libc::EBADF)?;
    // SAFETY: the kernel just returned this descriptor, and nothing else owns it.
    Ok(unsafe { File::from_raw_fd(fd) })
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
        let folders = Folders::default();
        let open = |dir: &Path, rel: &str| folders.open(dir, Path::new(rel));
        let opened = open(&app, "lib/a.libsonnet");
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
            "lib/a.libsonnet/",
        ] {
            assert!(open(&app, refused).is_none(), "{refused}");
        }
        // A folder named by a path through a symlink is not the folder it names.
        symlink(&app, root.join("app-link")).unwrap();
        assert!(open(&root.join("app-link"), "lib/a.libsonnet").is_none());
        // A folder moved away after this sandbox opened it is read where it went: a file
        // only in the one put in its place is not found through it (the careful way, which
        // reads by path, decides for it).
        std::fs::rename(&app, root.join("moved")).unwrap();
        std::fs::create_dir_all(app.join("lib")).unwrap();
        std::fs::write(app.join("lib/b.libsonnet"), "new").unwrap();
        assert!(open(&app, "lib/a.libsonnet").is_some());
        assert!(open(&app, "lib/b.libsonnet").is_none());
        // Another sandbox (another render) opens the folder now at that path.
        let later = Folders::default();
        assert!(later.open(&app, Path::new("lib/b.libsonnet")).is_some());
    }
}
