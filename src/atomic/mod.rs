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
        "refusing to write '{path}': {why}; the name came from outside kf (a file, a server's reply, a template): nothing was changed"
    )]
    BadName { path: String, why: &'static str },
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
    check_names(path, &parts)?;
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

/// The longest name one folder entry may have (NAME_MAX of Linux's file systems).
const NAME_MAX: usize = 255;
/// The longest path kf writes below a root (PATH_MAX, less room for the root itself).
const PATH_MAX: usize = 3072;

/// Every name of a path must be one a file system holds: no NUL byte, at most 255 bytes;
/// the whole no longer than [`PATH_MAX`]. Checked before anything is staged or journaled,
/// so a name from a served spec or a manifest can never leave a journal whose step no
/// file system can carry out.
fn check_names(path: &Path, parts: &[&std::ffi::OsStr]) -> Result<(), WriteError> {
    use std::os::unix::ffi::OsStrExt;
    let bad = |why| WriteError::BadName {
        path: path.to_string_lossy().escape_debug().to_string(),
        why,
    };
    if parts.iter().any(|p| p.as_bytes().contains(&0)) {
        return Err(bad("a file name cannot hold a NUL byte"));
    }
    if parts.iter().any(|p| p.len() > NAME_MAX) {
        return Err(bad("a file name is longer than 255 bytes"));
    }
    if parts.iter().map(|p| p.len() + 1).sum::<usize>() > PATH_MAX {
        return Err(bad("the path is longer than 3072 bytes"));
    }
    Ok(())
}

/// Check a new folder's file names (relative to `dir`) as [`resolve_inside`] checks paths.
fn check_dir_files(dir: &Path, files: &DirFiles) -> Result<(), WriteError> {
    for (name, _) in files {
        let path = dir.join(name);
        let parts: Vec<&std::ffi::OsStr> = Path::new(name).iter().collect();
        check_names(&path, &parts)?;
    }
    Ok(())
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
    fn names_no_file_system_holds_are_refused_before_anything_is_journaled() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("app.yaml"), "old").unwrap();
        let long = "n".repeat(256);
        let deep = vec!["d".repeat(200); 16].join("/");
        for bad in ["lib/apps.v1\0x.libsonnet", long.as_str(), deep.as_str()] {
            let mut set = FileSet::new(root);
            set.write(root.join("app.yaml"), "new")
                .write(root.join(bad), "x");
            assert!(
                matches!(set.commit(), Err(WriteError::BadName { .. })),
                "{bad}"
            );
            let mut set = FileSet::new(root);
            set.write(root.join("app.yaml"), "new")
                .write_dir(root.join("lib"), vec![(bad.to_string(), b"x".to_vec())]);
            assert!(
                matches!(set.commit(), Err(WriteError::BadName { .. })),
                "{bad}"
            );
            assert_eq!(fs::read_to_string(root.join("app.yaml")).unwrap(), "old");
            assert!(!root.join(JOURNAL_FILE).exists());
            assert!(!root.join("lib").exists());
        }
        let ok = "n".repeat(255);
        assert!(resolve_inside(root, Path::new(&ok)).is_ok());
    }

    #[test]
    fn a_journal_kf_refuses_to_seal_leaves_nothing_staged() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("app.yaml"), "old").unwrap();
        // Two steps (so a journal), one of a file kf does not manage in an app.
        let mut set = FileSet::new(root);
        set.write(root.join("app.yaml"), "new")
            .write(root.join("notes.txt"), "x");
        assert!(set.commit().is_err());
        let names: Vec<String> = fs::read_dir(root)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["app.yaml"]);
        assert_eq!(fs::read_to_string(root.join("app.yaml")).unwrap(), "old");
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
