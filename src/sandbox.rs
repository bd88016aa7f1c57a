//! The one way kf opens a file it did not write itself.
//!
//! An app folder, a registry's package or a cache shared with other users may hold
//! anything: a symlink to `~/.kube/config`, a FIFO that never answers, `/dev/zero`, a
//! gigabyte of text. Every reader of such a file goes through [`read_regular`] (a file
//! named by kf: a state file, a registry's file) or a [`Sandbox`] (a file named by the
//! app: imports, components, params, app.yaml, swagger.json), which
//! - never blocks on opening (`O_NONBLOCK`: a FIFO or device answers at once);
//! - reads only regular files, refusing FIFOs, sockets, devices and folders;
//! - never follows a symlink in the last component of the path it was given
//!   ([`read_regular`]), and for a [`Sandbox`], reads only what resolves inside its
//!   folders, through any symlink on the way;
//! - reads at most a cap of bytes, whatever the file claims or grows to.
//!
//! Sits below everything else: engine, app, ksonnetlib and registry all read through it.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

#[cfg(target_os = "linux")]
mod beneath;

/// The largest file kf reads to render: a generated CRD bundle or a whole OpenAPI spec
/// is a few MB, the biggest real ksonnet-lib file 1.6 MB.
pub const RENDER_FILE_CAP: u64 = 64 * 1024 * 1024;

/// The largest state file kf reads (`.ks_environment`, `.kf-journal`).
pub const STATE_FILE_CAP: u64 = 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    #[error("{path} is {what}, not a regular file; kf reads only regular files there")]
    NotRegular { path: PathBuf, what: &'static str },
    #[error("{path} is a symlink; kf does not follow a symlink there (replace it with the file)")]
    Symlink { path: PathBuf },
    #[error("{path} is larger than kf reads ({cap} bytes at most)")]
    TooLarge { path: PathBuf, cap: u64 },
    #[error(
        "{path} resolves to {resolved}, which is outside the app and the -J folders ({allowed}); kf reads only files there (check for a symlink or a `..`)"
    )]
    Outside {
        path: PathBuf,
        resolved: PathBuf,
        allowed: String,
    },
    #[error(
        "{path} is not as kf wrote it into {dir}; kf reads no file there that it did not write: remove {dir} (kf makes it again)"
    )]
    Changed { path: PathBuf, dir: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ReadError {
    pub fn is_not_found(&self) -> bool {
        matches!(self, ReadError::NotFound { .. })
    }

    fn io(path: &Path, source: std::io::Error) -> ReadError {
        match source.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
                ReadError::NotFound {
                    path: path.to_path_buf(),
                }
            }
            _ => ReadError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// What kind of file `meta` describes, in words, for an error.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_symlink() {
        "a symlink"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Open `path` for reading without following a symlink in its last component and
/// without blocking, and only if it is a regular file.
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    Ok(open_regular_sized(path)?.0)
}

/// [`open_regular`], with the file's size from the same `fstat`.
fn open_regular_sized(path: &Path) -> Result<(File, u64), ReadError> {
    let (file, meta) = open_regular_with_metadata(path)?;
    Ok((file, meta.len()))
}

/// [`open_regular`], with what the `fstat` that checked it said (owner, mode, size): a
/// caller that checks more of the file needs no second one.
pub fn open_regular_with_metadata(path: &Path) -> Result<(File, std::fs::Metadata), ReadError> {
    let file = open_nofollow(path).map_err(|e| refusal(path, e))?;
    regular(file, path)
}

/// `file` (opened from `path`) and its metadata, if it is a regular file.
fn regular(file: File, path: &Path) -> Result<(File, std::fs::Metadata), ReadError> {
    let meta = file.metadata().map_err(|e| ReadError::io(path, e))?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular {
            path: path.to_path_buf(),
            what: kind_of(&meta),
        });
    }
    Ok((file, meta))
}

/// `bytes` read from `path` as UTF-8 text.
fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, ReadError> {
    String::from_utf8(bytes).map_err(|_| ReadError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"),
    })
}

/// The bytes of the regular file `path` (see [`open_regular`]), at most `cap` of them.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let (file, size) = open_regular_sized(path)?;
    read_capped_hint(file, size, path, cap)
}

/// The bytes of a file the user named (on the command line, in their kubeconfig), at
/// most `cap` of them: symlinks are followed, since the user chose the path, but only a
/// regular file is read and opening never blocks (a FIFO given by mistake is refused,
/// not waited on).
pub fn read_named(path: &Path, cap: u64) -> Result<String, ReadError> {
    let file = open_following(path).map_err(|e| refusal_following(path, e))?;
    let (file, meta) = regular(file, path)?;
    let bytes = read_capped_hint(file, meta.len(), path, cap)?;
    utf8(path, bytes)
}

#[cfg(unix)]
fn open_following(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
fn open_following(path: &Path) -> std::io::Result<File> {
    File::open(path)
}

fn refusal_following(path: &Path, e: std::io::Error) -> ReadError {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => ReadError::NotRegular {
            path: path.to_path_buf(),
            what: kind_of(&m),
        },
        _ => ReadError::io(path, e),
    }
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_text(path: &Path, cap: u64) -> Result<String, ReadError> {
    utf8(path, read_regular(path, cap)?)
}

/// The bytes of `file` (opened from `path`, e.g. by [`open_regular`] and then checked by
/// its caller), at most `cap` of them: read from the same open file, so what was checked
/// is what is read.
pub fn read_capped(file: File, path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let hint = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_capped_hint(file, hint, path, cap)
}

/// [`read_capped`] of a file whose size the caller's `fstat` gave (`hint`).
pub fn read_capped_hint(
    file: File,
    hint: u64,
    path: &Path,
    cap: u64,
) -> Result<Vec<u8>, ReadError> {
    if hint > cap {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            cap,
        });
    }
    let mut bytes = Vec::with_capacity(hint as usize);
    // One byte past the cap tells a file that grew since the stat.
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::io(path, e))?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            cap,
        });
    }
    Ok(bytes)
}

#[cfg(unix)]
fn open_nofollow(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
fn open_nofollow(path: &Path) -> std::io::Result<File> {
    if std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(std::io::Error::other("a symlink"));
    }
    File::open(path)
}

/// Why opening `path` failed, in kf's words: a symlink (ELOOP with O_NOFOLLOW), a file
/// of another kind, or the operating system's reason.
fn refusal(path: &Path, e: std::io::Error) -> ReadError {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return ReadError::Symlink {
            path: path.to_path_buf(),
        };
    }
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => ReadError::Symlink {
            path: path.to_path_buf(),
        },
        Ok(m) if !m.is_file() => ReadError::NotRegular {
            path: path.to_path_buf(),
            what: kind_of(&m),
        },
        _ => ReadError::io(path, e),
    }
}

/// The path the open `file` was reached by, as the kernel resolved it at the open
/// (Linux's `/proc/self/fd` link); `None` where that cannot be known.
#[cfg(target_os = "linux")]
fn opened_path(file: &File) -> Option<PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
        .ok()
        .filter(|p| p.is_absolute())
}

#[cfg(not(target_os = "linux"))]
fn opened_path(_file: &File) -> Option<PathBuf> {
    None
}

/// Real paths of folders, remembered for the process (see [`real_dir`]).
static REAL_DIRS: std::sync::Mutex<std::collections::BTreeMap<PathBuf, PathBuf>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// The real path of folder `dir`, as `canonicalize` gives it, remembered for the process:
/// from its parent's (itself remembered) and one `lstat` showing the last component is no
/// symlink. A render makes an engine, and so a sandbox, per module, each over the same
/// folders: the app, the `-J` folders, the cache kf verifies files of. A folder swapped
/// for a symlink after it was remembered is caught where it matters: [`Sandbox::read`]
/// checks the path the kernel actually opened.
pub fn real_dir(dir: &Path) -> std::io::Result<PathBuf> {
    if let Some(known) = REAL_DIRS.lock().unwrap_or_else(|e| e.into_inner()).get(dir) {
        return Ok(known.clone());
    }
    let real = match (dir.parent(), dir.file_name()) {
        (Some(parent), Some(name))
            if dir.is_absolute() && !std::fs::symlink_metadata(dir)?.file_type().is_symlink() =>
        {
            real_dir(parent)?.join(name)
        }
        _ => dir.canonicalize()?,
    };
    REAL_DIRS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(dir.to_path_buf(), real.clone());
    Ok(real)
}

/// Folders kf may read from for one render: the app, the `-J` folders, kf's own cache.
/// A path is read if it resolves, through every symlink on the way, to a regular file
/// inside one of them.
#[derive(Debug, Clone, Default)]
pub struct Sandbox {
    roots: Vec<PathBuf>,
    verified: Vec<Verified>,
    /// The folders opened for reading below them (beneath.rs), shared by clones.
    #[cfg(target_os = "linux")]
    folders: std::sync::Arc<beneath::Folders>,
}

/// A folder whose every file kf wrote itself and knows the SHA-256 of (a ksonnet-lib
/// kf generated into its cache): a file read from it must be one of them, unchanged.
#[derive(Debug, Clone)]
struct Verified {
    dir: PathBuf,
    digests: std::sync::Arc<dyn KnownDigests>,
}

/// The SHA-256 of every file kf wrote into a folder, by its path below the folder (`/`
/// between folders).
pub trait KnownDigests: std::fmt::Debug + Send + Sync {
    fn digest_of(&self, path: &str) -> Option<[u8; 32]>;
}

impl Verified {
    /// `bytes`, read from `real` (`rel` below the folder), are what kf wrote there.
    fn check(&self, real: &Path, rel: &str, bytes: &[u8]) -> Result<(), ReadError> {
        use sha2::Digest;
        let actual: [u8; 32] = sha2::Sha256::digest(bytes).into();
        if self.digests.digest_of(rel) == Some(actual) {
            return Ok(());
        }
        Err(ReadError::Changed {
            path: real.to_path_buf(),
            dir: self.dir.clone(),
        })
    }
}

impl Sandbox {
    /// The folders, by their real paths; one that does not exist allows nothing.
    pub fn new<P: AsRef<Path>>(roots: impl IntoIterator<Item = P>) -> Sandbox {
        Sandbox {
            roots: roots
                .into_iter()
                .filter_map(|p| real_dir(p.as_ref()).ok())
                .collect(),
            ..Sandbox::default()
        }
    }

    /// The real path of `path` (every symlink resolved), as `canonicalize` gives it, in
    /// fewer system calls: the real path of its folder is remembered, so a file whose last
    /// component is no symlink costs one `lstat` instead of a `readlink` per component
    /// (a render resolves every import against several search folders). A folder swapped
    /// for a symlink after it was remembered is caught where it matters: [`Sandbox::read`]
    /// checks the path the kernel actually opened. Elsewhere (no `/proc/self/fd`), every
    /// path is canonicalized.
    fn real_path(&self, path: &Path) -> std::io::Result<(PathBuf, std::fs::Metadata)> {
        let canonical = |path: &Path| {
            let real = path.canonicalize()?;
            let meta = std::fs::symlink_metadata(&real)?;
            Ok((real, meta))
        };
        if !cfg!(target_os = "linux") {
            return canonical(path);
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return canonical(path);
        };
        let meta = std::fs::symlink_metadata(path)?;
        if meta.file_type().is_symlink() {
            return canonical(path);
        }
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        Ok((real_dir(parent)?.join(name), meta))
    }

    /// Also read from `dir`, but only the files of `digests` (path relative to `dir`, with
    /// `/` between folders → SHA-256), each only while it still has that digest.
    pub fn with_verified(
        mut self,
        dir: &Path,
        digests: std::sync::Arc<dyn KnownDigests>,
    ) -> Sandbox {
        if let Ok(dir) = real_dir(dir) {
            self.verified.push(Verified { dir, digests });
        }
        self
    }

    /// No file at all (a prototype's default evaluated on its own).
    pub fn none() -> Sandbox {
        Sandbox::default()
    }

    fn verified_for(&self, real: &Path) -> Option<(&Verified, String)> {
        self.verified.iter().find_map(|v| {
            let rel = real.strip_prefix(&v.dir).ok()?;
            let parts: Option<Vec<&str>> = rel.iter().map(|p| p.to_str()).collect();
            Some((v, parts?.join("/")))
        })
    }

    fn allows(&self, real: &Path) -> bool {
        self.roots.iter().any(|r| real.starts_with(r)) || self.verified_for(real).is_some()
    }

    /// The real path of `path`, if it exists and resolves inside the sandbox.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, ReadError> {
        Ok(self.resolve_with_metadata(path)?.0)
    }

    /// [`Sandbox::resolve`], with what `lstat` says of the real path (no symlink).
    pub fn resolve_with_metadata(
        &self,
        path: &Path,
    ) -> Result<(PathBuf, std::fs::Metadata), ReadError> {
        let (real, meta) = self.real_path(path).map_err(|e| ReadError::io(path, e))?;
        if self.allows(&real) {
            Ok((real, meta))
        } else {
            Err(ReadError::Outside {
                path: path.to_path_buf(),
                resolved: real,
                allowed: self.describe(),
            })
        }
    }

    /// The bytes of `path`, at most [`RENDER_FILE_CAP`] of them, if it is a regular file
    /// inside the sandbox.
    pub fn read(&self, path: &Path) -> Result<Vec<u8>, ReadError> {
        self.read_at_most(path, RENDER_FILE_CAP)
    }

    /// [`Sandbox::read`], of at most `cap` bytes.
    pub fn read_at_most(&self, path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
        #[cfg(target_os = "linux")]
        if let Some(read) = self.read_beneath(path, cap) {
            return read;
        }
        let checked = self.resolve(path)?;
        // The real path has no symlink left: O_NOFOLLOW refuses one swapped in since.
        let (file, size) = open_regular_sized(&checked).map_err(|e| match e {
            ReadError::NotRegular { what, .. } => ReadError::NotRegular {
                path: path.to_path_buf(),
                what,
            },
            other => other,
        })?;
        // O_NOFOLLOW covers only the last component: a folder on the way may have been
        // swapped for a symlink out since the check. Where the open landed must be inside
        // too (and is what a library's digest is looked up by).
        let real = opened_path(&file).unwrap_or(checked);
        if !self.allows(&real) {
            return Err(ReadError::Outside {
                path: path.to_path_buf(),
                resolved: real,
                allowed: self.describe(),
            });
        }
        let bytes = read_capped_hint(file, size, path, cap)?;
        if !self.roots.iter().any(|r| real.starts_with(r))
            && let Some((v, rel)) = self.verified_for(&real)
        {
            v.check(&real, &rel, &bytes)?;
        }
        Ok(bytes)
    }

    /// [`Sandbox::read_at_most`] of a real path below one of the folders, opened in one
    /// call that the kernel confines to the folder (beneath.rs); `None` where that does
    /// not open it, for the careful way to decide.
    #[cfg(target_os = "linux")]
    fn read_beneath(&self, path: &Path, cap: u64) -> Option<Result<Vec<u8>, ReadError>> {
        // A verified file is named as the careful way names it (no name: not UTF-8, the
        // careful way's to refuse).
        let (dir, verified) = match self.roots.iter().find(|r| path.starts_with(r)) {
            Some(root) => (root, None),
            None => {
                let (v, name) = self.verified_for(path)?;
                (&v.dir, Some((v, name)))
            }
        };
        let file = self.folders.open(dir, path.strip_prefix(dir).ok()?)?;
        Some((|| {
            let (file, meta) = regular(file, path)?;
            let bytes = read_capped_hint(file, meta.len(), path, cap)?;
            if let Some((v, name)) = verified {
                v.check(path, &name, &bytes)?;
            }
            Ok(bytes)
        })())
    }

    /// [`Sandbox::read`] as UTF-8 text.
    pub fn read_text(&self, path: &Path) -> Result<String, ReadError> {
        utf8(path, self.read(path)?)
    }

    fn describe(&self) -> String {
        if self.roots.is_empty() {
            return "nothing (no file may be read here)".to_string();
        }
        let roots: Vec<String> = self.roots.iter().map(|p| p.display().to_string()).collect();
        roots.join(", ")
    }
}

#[cfg(all(test, unix))]
mod tests;
