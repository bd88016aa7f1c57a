//! The folders kf keeps its own data in, outside any app: the cache (generated
//! ksonnet-lib) and the state folder (the secret that signs kf's journals).
//!
//! Both may sit on a shared machine — a shared `XDG_CACHE_HOME`, a CI runner's HOME, the
//! temp folder — where another user could have made the folder first and filled it. So
//! each is used only while it is this user's alone: a real folder (not a symlink) owned
//! by this user, writable by nobody else, in a parent that others cannot write in (or
//! that is sticky, as `/tmp` is), so nobody else can swap it out.
//! Anything else is refused with the reason and the fix, never used.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum UserDirError {
    #[error(
        "{path} is not a folder of this user's alone ({why}), so kf does not keep its {what} there; set {var} to a folder of yours"
    )]
    NotPrivate {
        path: PathBuf,
        why: String,
        what: &'static str,
        var: &'static str,
    },
    #[error("cannot use {path} for kf's {what}: {source}")]
    Io {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
}

/// Where one kind of kf's data lives: the XDG variable, the folder below HOME, the
/// prefix of the temp-folder fallback.
struct Kind {
    what: &'static str,
    var: &'static str,
    below_home: &'static str,
    temp_prefix: &'static str,
}

const CACHE: Kind = Kind {
    what: "cache",
    var: "XDG_CACHE_HOME",
    below_home: ".cache",
    temp_prefix: "kf-cache",
};

const STATE: Kind = Kind {
    what: "state (the key that signs its journals)",
    var: "XDG_STATE_HOME",
    below_home: ".local/state",
    temp_prefix: "kf-state",
};

/// `$XDG_CACHE_HOME/kf`, `~/.cache/kf`, or `<temp>/kf-cache-<uid>`, checked private.
pub fn cache_dir() -> Result<PathBuf, UserDirError> {
    private_dir(&CACHE)
}

/// `$XDG_STATE_HOME/kf`, `~/.local/state/kf`, or `<temp>/kf-state-<uid>`, checked private.
pub fn state_dir() -> Result<PathBuf, UserDirError> {
    private_dir(&STATE)
}

fn private_dir(kind: &Kind) -> Result<PathBuf, UserDirError> {
    let dir = if let Some(x) = std::env::var_os(kind.var).filter(|x| !x.is_empty()) {
        PathBuf::from(x).join("kf")
    } else if let Some(h) = std::env::var_os("HOME").filter(|x| !x.is_empty()) {
        PathBuf::from(h).join(kind.below_home).join("kf")
    } else {
        std::env::temp_dir().join(format!("{}-{}", kind.temp_prefix, uid()))
    };
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|source| UserDirError::Io {
            path: parent.to_path_buf(),
            what: kind.what,
            source,
        })?;
    }
    make_private(&dir).map_err(|why| UserDirError::NotPrivate {
        path: dir.clone(),
        why: why.to_string(),
        what: kind.what,
        var: kind.var,
    })?;
    Ok(dir)
}

/// Why a folder is not this user's alone.
#[derive(Debug, thiserror::Error)]
pub enum NotPrivate {
    #[error("{0}")]
    Unreadable(#[source] std::io::Error),
    #[error("it is {0}")]
    NotAFolder(&'static str),
    #[error("it belongs to uid {0}")]
    OtherOwner(u32),
    #[error("others may write in it (mode {0:o})")]
    OthersMayWrite(u32),
    #[error("its parent {} may be changed by others", .0.display())]
    OpenParent(PathBuf),
}

/// Make `dir` (mode 0700) unless it exists, then check it is this user's alone; why not,
/// if it is not (see [`check_private`]).
pub fn make_private(dir: &Path) -> Result<(), NotPrivate> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        let _ = std::fs::DirBuilder::new().mode(0o700).create(dir);
    }
    #[cfg(not(unix))]
    let _ = std::fs::create_dir(dir);
    check_private(dir)
}

/// This process's user id (0 off Unix).
pub fn uid() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: getuid has no preconditions and cannot fail.
        unsafe { libc::getuid() }
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// Why `dir` is not this user's alone, if it is not: not a real folder, owned by someone
/// else, writable by group or others, or in a parent others may rename entries of.
#[cfg(unix)]
pub fn check_private(dir: &Path) -> Result<(), NotPrivate> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir).map_err(NotPrivate::Unreadable)?;
    if !meta.is_dir() {
        return Err(NotPrivate::NotAFolder(crate::sandbox::kind_of(&meta)));
    }
    if meta.uid() != uid() {
        return Err(NotPrivate::OtherOwner(meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(NotPrivate::OthersMayWrite(meta.mode() & 0o777));
    }
    let parent = dir.parent().unwrap_or(dir);
    let p = std::fs::metadata(parent).map_err(NotPrivate::Unreadable)?;
    let others_write = p.mode() & 0o022 != 0;
    let sticky = p.mode() & 0o1000 != 0;
    if others_write && !sticky && p.uid() != uid() {
        return Err(NotPrivate::OpenParent(parent.to_path_buf()));
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn check_private(dir: &Path) -> Result<(), NotPrivate> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(NotPrivate::NotAFolder(crate::sandbox::kind_of(&m))),
        Err(e) => Err(NotPrivate::Unreadable(e)),
    }
}

/// Whether the file behind `meta` may be trusted as this user's own: owned by this user
/// and writable by nobody else.
#[cfg(unix)]
pub fn is_own_file(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == uid() && meta.mode() & 0o022 == 0
}

#[cfg(not(unix))]
pub fn is_own_file(_meta: &std::fs::Metadata) -> bool {
    true
}

/// The length of [`secret`].
pub const SECRET_LEN: usize = 32;
const SECRET_FILE: &str = "secret";

/// This user's secret (made on first use): 32 random bytes in the state folder, readable
/// by this user alone. What kf signs with it (its journals) cannot come from anyone who
/// does not have it: a cloned repository, another user, another machine.
pub fn secret() -> Result<[u8; SECRET_LEN], UserDirError> {
    let dir = state_dir()?;
    let path = dir.join(SECRET_FILE);
    let bad = |why: String| UserDirError::NotPrivate {
        path: path.clone(),
        why,
        what: STATE.what,
        var: STATE.var,
    };
    let open = || crate::sandbox::open_regular_with_metadata(&path);
    let (file, meta) = match open() {
        Err(e) if e.is_not_found() => {
            create_secret(&dir, &path)?;
            open()
        }
        opened => opened,
    }
    .map_err(|e| bad(e.to_string()))?;
    if !is_own_file(&meta) || permissions_of(&meta) & 0o077 != 0 {
        return Err(bad("it is not readable by this user alone".into()));
    }
    let bytes = crate::sandbox::read_capped_hint(file, meta.len(), &path, SECRET_LEN as u64 + 1)
        .map_err(|e| bad(e.to_string()))?;
    bytes
        .try_into()
        .map_err(|_| bad(format!("it does not hold {SECRET_LEN} bytes; remove it")))
}

#[cfg(unix)]
fn permissions_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::MetadataExt;
    meta.mode()
}

#[cfg(not(unix))]
fn permissions_of(_meta: &std::fs::Metadata) -> u32 {
    0
}

/// Write a new secret: random bytes into a private temp file, then linked into place
/// (a link never replaces a file, so two kf making it at once agree on one).
fn create_secret(dir: &Path, path: &Path) -> Result<(), UserDirError> {
    use std::io::Write;
    let io = |source| UserDirError::Io {
        path: path.to_path_buf(),
        what: STATE.what,
        source,
    };
    let mut bytes = [0u8; SECRET_LEN];
    crate::signing::random_bytes(&mut bytes).map_err(io)?;
    // tempfile makes its files 0600.
    let mut temp = tempfile::Builder::new()
        .prefix(".secret-")
        .tempfile_in(dir)
        .map_err(io)?;
    temp.write_all(&bytes).map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    match std::fs::hard_link(temp.path(), path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io(e)),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_folder_others_may_write_in_or_a_symlink_is_not_private() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("d");
        std::fs::create_dir(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).unwrap();
        assert!(check_private(&d).is_ok());
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(matches!(
            check_private(&d),
            Err(NotPrivate::OthersMayWrite(0o777))
        ));
        std::os::unix::fs::symlink(tmp.path(), tmp.path().join("link")).unwrap();
        assert!(
            check_private(&tmp.path().join("link"))
                .unwrap_err()
                .to_string()
                .contains("symlink")
        );
        std::fs::write(tmp.path().join("f"), "").unwrap();
        assert!(check_private(&tmp.path().join("f")).is_err());
    }
}
