//! Vendored Helm charts as Tanka records them, and what kf adds.
//!
//! `chartfile.yaml` is Tanka's file (pkg/helm/spec.go, read with `UnmarshalStrict`): the
//! repositories, the charts required (`repo/name`, a version, an optional folder) and the
//! folder they go to. kf reads and writes it in that format and adds no field to it, so
//! `tk tool charts vendor` keeps working on the same app.
//!
//! `chartfile.lock`, beside it, is kf's: for every chart `kf chart add` or `update` pulled,
//! the folder it went to and the digest of its files ([`tree_digest`]). A render that
//! reaches a recorded folder through `helmTemplate` compares the two and refuses a chart
//! that changed since it was pulled.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Tanka's chartfile, next to which `kf chart` keeps its lock.
pub const CHARTFILE: &str = "chartfile.yaml";
/// kf's record of what was pulled.
pub const LOCKFILE: &str = "chartfile.lock";
/// Where charts go: Tanka's default folder, the one kf manages.
pub const CHARTS_DIR: &str = "charts";
/// The most bytes a chartfile or a lock may hold.
pub const MAX_FILE: u64 = 1 << 20;

/// `chartfile.yaml` (Tanka's `Chartfile`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chartfile {
    #[serde(default = "version_one")]
    pub version: u32,
    #[serde(default)]
    pub repositories: Vec<Repo>,
    #[serde(default)]
    pub requires: Vec<Requirement>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory: Option<String>,
}

fn version_one() -> u32 {
    1
}

/// A chart repository (Tanka's `Repo`): an HTTP(S) repository or an `oci://` registry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Repo {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ca_file: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cert_file: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_file: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub username: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub password: String,
}

/// A required chart (Tanka's `Requirement`): `repo/name`, a version, and the folder under
/// `charts/` it goes to (the chart's name when empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    pub chart: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub directory: String,
}

impl Requirement {
    /// The repository's name (before the first `/`).
    pub fn repo(&self) -> &str {
        self.chart.split_once('/').map_or("", |(r, _)| r)
    }

    /// The chart's name in its repository (after the first `/`).
    pub fn name(&self) -> &str {
        self.chart.split_once('/').map_or("", |(_, n)| n)
    }

    /// The folder under `charts/` it goes to.
    pub fn folder(&self) -> &str {
        if self.directory.is_empty() {
            self.name()
        } else {
            &self.directory
        }
    }

    /// Its folder relative to the chartfile's: `charts/<folder>`.
    pub fn path(&self) -> String {
        format!("{CHARTS_DIR}/{}", self.folder())
    }
}

/// `chartfile.lock`: what `kf chart` pulled.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    #[serde(default = "version_one")]
    pub version: u32,
    #[serde(default)]
    pub charts: Vec<Locked>,
}

/// One pulled chart: which, where (relative to the lock's folder) and its files' digest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Locked {
    pub chart: String,
    pub version: String,
    pub path: String,
    pub digest: String,
}

impl Lock {
    pub fn entry(&self, path: &str) -> Option<&Locked> {
        self.charts.iter().find(|l| l.path == path)
    }
}

/// The lock as kf writes it: a header saying what it is, then the entries sorted by path.
pub fn lock_text(lock: &Lock) -> String {
    let mut lock = lock.clone();
    lock.charts.sort_by(|a, b| a.path.cmp(&b.path));
    format!(
        "# Written by `kf chart add` and `kf chart update`: the digest of each chart's files as\n\
         # pulled. kf's render verbs refuse a chart folder that no longer matches; to render a\n\
         # folder you changed on purpose, remove its entry.\n{}",
        serde_saphyr::to_string(&lock).unwrap_or_default()
    )
}

/// `sha256:<hex>` over a chart folder's files: for each, sorted by its path relative to
/// the folder (`/`-separated), the path, a NUL, its length (8 bytes, little-endian) and
/// its bytes.
pub fn tree_digest<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    use sha2::Digest;
    let mut files: Vec<(&str, &[u8])> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.cmp(b.0));
    let mut hash = sha2::Sha256::new();
    for (path, bytes) in files {
        hash.update(path.as_bytes());
        hash.update([0]);
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Every file below `dir` as (`/`-separated path relative to it, bytes); symlinks and
/// anything but files and folders refused, at most `max_files` files and `max_bytes`.
pub fn read_tree(
    dir: &Path,
    max_files: usize,
    max_bytes: u64,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut out = Vec::new();
    let mut total = 0u64;
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let here = dir.join(&rel);
        let entries =
            std::fs::read_dir(&here).map_err(|e| format!("reading {}: {e}", here.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("reading {}: {e}", here.display()))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| format!("reading {}: {e}", path.display()))?;
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                return Err(format!("{}: a file name that is not UTF-8", path.display()));
            };
            let child = rel.join(&name);
            if kind.is_dir() {
                stack.push(child);
            } else if kind.is_file() {
                let bytes = crate::sandbox::read_regular(&path, max_bytes.saturating_sub(total))
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                total += bytes.len() as u64;
                let shown: Vec<String> = child
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push((shown.join("/"), bytes));
                if out.len() > max_files {
                    return Err(format!(
                        "{} holds more than {max_files} files",
                        dir.display()
                    ));
                }
            } else {
                return Err(format!(
                    "{} is a symlink or a special file; a chart folder holds only files and folders",
                    path.display()
                ));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The 1-based line of `text` where `needle` first appears, for messages.
pub fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// The lock at `path`, read under the caller's rules (`read`), with errors that name the
/// file and line.
pub fn parse_lock(text: &str, shown: &str) -> Result<Lock, String> {
    serde_saphyr::from_str::<Lock>(text).map_err(|e| {
        format!(
            "{shown}: not a chart lock kf can read: {}; kf writes it on `kf chart add` and `kf chart update`: run `kf chart update` to write it again",
            crate::message::error_summary_with_place(&e.to_string())
        )
    })
}

/// `chartfile.yaml`'s text read as Tanka reads it (unknown fields refused), each
/// requirement checked as Tanka checks it and as kf can place it.
pub fn parse_chartfile(text: &str, shown: &str) -> Result<Chartfile, String> {
    let file: Chartfile = serde_saphyr::from_str(text).map_err(|e| {
        format!(
            "{shown}: not a chartfile (Tanka's format: version, repositories, requires, directory): {}",
            crate::message::error_summary_with_place(&e.to_string())
        )
    })?;
    if let Some(dir) = &file.directory
        && dir.trim_end_matches('/') != CHARTS_DIR
    {
        let at = line_of(text, "directory:").map_or(String::new(), |l| format!(":{l}"));
        return Err(format!(
            "{shown}{at}: directory is '{dir}'; kf keeps charts in '{CHARTS_DIR}/' (Tanka's default): remove the line and move the charts there"
        ));
    }
    let mut folders: Vec<&str> = Vec::new();
    for req in &file.requires {
        let at = line_of(text, &req.chart).map_or(String::new(), |l| format!(":{l}"));
        if req.repo().is_empty() || req.name().is_empty() {
            return Err(format!(
                "{shown}{at}: chart '{}' is not of the form repo/name",
                req.chart
            ));
        }
        if req.version.is_empty() {
            return Err(format!("{shown}{at}: chart '{}' has no version", req.chart));
        }
        if !plain_name(req.folder()) {
            return Err(format!(
                "{shown}{at}: chart '{}' goes to folder '{}', which is not one plain folder name under charts/",
                req.chart,
                req.folder()
            ));
        }
        if folders.contains(&req.folder()) {
            return Err(format!(
                "{shown}{at}: two charts go to charts/{}; give one a folder of its own (repo/name@version:folder)",
                req.folder()
            ));
        }
        folders.push(req.folder());
    }
    Ok(file)
}

/// One folder name: no separator, not `.` or `..`, not hidden, no control character.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name.len() <= 200
        && !name
            .chars()
            .any(|c| c == '/' || c == '\\' || c.is_control())
}

/// `repo/name@version[:folder]` as Tanka's `tk tool charts add` reads it.
pub fn parse_requirement(spec: &str) -> Result<Requirement, String> {
    let (chart, rest) = spec.rsplit_once('@').ok_or_else(|| {
        format!("'{spec}' is not of the form repo/name@version (a folder may follow: repo/name@version:folder)")
    })?;
    let (version, directory) = match rest.split_once(':') {
        Some((v, d)) => (v, d),
        None => (rest, ""),
    };
    let req = Requirement {
        chart: chart.to_string(),
        version: version.to_string(),
        directory: directory.to_string(),
    };
    let repo_ok = !req.repo().is_empty()
        && req
            .repo()
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !repo_ok
        || !plain_name(req.name())
        || version.is_empty()
        || version.contains(char::is_whitespace)
    {
        return Err(format!(
            "'{spec}' is not of the form repo/name@version, with repo a name from chartfile.yaml's repositories (letters, digits, - and _)"
        ));
    }
    if !plain_name(req.folder()) {
        return Err(format!(
            "'{spec}': the folder '{}' is not one plain folder name under charts/",
            req.folder()
        ));
    }
    Ok(req)
}

/// The lock entry for the chart folder `dir`, when `dir` is `<project>/charts/<folder>` and
/// `<project>/chartfile.lock` records it; `read` reads the lock under the caller's rules
/// (`None` when it cannot be read there).
pub fn recorded_for(
    dir: &Path,
    read: impl Fn(&Path) -> Option<String>,
) -> Result<Option<(Locked, String, Option<usize>)>, String> {
    let (Some(folder), Some(charts)) = (dir.file_name(), dir.parent()) else {
        return Ok(None);
    };
    if charts.file_name().and_then(|n| n.to_str()) != Some(CHARTS_DIR) {
        return Ok(None);
    }
    let Some(project) = charts.parent() else {
        return Ok(None);
    };
    let lock_path = project.join(LOCKFILE);
    let Some(text) = read(&lock_path) else {
        return Ok(None);
    };
    let shown = lock_path.display().to_string();
    let lock = parse_lock(&text, &shown)?;
    let path = format!("{CHARTS_DIR}/{}", folder.to_string_lossy());
    Ok(lock.entry(&path).cloned().map(|l| {
        let line = line_of(&text, &format!("path: {path}"));
        (l, shown, line)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_read_as_tanka_reads_them() {
        let r = parse_requirement("kueue/kueue@0.19.2").unwrap();
        assert_eq!(
            (r.repo(), r.name(), r.folder()),
            ("kueue", "kueue", "kueue")
        );
        assert_eq!(r.path(), "charts/kueue");
        let r = parse_requirement("jupyterhub/jupyterhub@4.2.0:hub").unwrap();
        assert_eq!((r.version.as_str(), r.folder()), ("4.2.0", "hub"));
        for bad in [
            "kueue@0.19.2",
            "kueue/kueue",
            "a b/c@1",
            "r/c@1:../x",
            "r/c@1:.hidden",
            "r/../x@1",
            "/c@1",
        ] {
            assert!(parse_requirement(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_chartfile_is_read_strictly_and_its_folders_checked() {
        let text = "version: 1\nrepositories:\n- name: kueue\n  url: oci://registry.k8s.io/kueue/charts\nrequires:\n- chart: kueue/kueue\n  version: 0.19.2\n";
        let file = parse_chartfile(text, "chartfile.yaml").unwrap();
        assert_eq!(
            file.repositories[0].url,
            "oci://registry.k8s.io/kueue/charts"
        );
        assert_eq!(file.requires[0].path(), "charts/kueue");
        let unknown = format!("{text}digest: x\n");
        assert!(
            parse_chartfile(&unknown, "c")
                .unwrap_err()
                .contains("not a chartfile")
        );
        let twice = format!("{text}- chart: other/kueue\n  version: 1.0.0\n");
        let e = parse_chartfile(&twice, "chartfile.yaml").unwrap_err();
        assert!(
            e.contains("chartfile.yaml:8: two charts go to charts/kueue"),
            "{e}"
        );
        let elsewhere = format!("{text}directory: vendor/charts\n");
        let e = parse_chartfile(&elsewhere, "chartfile.yaml").unwrap_err();
        assert!(
            e.contains("chartfile.yaml:8: directory is 'vendor/charts'"),
            "{e}"
        );
    }

    #[test]
    fn the_digest_covers_names_lengths_and_bytes_in_path_order() {
        let a = tree_digest([("Chart.yaml", &b"x"[..]), ("values.yaml", &b"y"[..])]);
        assert_eq!(
            a,
            tree_digest([("values.yaml", &b"y"[..]), ("Chart.yaml", &b"x"[..])])
        );
        assert_ne!(
            a,
            tree_digest([("Chart.yaml", &b"x"[..]), ("values.yaml", &b"z"[..])])
        );
        assert_ne!(
            a,
            tree_digest([("Chart.yaml", &b"x"[..]), ("values.yml", &b"y"[..])])
        );
        // Moving a byte from one file's end to the next file's name is a different tree.
        assert_ne!(
            tree_digest([("a", &b"bc"[..])]),
            tree_digest([("ab", &b"c"[..])])
        );
        assert!(a.starts_with("sha256:") && a.len() == 71);
    }

    #[test]
    fn a_lock_is_found_for_a_folder_under_charts_only() {
        let lock = Lock {
            version: 1,
            charts: vec![Locked {
                chart: "kueue/kueue".into(),
                version: "0.19.2".into(),
                path: "charts/kueue".into(),
                digest: "sha256:00".into(),
            }],
        };
        let text = lock_text(&lock);
        assert_eq!(parse_lock(&text, "l").unwrap(), lock);
        let read = |p: &Path| (p == Path::new("/app/chartfile.lock")).then(|| text.clone());
        let (found, _, line) = recorded_for(Path::new("/app/charts/kueue"), read)
            .unwrap()
            .unwrap();
        assert_eq!((found.digest.as_str(), line), ("sha256:00", Some(8)));
        assert!(
            recorded_for(Path::new("/app/charts/other"), read)
                .unwrap()
                .is_none()
        );
        assert!(
            recorded_for(Path::new("/app/lib/kueue"), read)
                .unwrap()
                .is_none()
        );
        let broken = |_: &Path| Some("charts: 3\n".to_string());
        assert!(recorded_for(Path::new("/app/charts/kueue"), broken).is_err());
    }
}
