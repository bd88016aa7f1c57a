//! Crash-safe, confined file changes: every change kf makes to an app (and to an export
//! folder) goes through here.
//!
//! Confinement: a [`FileSet`] belongs to one root (the app). Every path it writes, renames
//! or deletes is resolved by [`resolve_inside`] — real path of every existing folder on
//! the way, symlinks included — and refused unless it lands inside the root's real path.
//! The last component is never followed: kf does not write, rename or delete a symlink,
//! so nothing outside the app is ever reached through one.
//!
//! Atomicity: every new file lands in a temp file in the target's own folder (so the
//! rename never crosses a file system), is fsynced, and only then do renames start. A
//! change of more than one step first writes a journal (`.kf-journal`) listing every
//! rename and removal; it is the commit point. A kf killed after it is rolled forward by
//! the next kf that opens the app ([`recover`]), so the app is always as before or as
//! after a command, never half. Leftover `.kf-*` staging files of a kf killed before the
//! journal are removed by the next command that takes the write lock.

mod fileset;
pub mod journal;
mod recover;
mod stage;

use std::fs;
use std::path::{Component, Path, PathBuf};

pub use fileset::FileSet;
pub use journal::JOURNAL_FILE;
pub use recover::{has_journal, recover, remove_leftovers};
pub use stage::write_atomic;

/// The app's write lock (see `app::lock`): a `.kf-` file the leftover sweep keeps.
pub const LOCK_FILE: &str = ".kf.lock";

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "refusing to change {path}: it resolves to {resolved}, outside the app ({root}); kf writes and deletes only inside the app (check for a symlink or a `..` in the path)"
    )]
    Outside {
        path: PathBuf,
        resolved: PathBuf,
        root: PathBuf,
    },
    #[error(
        "refusing to change {path}: it is a symlink, and kf never writes, moves or deletes through one; replace it with a real file or folder"
    )]
    Symlink { path: PathBuf },
    #[error(
        "an interrupted kf change could not be completed ({step}): {source}; fix the cause and run kf again (the plan is in {journal})"
    )]
    Recovery {
        step: String,
        journal: PathBuf,
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

/// The real path `path` names, if it is inside `root`: `path` (absolute, or relative to
/// `root`) may not contain `..`; every existing folder on the way is resolved through its
/// symlinks and must stay inside the real root; the last component must not be a
/// symlink. Folders that do not exist yet are fine (they will be created inside).
pub fn resolve_inside(root: &Path, path: &Path) -> Result<PathBuf, WriteError> {
    let real_root = root.canonicalize().map_err(io_err(root))?;
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let outside = |resolved: PathBuf| WriteError::Outside {
        path: path.to_path_buf(),
        resolved,
        root: real_root.clone(),
    };
    let rel = joined
        .strip_prefix(root)
        .or_else(|_| joined.strip_prefix(&real_root))
        .map_err(|_| outside(joined.clone()))?;
    let parts: Vec<&std::ffi::OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(p) => Ok(p),
            _ => Err(outside(joined.clone())),
        })
        .collect::<Result<_, _>>()?;
    let Some((last, folders)) = parts.split_last() else {
        return Err(outside(joined.clone()));
    };
    let mut real = real_root.clone();
    let mut exists = true;
    for (i, part) in folders.iter().enumerate() {
        real.push(part);
        if !exists {
            continue;
        }
        match fs::symlink_metadata(&real) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = real.canonicalize().map_err(io_err(&real))?;
                if !target.starts_with(&real_root) {
                    let rest: PathBuf = parts[i + 1..].iter().collect();
                    return Err(outside(target.join(rest)));
                }
                real = target;
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => exists = false,
            Err(e) => return Err(io_err(&real)(e)),
        }
    }
    real.push(last);
    if exists
        && fs::symlink_metadata(&real)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false)
    {
        return Err(WriteError::Symlink {
            path: path.to_path_buf(),
        });
    }
    Ok(real)
}

/// A new folder's files: path relative to the folder → contents.
pub type DirFiles = Vec<(String, Vec<u8>)>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_the_root_or_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("app");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("components")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("vendor")).unwrap();
        std::os::unix::fs::symlink(root.join("components"), root.join("comps")).unwrap();
        let real = root.canonicalize().unwrap();
        assert_eq!(
            resolve_inside(&root, Path::new("components/a.jsonnet")).unwrap(),
            real.join("components/a.jsonnet")
        );
        assert_eq!(
            resolve_inside(&root, &root.join("comps/new/a")).unwrap(),
            real.join("components/new/a")
        );
        for bad in ["../x", "vendor/pkg", "/etc/passwd", "components/../../x"] {
            assert!(
                matches!(
                    resolve_inside(&root, Path::new(bad)),
                    Err(WriteError::Outside { .. })
                ),
                "{bad}"
            );
        }
        assert!(matches!(
            resolve_inside(&root, Path::new("vendor")),
            Err(WriteError::Symlink { .. })
        ));
    }

    #[test]
    fn a_commit_that_fails_while_staging_changes_nothing_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("a"), "old").unwrap();
        fs::write(root.join("blocker"), "a file, not a folder").unwrap();
        fs::create_dir_all(root.join("pkg")).unwrap();
        let mut set = FileSet::new(root);
        set.write(root.join("a"), "new")
            .remove_dir(root.join("pkg"))
            .write_dir(root.join("pkg"), vec![("f".into(), b"x".to_vec())])
            .write(root.join("blocker/b"), "cannot be staged");
        assert!(set.commit().is_err());
        assert_eq!(fs::read_to_string(root.join("a")).unwrap(), "old");
        let mut names: Vec<String> = fs::read_dir(root)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "blocker", "pkg"]);
    }

    #[test]
    fn a_journal_kf_did_not_write_cannot_delete_the_app() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("components")).unwrap();
        fs::write(
            root.join(JOURNAL_FILE),
            r#"{"steps":[{"op":"remove_tree","path":"components"}]}"#,
        )
        .unwrap();
        assert!(matches!(recover(root), Err(WriteError::Recovery { .. })));
        assert!(root.join("components").is_dir());
    }
}
