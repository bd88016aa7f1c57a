//! `kf chart add-repo | add | list | update`: Helm charts vendored under `charts/`, as
//! Tanka's `tk tool charts` keeps them (`chartfile.yaml`, [`crate::engine::chartfile`]),
//! with what was pulled recorded in `chartfile.lock` so the render verbs can refuse a
//! folder that changed since.
//!
//! Pulling runs the user's helm (`helm pull … --untar`) with kf's rules for a program:
//! a cleared environment (proxies and CA settings kept), an empty HOME, no kubeconfig, a
//! time limit. Every chart is pulled into a temporary folder and read into memory first;
//! the chart folders, chartfile.yaml and chartfile.lock then change together, as one
//! journalled change, or not at all.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

use crate::app::App;
use crate::atomic::FileSet;
use crate::engine::chartfile::{
    self, CHARTFILE, Chartfile, LOCKFILE, Lock, Locked, Repo, Requirement,
};
use crate::engine::external;

/// The most bytes of one pulled chart kf keeps.
const MAX_CHART: u64 = 64 << 20;

/// What `charts/<folder>` holds against what chartfile.yaml requires.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// What `kf chart` pulled for this version, unchanged.
    Pulled,
    /// No folder.
    Missing,
    /// Pulled by kf, then changed: its digest differs from the record.
    Changed,
    /// Pulled by kf at another version (the one given).
    OtherVersion(String),
    /// A folder kf has no record of (vendored by hand or by Tanka).
    Unrecorded,
}

impl State {
    pub fn describe(&self) -> String {
        match self {
            State::Pulled => "pulled".into(),
            State::Missing => "missing".into(),
            State::Changed => "changed since pulled".into(),
            State::OtherVersion(v) => format!("{v} pulled"),
            State::Unrecorded => "not recorded".into(),
        }
    }
}

/// A required chart and the state of its folder.
#[derive(Debug, Clone)]
pub struct Row {
    pub requirement: Requirement,
    pub state: State,
    pub digest: Option<String>,
}

/// chartfile.yaml and chartfile.lock as read from the app (empty when absent).
struct Project {
    root: PathBuf,
    file: Chartfile,
    text: Option<String>,
    lock: Lock,
}

fn read_optional(app: &App, name: &str) -> Result<Option<String>> {
    let path = app.root.join(name);
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    Ok(Some(app.read_text(&path)?))
}

fn load(app: &App) -> Result<Project> {
    let text = read_optional(app, CHARTFILE)?;
    let file = match &text {
        Some(t) => chartfile::parse_chartfile(t, CHARTFILE).map_err(|e| anyhow!(e))?,
        None => Chartfile {
            version: 1,
            ..Chartfile::default()
        },
    };
    let lock = match read_optional(app, LOCKFILE)? {
        Some(t) => chartfile::parse_lock(&t, LOCKFILE).map_err(|e| anyhow!(e))?,
        None => Lock {
            version: 1,
            charts: Vec::new(),
        },
    };
    Ok(Project {
        root: app.root.clone(),
        file,
        text,
        lock,
    })
}

/// The state of one required chart's folder.
fn state_of(project: &Project, req: &Requirement) -> Result<(State, Option<String>)> {
    let dir = project.root.join(req.path());
    if std::fs::symlink_metadata(&dir).is_err() {
        return Ok((State::Missing, None));
    }
    let files = chartfile::read_tree(&dir, external::MAX_FILES, MAX_CHART)
        .map_err(|e| anyhow!("{}: {e}", req.path()))?;
    let digest = chartfile::tree_digest(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    let state = match project.lock.entry(&req.path()) {
        None => State::Unrecorded,
        Some(l) if l.chart != req.chart || l.version != req.version => {
            State::OtherVersion(format!("{}@{}", l.chart, l.version))
        }
        Some(l) if l.digest != digest => State::Changed,
        Some(_) => State::Pulled,
    };
    Ok((state, Some(digest)))
}

/// `kf chart list`: every chart chartfile.yaml requires, in its order, and its folder's state.
pub fn list(app: &App) -> Result<Vec<Row>> {
    let project = load(app)?;
    project
        .file
        .requires
        .iter()
        .map(|req| {
            let (state, digest) = state_of(&project, req)?;
            Ok(Row {
                requirement: req.clone(),
                state,
                digest,
            })
        })
        .collect()
}

/// `kf chart add-repo NAME URL`: a repository for `add` to pull from (an HTTP(S) chart
/// repository or an `oci://` registry path).
pub fn add_repo(app: &App, name: &str, url: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        bail!(
            "invalid repository name '{}': letters, digits, - and _ only (Tanka's rule)",
            crate::message::printable(name)
        );
    }
    if !["https://", "http://", "oci://"]
        .iter()
        .any(|s| url.starts_with(s) && url.len() > s.len())
        || url.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        bail!(
            "'{}' is not a chart repository URL: give https://… (a Helm repository) or oci://… (a registry path)",
            crate::message::printable(url)
        );
    }
    let mut project = load(app)?;
    if let Some(old) = project.file.repositories.iter().find(|r| r.name == name) {
        if old.url == url {
            bail!("{CHARTFILE} already has repository '{name}' ({url})");
        }
        bail!(
            "{CHARTFILE} already has a repository '{name}', at {}; remove that entry first, or choose another name",
            old.url
        );
    }
    project.file.repositories.push(Repo {
        name: name.to_string(),
        url: url.to_string(),
        ..Repo::default()
    });
    let text = chartfile_text(project.text.as_deref(), &project.file)?;
    crate::atomic::write_atomic(&app.root, &app.root.join(CHARTFILE), text.as_bytes())?;
    Ok(())
}

/// A chart pulled: where it went and its digest.
#[derive(Debug, Clone)]
pub struct Pulled {
    pub requirement: Requirement,
    pub digest: String,
}

/// `kf chart add REPO/NAME@VERSION[:FOLDER]…`: pull each, then record them all.
pub fn add(app: &App, specs: &[String]) -> Result<Vec<Pulled>> {
    let mut project = load(app)?;
    let mut wanted = Vec::new();
    for spec in specs {
        let req = chartfile::parse_requirement(spec).map_err(|e| anyhow!(e))?;
        if project.file.requires.contains(&req) || wanted.contains(&req) {
            bail!("{spec}: {CHARTFILE} already requires it; `kf chart update` pulls it again");
        }
        let taken = project
            .file
            .requires
            .iter()
            .chain(&wanted)
            .find(|r| r.folder() == req.folder());
        if let Some(other) = taken {
            bail!(
                "{spec}: {} is already {}@{}'s folder; change the version in {CHARTFILE} and run `kf chart update`, or give this one its own folder ({}@{}:<folder>)",
                req.path(),
                other.chart,
                other.version,
                req.chart,
                req.version
            );
        }
        if std::fs::symlink_metadata(project.root.join(req.path())).is_ok() {
            bail!(
                "{spec}: {} exists and {CHARTFILE} does not require it; remove the folder, or give this chart another ({}@{}:<folder>)",
                req.path(),
                req.chart,
                req.version
            );
        }
        wanted.push(req);
    }
    let pulled = pull_all(&project, &wanted)?;
    project.file.requires.extend(wanted);
    commit(&mut project, &pulled)?;
    Ok(pulled.into_iter().map(|(p, _)| p).collect())
}

/// What `update` did to one chart.
#[derive(Debug, Clone)]
pub struct Updated {
    pub requirement: Requirement,
    /// Its state before; `Pulled` means it was left as it was.
    pub before: State,
    pub digest: Option<String>,
}

/// `kf chart update [FOLDER|CHART…]`: pull again each required chart (all, or those
/// named) whose folder is not what kf pulled for its version.
pub fn update(app: &App, only: &[String]) -> Result<Vec<Updated>> {
    let mut project = load(app)?;
    for name in only {
        if !project
            .file
            .requires
            .iter()
            .any(|r| r.folder() == name || r.chart == *name)
        {
            let known: Vec<&str> = project
                .file
                .requires
                .iter()
                .map(|r| r.chart.as_str())
                .collect();
            bail!(
                "{CHARTFILE} requires no chart '{}' (it requires: {}); `kf chart add` adds one",
                crate::message::printable(name),
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            );
        }
    }
    let mut report = Vec::new();
    let mut stale = Vec::new();
    for req in &project.file.requires {
        let named = only.is_empty() || only.iter().any(|n| n == req.folder() || *n == req.chart);
        let (state, digest) = state_of(&project, req)?;
        if named && state != State::Pulled {
            stale.push(req.clone());
        }
        if named {
            report.push(Updated {
                requirement: req.clone(),
                before: state,
                digest,
            });
        }
    }
    let pulled = pull_all(&project, &stale)?;
    for row in &mut report {
        if let Some((p, _)) = pulled
            .iter()
            .find(|(p, _)| p.requirement == row.requirement)
        {
            row.digest = Some(p.digest.clone());
        }
    }
    commit(&mut project, &pulled)?;
    Ok(report)
}

type Files = Vec<(String, Vec<u8>)>;

fn pull_all(project: &Project, reqs: &[Requirement]) -> Result<Vec<(Pulled, Files)>> {
    if reqs.is_empty() {
        return Ok(Vec::new());
    }
    let repos = reqs
        .iter()
        .map(|req| {
            project
                .file
                .repositories
                .iter()
                .find(|r| r.name == req.repo())
                .ok_or_else(|| {
                    let at = project
                        .text
                        .as_deref()
                        .and_then(|t| chartfile::line_of(t, &req.chart))
                        .map_or(String::new(), |l| format!(" ({CHARTFILE}:{l})"));
                    anyhow!(
                        "{}{at}: {CHARTFILE} has no repository '{}'; add it with `kf chart add-repo {} <url>`",
                        req.chart,
                        req.repo(),
                        req.repo()
                    )
                })
        })
        .collect::<Result<Vec<&Repo>>>()?;
    let Some((helm, _)) = external::find_program("KF_HELM", &["helm"]) else {
        bail!(
            "kf chart pulls charts with helm (v3 or v4) and there is none on PATH; install it (https://helm.sh/docs/intro/install/) or name it with KF_HELM=/path/to/helm"
        );
    };
    reqs.iter()
        .zip(repos)
        .map(|(req, repo)| pull(&helm, &project.root, repo, req))
        .collect()
}

/// `helm pull` of one chart into a temporary folder, read back: its files and digest.
fn pull(helm: &Path, root: &Path, repo: &Repo, req: &Requirement) -> Result<(Pulled, Files)> {
    let what = format!("{}@{}", req.chart, req.version);
    let into = tempfile::tempdir().context("a temporary folder to pull a chart into")?;
    let args = pull_args(root, repo, req, into.path());
    let ran = external::run_keeping(helm, &args, None, &what, external::NETWORK_VARS)
        .map_err(|e| anyhow!("{e}"))?;
    if let Err(external::Failed(said)) = ran {
        bail!("{what}: helm pull failed: {said}");
    }
    let dir = unpacked(into.path(), req.name())
        .ok_or_else(|| anyhow!("{what}: helm pull left no chart folder"))?;
    let files = chartfile::read_tree(&dir, external::MAX_FILES, MAX_CHART)
        .map_err(|e| anyhow!("{what}: {e}"))?;
    let chart_yaml = files
        .iter()
        .find(|(p, _)| p == "Chart.yaml")
        .and_then(|(_, b)| serde_saphyr::from_slice::<Value>(b).ok());
    let version = chart_yaml
        .as_ref()
        .and_then(|c| c.get("version"))
        .and_then(Value::as_str);
    if version != Some(req.version.as_str()) {
        bail!(
            "{what}: the chart helm pulled says version {}, not {}",
            version.unwrap_or("(none)"),
            req.version
        );
    }
    let digest = chartfile::tree_digest(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    Ok((
        Pulled {
            requirement: req.clone(),
            digest,
        },
        files,
    ))
}

/// The folder `helm pull --untar` made: the chart's name, else the one folder there.
fn unpacked(into: &Path, name: &str) -> Option<PathBuf> {
    let named = into.join(name);
    if named.is_dir() {
        return Some(named);
    }
    let mut dirs = std::fs::read_dir(into)
        .ok()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()));
    let one = dirs.next()?;
    dirs.next().is_none().then(|| one.path())
}

/// `helm pull` for a requirement: `oci://URL/NAME` for a registry, else `NAME --repo URL`,
/// the version, unpacked into `into`; the repository's TLS files (relative to the app) and
/// credentials as flags.
fn pull_args(root: &Path, repo: &Repo, req: &Requirement, into: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["pull".into()];
    if repo.url.starts_with("oci://") {
        args.push(format!("{}/{}", repo.url.trim_end_matches('/'), req.name()).into());
    } else {
        args.push(req.name().into());
        args.push("--repo".into());
        args.push(repo.url.clone().into());
    }
    args.extend([
        "--version".into(),
        req.version.clone().into(),
        "--untar".into(),
        "--untardir".into(),
        into.as_os_str().to_owned(),
    ]);
    for (flag, file) in [
        ("--ca-file", &repo.ca_file),
        ("--cert-file", &repo.cert_file),
        ("--key-file", &repo.key_file),
    ] {
        if !file.is_empty() {
            args.push(flag.into());
            args.push(root.join(file).into_os_string());
        }
    }
    for (flag, value) in [
        ("--username", &repo.username),
        ("--password", &repo.password),
    ] {
        if !value.is_empty() {
            args.push(flag.into());
            args.push(value.into());
        }
    }
    args
}

/// The pulled folders in place of the old ones, chartfile.yaml and the lock, together.
fn commit(project: &mut Project, pulled: &[(Pulled, Files)]) -> Result<()> {
    let mut set = FileSet::new(&project.root);
    for (p, files) in pulled {
        let dir = project.root.join(p.requirement.path());
        if std::fs::symlink_metadata(&dir).is_ok() {
            set.remove_dir(&dir);
        }
        set.write_dir(&dir, files.clone());
        project
            .lock
            .charts
            .retain(|l| l.path != p.requirement.path());
        project.lock.charts.push(Locked {
            chart: p.requirement.chart.clone(),
            version: p.requirement.version.clone(),
            path: p.requirement.path(),
            digest: p.digest.clone(),
        });
    }
    // The lock speaks only of charts still required.
    let required: Vec<String> = project
        .file
        .requires
        .iter()
        .map(Requirement::path)
        .collect();
    let before = project.lock.charts.len();
    project.lock.charts.retain(|l| required.contains(&l.path));
    if pulled.is_empty() && before == project.lock.charts.len() {
        return Ok(());
    }
    let text = chartfile_text(project.text.as_deref(), &project.file)?;
    if project.text.as_deref() != Some(text.as_str()) {
        set.write(project.root.join(CHARTFILE), text);
    }
    set.write(
        project.root.join(LOCKFILE),
        chartfile::lock_text(&project.lock),
    );
    set.commit()?;
    Ok(())
}

/// chartfile.yaml holding `file`: the existing text changed only where it differs (kf's
/// app.yaml editor), else written whole; refused if a comment of the user's would be lost.
fn chartfile_text(existing: Option<&str>, file: &Chartfile) -> Result<String> {
    let new = serde_json::to_value(file)?;
    let Some(text) = existing else {
        return crate::app::yaml_edit::render(&new)
            .ok_or_else(|| anyhow!("kf could not write {CHARTFILE} (a kf bug)"));
    };
    let old: Value = serde_saphyr::from_str(text).map_err(|e| {
        anyhow!(
            "{CHARTFILE}: {}",
            crate::message::error_summary(&e.to_string())
        )
    })?;
    let out = crate::app::yaml_edit::edit(text, &old, &new)
        .or_else(|| crate::app::yaml_edit::render(&new))
        .ok_or_else(|| anyhow!("kf could not write {CHARTFILE} (a kf bug)"))?;
    let kept: Vec<&str> = out.lines().map(str::trim).collect();
    if let Some((n, _)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with('#') && !kept.contains(&l.trim()))
    {
        bail!(
            "{CHARTFILE}:{}: kf would rewrite the part of the file that holds this comment and lose it; move the comment above `requires:` or `repositories:`, or make the change by hand and run `kf chart update`",
            n + 1
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(chart: &str, version: &str) -> Requirement {
        Requirement {
            chart: chart.into(),
            version: version.into(),
            directory: String::new(),
        }
    }

    #[test]
    fn pull_reaches_a_registry_by_path_and_a_repository_by_url() {
        let into = Path::new("/tmp/x");
        let oci = Repo {
            name: "kueue".into(),
            url: "oci://registry.k8s.io/kueue/charts/".into(),
            ..Repo::default()
        };
        let args = pull_args(Path::new("/app"), &oci, &req("kueue/kueue", "0.19.2"), into);
        let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "pull",
                "oci://registry.k8s.io/kueue/charts/kueue",
                "--version",
                "0.19.2",
                "--untar",
                "--untardir",
                "/tmp/x"
            ]
        );
        let http = Repo {
            name: "jupyterhub".into(),
            url: "https://hub.jupyter.org/helm-chart/".into(),
            ca_file: "certs/ca.pem".into(),
            username: "u".into(),
            ..Repo::default()
        };
        let args = pull_args(
            Path::new("/app"),
            &http,
            &req("jupyterhub/jupyterhub", "4.2.0"),
            into,
        );
        let args: Vec<&str> = args.iter().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            &args[..4],
            [
                "pull",
                "jupyterhub",
                "--repo",
                "https://hub.jupyter.org/helm-chart/"
            ]
        );
        assert!(
            args.windows(2)
                .any(|w| w == ["--ca-file", "/app/certs/ca.pem"])
        );
        assert!(args.windows(2).any(|w| w == ["--username", "u"]));
    }

    #[test]
    fn a_chartfile_edit_keeps_the_users_lines_or_is_refused() {
        let text = "# our charts\nversion: 1\nrepositories:\n- name: a\n  url: https://a.example/charts\nrequires: []\n";
        let mut file = chartfile::parse_chartfile(text, CHARTFILE).unwrap();
        file.requires.push(req("a/x", "1.0.0"));
        let out = chartfile_text(Some(text), &file).unwrap();
        assert!(
            out.starts_with("# our charts\nversion: 1\nrepositories:\n- name: a\n"),
            "{out}"
        );
        assert_eq!(chartfile::parse_chartfile(&out, CHARTFILE).unwrap(), file);
        let inside = "version: 1\nrepositories:\n- name: a\n  # the team's mirror\n  url: https://a.example/charts\nrequires: []\n";
        let mut file = chartfile::parse_chartfile(inside, CHARTFILE).unwrap();
        file.repositories.push(Repo {
            name: "b".into(),
            url: "oci://b.example/c".into(),
            ..Repo::default()
        });
        let e = chartfile_text(Some(inside), &file).unwrap_err().to_string();
        assert!(e.starts_with("chartfile.yaml:4: "), "{e}");
    }
}
