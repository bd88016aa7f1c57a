//! Registries other than the built-in one: a folder on disk, or a git repository fetched
//! with the `git` command (never a hosting provider's HTTP API, so no rate limits —
//! ksonnet's #196).
//!
//! Nothing here waits unbounded: every git command runs under the command's `--timeout`
//! ([`FetchDeadline`]) and is killed with everything it started when that passes, and
//! every file of a registry is read with [`read_regular`] (no FIFO, device or symlink is
//! ever opened for reading, and no file is read past a cap).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub use super::git::FetchDeadline;
use super::git::{GitFailure, git};
use super::{Origin, Package, PackageRef, RegistryError};
use crate::sandbox::{RENDER_FILE_CAP, ReadError, read_regular, read_regular_text};

/// The largest registry.yaml or parts.yaml kf reads (real ones are a few kB).
pub const INDEX_FILE_CAP: u64 = 1024 * 1024;
/// The most a package may hold, all files together, and how many files: a package is
/// vendored into the app, and read whole into memory first.
pub const PACKAGE_BYTES_CAP: u64 = 256 * 1024 * 1024;
pub const PACKAGE_FILES_CAP: usize = 10_000;
/// Where a registry's files come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A folder holding registry.yaml.
    Fs(PathBuf),
    /// A git repository, a ref (branch, tag or commit; default branch when `None`) and the
    /// folder in it that holds registry.yaml.
    Git {
        url: String,
        reference: Option<String>,
        subdir: String,
    },
}

impl Source {
    /// The `protocol` app.yaml records for it.
    pub fn protocol(&self) -> &'static str {
        match self {
            Source::Fs(_) => "fs",
            Source::Git { .. } => "git",
        }
    }
}

fn invalid(uri: &str, message: impl Into<String>) -> RegistryError {
    RegistryError::Invalid {
        path: uri.to_string(),
        message: message.into(),
    }
}

impl GitFailure {
    /// The error for `url`; `failed` words git's own failure.
    fn for_url(self, url: &str, failed: impl FnOnce(String) -> String) -> RegistryError {
        match self {
            GitFailure::Failed(message) => invalid(url, failed(message)),
            GitFailure::NotRun(e) => invalid(
                url,
                format!("cannot run git ({e}); install git to use git registries"),
            ),
            GitFailure::TimedOut { command, timeout } => invalid(
                url,
                format!(
                    "{command} did not finish within --timeout {}s, and was stopped; check that the URL is right and its server answers, or raise --timeout",
                    timeout.as_secs_f64()
                ),
            ),
        }
    }
}

/// `github.com/org/repo/tree/<ref>/<path>` (with or without https://).
fn github_tree(uri: &str) -> Option<Source> {
    let rest = uri
        .strip_prefix("https://")
        .unwrap_or(uri)
        .strip_prefix("github.com/")?;
    let parts: Vec<&str> = rest.splitn(5, '/').collect();
    match parts.as_slice() {
        [org, repo, "tree", reference, path @ ..] => Some(Source::Git {
            url: format!("https://github.com/{org}/{}", repo.trim_end_matches(".git")),
            reference: Some(reference.to_string()),
            subdir: path
                .first()
                .map(|p| p.trim_matches('/').to_string())
                .unwrap_or_default(),
        }),
        [org, repo] => Some(Source::Git {
            url: format!("https://github.com/{org}/{}", repo.trim_end_matches(".git")),
            reference: None,
            subdir: String::new(),
        }),
        _ => None,
    }
}

/// Read a registry URI as `kf registry add` takes it. `base` resolves relative paths.
/// A git URI may name a folder inside the repository after `//`
/// (`https://host/repo.git//registry`), and a ref after `@` at the very end.
pub fn parse_uri(uri: &str, base: &Path) -> Result<Source, RegistryError> {
    let uri = uri.trim();
    if uri.is_empty() {
        return Err(invalid(uri, "empty registry URI"));
    }
    if let Some(s) = github_tree(uri) {
        return Ok(s);
    }
    let local = |p: &str| {
        let path = Path::new(p);
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            base.join(path)
        }
    };
    if let Some(path) = uri.strip_prefix("file://") {
        let p = local(path);
        // A folder with registry.yaml is read in place; anything else (a bare repository)
        // is cloned with git.
        if p.join("registry.yaml").is_file() {
            return Ok(Source::Fs(p));
        }
        return Ok(git_source(uri));
    }
    if uri.starts_with("https://")
        || uri.starts_with("http://")
        || uri.starts_with("ssh://")
        || uri.starts_with("git@")
        || uri.starts_with("git://")
    {
        return Ok(git_source(uri));
    }
    if uri.starts_with('/')
        || uri.starts_with("./")
        || uri.starts_with("../")
        || base.join(uri).exists()
    {
        return Ok(Source::Fs(local(uri)));
    }
    Err(invalid(
        uri,
        "not a registry URI: use a folder (/path, ./path, file:///path) or a git repository (https://…, git@…, github.com/org/repo/tree/<ref>/<path>)",
    ))
}

fn git_source(uri: &str) -> Source {
    let (rest, reference) = match uri.rsplit_once('@') {
        // `git@host:` is a user, not a ref.
        Some((head, r))
            if !r.contains(':') && !r.contains('/') && !head.is_empty() && head != "git" =>
        {
            (head, Some(r.to_string()))
        }
        _ => (uri, None),
    };
    let scheme_end = rest.find("://").map(|i| i + 3).unwrap_or(0);
    let (url, subdir) = match rest[scheme_end..].find("//") {
        Some(i) => (
            rest[..scheme_end + i].to_string(),
            rest[scheme_end + i + 2..].trim_matches('/').to_string(),
        ),
        None => (rest.to_string(), String::new()),
    };
    Source::Git {
        url,
        reference,
        subdir,
    }
}

/// A registry's files on disk, for as long as this lives.
pub struct Fetched {
    pub root: PathBuf,
    /// The commit fetched (git), recorded as the installed package's version.
    pub version: Option<String>,
    _checkout: Option<tempfile::TempDir>,
}

/// A git ref as kf passes it to git: a branch, tag or commit name. Anything git could read
/// as an option (`--upload-pack=…`, `--pathspec-from-file=…`) or that no ref name may
/// hold is refused before git runs.
pub fn check_ref(reference: &str) -> Result<(), RegistryError> {
    let bad = |why: &str| {
        Err(invalid(
            reference,
            format!("not a usable git ref: {why}; name a branch, tag or commit"),
        ))
    };
    if reference.is_empty() {
        return bad("it is empty");
    }
    if reference.starts_with('-') {
        return bad("it starts with '-'");
    }
    if reference.len() > 255 {
        return bad("it is longer than 255 characters");
    }
    if reference.contains("..") || reference.contains("@{") || reference.ends_with(".lock") {
        return bad("it contains '..', '@{' or ends with '.lock'");
    }
    if reference
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || "~^:?*[\\".contains(c))
    {
        return bad("it contains a space, a control character or one of ~^:?*[\\");
    }
    Ok(())
}

/// Check that `root/registry.yaml` is a regular file kf may read; `missing` says what to
/// do when there is none.
fn check_registry_index(root: &Path, uri: &str, missing: &str) -> Result<(), RegistryError> {
    match read_regular(&root.join("registry.yaml"), INDEX_FILE_CAP) {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() => Err(invalid(uri, missing)),
        Err(e) => Err(e.into()),
    }
}

/// Fetch a registry, within `deadline`. `reference` overrides the source's git ref.
pub fn fetch(
    source: &Source,
    reference: Option<&str>,
    deadline: &FetchDeadline,
) -> Result<Fetched, RegistryError> {
    match source {
        Source::Fs(path) => {
            if reference.is_some() {
                return Err(invalid(
                    &path.display().to_string(),
                    "a folder registry has no versions; drop the @ref",
                ));
            }
            check_registry_index(
                path,
                &path.display().to_string(),
                "no registry.yaml there; a registry folder holds registry.yaml and one folder per package",
            )?;
            Ok(Fetched {
                root: path.clone(),
                version: None,
                _checkout: None,
            })
        }
        Source::Git {
            url,
            reference: own,
            subdir,
        } => {
            let tmp = tempfile::Builder::new()
                .prefix("kf-registry-")
                .tempdir()
                .map_err(|e| invalid(url, format!("cannot make a temp folder: {e}")))?;
            let dest = tmp.path().join("repo");
            let dest_s = dest.to_string_lossy().to_string();
            let wanted = reference.or(own.as_deref());
            if let Some(r) = wanted {
                check_ref(r)?;
            }
            let clone_failed = |e| format!("git clone failed: {e}");
            // `--` ends git's options: a URL or folder starting with '-' is not one.
            let shallow = match wanted {
                Some(r) => git(
                    &[
                        "clone",
                        "--quiet",
                        "--depth",
                        "1",
                        &format!("--branch={r}"),
                        "--",
                        url,
                        &dest_s,
                    ],
                    None,
                    deadline,
                ),
                None => git(
                    &["clone", "--quiet", "--depth", "1", "--", url, &dest_s],
                    None,
                    deadline,
                ),
            };
            match (shallow, wanted) {
                (Ok(_), _) => {}
                // A commit id cannot be cloned by name: clone everything, then check it out.
                (Err(GitFailure::Failed(_)), Some(r)) => {
                    let _ = std::fs::remove_dir_all(&dest);
                    git(&["clone", "--quiet", "--", url, &dest_s], None, deadline)
                        .map_err(|e| e.for_url(url, clone_failed))?;
                    git(
                        &["checkout", "--quiet", "--detach", r, "--"],
                        Some(&dest),
                        deadline,
                    )
                    .map_err(|e| {
                        e.for_url(url, |m| format!("no ref '{r}' in the repository: {m}"))
                    })?;
                }
                (Err(e), _) => return Err(e.for_url(url, clone_failed)),
            }
            let root = if subdir.is_empty() {
                dest.clone()
            } else {
                dest.join(subdir)
            };
            check_registry_index(
                &root,
                url,
                &format!(
                    "no registry.yaml in '{}' of the repository",
                    if subdir.is_empty() { "/" } else { subdir }
                ),
            )?;
            let version = match git(&["rev-parse", "HEAD"], Some(&dest), deadline) {
                Ok(out) => Some(String::from_utf8_lossy(&out).trim().to_string()),
                // A checkout without a HEAD commit records no version, as before.
                Err(GitFailure::Failed(_)) => None,
                Err(e) => return Err(e.for_url(url, |m| m)),
            };
            Ok(Fetched {
                root,
                version,
                _checkout: Some(tmp),
            })
        }
    }
}

/// registry.yaml: package name → folder (relative to the registry root).
pub fn packages(root: &Path) -> Result<BTreeMap<String, PathBuf>, RegistryError> {
    let path = root.join("registry.yaml");
    let text = read_regular_text(&path, INDEX_FILE_CAP)?;
    let doc: Value = serde_saphyr::from_str(&text).map_err(|e| {
        invalid(
            &path.display().to_string(),
            format!(
                "not valid YAML: {}",
                crate::message::error_summary(&e.to_string())
            ),
        )
    })?;
    let mut out = BTreeMap::new();
    for (name, lib) in doc["libraries"].as_object().into_iter().flatten() {
        let rel = lib["path"].as_str().unwrap_or(name);
        if rel.contains("..") || Path::new(rel).is_absolute() {
            return Err(invalid(
                &path.display().to_string(),
                format!("package '{name}' has path '{rel}' outside the registry"),
            ));
        }
        let dir = root.join(rel);
        // A symlinked package folder could point anywhere on the machine.
        if let (Ok(d), Ok(r)) = (dir.canonicalize(), root.canonicalize())
            && !d.starts_with(&r)
        {
            return Err(invalid(
                &path.display().to_string(),
                format!(
                    "package '{name}' resolves outside the registry ({})",
                    d.display()
                ),
            ));
        }
        out.insert(name.clone(), dir);
    }
    Ok(out)
}

/// registry.yaml: package name → the version it lists the package at (`master`).
pub fn package_versions(root: &Path) -> BTreeMap<String, String> {
    // Read once already by `packages`, which said what was wrong with it.
    let text = read_regular_text(&root.join("registry.yaml"), INDEX_FILE_CAP).unwrap_or_default();
    let doc: Value = serde_saphyr::from_str(&text).unwrap_or(Value::Null);
    doc["libraries"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(name, lib)| Some((name.clone(), lib["version"].as_str()?.to_string())))
        .collect()
}

/// Read a package folder: every file, recursively (but `.git`), each a regular file. A
/// symlink, FIFO, socket or device anywhere in it is refused, naming it: a package is
/// copied into the app, and must not bring the machine's other files with it, nor make
/// kf wait on a FIFO.
pub fn read_package(registry: &str, name: &str, dir: &Path) -> Result<Package, RegistryError> {
    let mut files = BTreeMap::new();
    let mut total = 0u64;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries =
            std::fs::read_dir(&d).map_err(|e| invalid(&d.display().to_string(), e.to_string()))?;
        for e in entries.flatten() {
            let p = e.path();
            let ft = e
                .file_type()
                .map_err(|e| invalid(&p.display().to_string(), e.to_string()))?;
            if ft.is_symlink() {
                return Err(ReadError::Symlink { path: p }.into());
            }
            if ft.is_dir() {
                if e.file_name() != ".git" {
                    stack.push(p);
                }
                continue;
            }
            let rel = p
                .strip_prefix(dir)
                .unwrap_or(&p)
                .to_string_lossy()
                .replace('\\', "/");
            // Bytes as they are: packages carry images and other binary files.
            let bytes = read_regular(&p, RENDER_FILE_CAP)?;
            total += bytes.len() as u64;
            if total > PACKAGE_BYTES_CAP || files.len() >= PACKAGE_FILES_CAP {
                return Err(invalid(
                    &dir.display().to_string(),
                    format!(
                        "package '{name}' holds more than kf vendors ({PACKAGE_FILES_CAP} files or {} MiB at most); is it the package's folder?",
                        PACKAGE_BYTES_CAP / (1024 * 1024)
                    ),
                ));
            }
            files.insert(rel, bytes);
        }
    }
    let description = files
        .get("parts.yaml")
        .and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|t| serde_saphyr::from_str::<Value>(t).ok())
        .and_then(|v| v["description"].as_str().map(str::to_string))
        .unwrap_or_default();
    Ok(Package {
        id: PackageRef {
            registry: registry.to_string(),
            name: name.to_string(),
        },
        description,
        origin: Origin::Vendored(dir.to_path_buf()),
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_read_as_ksonnet_users_wrote_them() {
        let base = Path::new("/app");
        assert_eq!(
            parse_uri("./reg", base).unwrap(),
            Source::Fs("/app/./reg".into())
        );
        assert_eq!(
            parse_uri("github.com/ksonnet/parts/tree/master/incubator", base).unwrap(),
            Source::Git {
                url: "https://github.com/ksonnet/parts".into(),
                reference: Some("master".into()),
                subdir: "incubator".into()
            }
        );
        assert_eq!(
            parse_uri("git@github.com:org/reg.git", base).unwrap(),
            Source::Git {
                url: "git@github.com:org/reg.git".into(),
                reference: None,
                subdir: String::new()
            }
        );
        assert_eq!(
            parse_uri("https://git.example.com/reg.git//kubeflow@v1.2", base).unwrap(),
            Source::Git {
                url: "https://git.example.com/reg.git".into(),
                reference: Some("v1.2".into()),
                subdir: "kubeflow".into()
            }
        );
        assert!(parse_uri("registry", base).is_err());
    }

    #[test]
    fn refs_that_git_could_read_as_options_are_refused() {
        for good in ["main", "v1.2.3", "release/1.0", "0123abcd"] {
            assert!(check_ref(good).is_ok(), "{good}");
        }
        for bad in [
            "--pathspec-from-file=/etc/passwd",
            "-c",
            "a b",
            "x..y",
            "ref@{1}",
            "",
            "a\nb",
        ] {
            assert!(check_ref(bad).is_err(), "{bad}");
        }
    }
}
