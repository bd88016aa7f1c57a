//! `kf export`: environments rendered into a folder, one file per object, for GitOps (Argo
//! CD, Flux) and code review. Tanka's `tk export`, kubecfg's `--export-dir` and Helm's
//! `template --output-dir` do the same for their tools.
//!
//! The folder holds what kf wrote and a `manifest.json` naming each file and its object.
//! Exporting again replaces kf's files of the environments exported (with -c, of the
//! components selected), removes those of
//! objects no longer rendered, keeps the other environments' files, and never touches a
//! file the manifest does not name; all of it as one journaled change
//! ([`crate::atomic::FileSet`]). A non-empty folder without kf's manifest is refused unless
//! forced.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::app::App;
use crate::render::{RenderOptions, RenderedObject};

/// The manifest's file name in the export folder.
pub const MANIFEST: &str = "manifest.json";

/// The file name template when none is given.
pub const DEFAULT_TEMPLATE: &str = "{env}/{apiVersion}.{kind}-{namespace}.{name}";

/// The placeholders a template may use.
const PLACEHOLDERS: [&str; 6] = [
    "env",
    "apiVersion",
    "kind",
    "namespace",
    "name",
    "component",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileFormat {
    Yaml,
    Json,
}

impl FileFormat {
    fn extension(self) -> &'static str {
        match self {
            FileFormat::Yaml => "yaml",
            FileFormat::Json => "json",
        }
    }
}

pub struct ExportOptions {
    /// The environments to export; all of the app's when empty.
    pub envs: Vec<String>,
    pub template: String,
    pub format: FileFormat,
    /// Environments rendered at once at most.
    pub parallel: usize,
    /// Write into a non-empty folder that has no kf manifest.
    pub force: bool,
    pub render: RenderOptions,
}

/// One written file, as the manifest records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedFile {
    pub path: String,
    pub env: String,
    pub component: String,
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// `manifest.json`: what kf wrote into the folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `kf-export`: a folder whose manifest says otherwise is not kf's.
    pub kind: String,
    pub version: u32,
    pub format: FileFormat,
    pub template: String,
    /// Every file, sorted by environment, then in `kf show`'s object order.
    pub files: Vec<ExportedFile>,
}

#[derive(Debug, Default)]
pub struct ExportReport {
    pub envs: Vec<String>,
    /// Objects exported.
    pub objects: usize,
    /// Files written (an object's file already right is left as it is).
    pub written: usize,
    pub removed: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    App(#[from] crate::app::AppError),
    #[error("environment '{env}': {source}")]
    Render {
        env: String,
        source: crate::render::RenderError,
    },
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Write(#[from] crate::atomic::WriteError),
}

/// Render `options.envs` of `app` (in parallel, at most `options.parallel` at once) and
/// write them into `dir` as one change.
pub fn export(app: &App, dir: &Path, options: &ExportOptions) -> Result<ExportReport, ExportError> {
    check_template(&options.template)?;
    let envs = if options.envs.is_empty() {
        app.environments().into_iter().map(|e| e.name).collect()
    } else {
        for name in &options.envs {
            app.environment(name)?;
        }
        let mut envs = options.envs.clone();
        envs.sort();
        envs.dedup();
        envs
    };
    if envs.is_empty() {
        return Err(ExportError::Invalid(
            "the app has no environment to export; add one with `kf env add`".into(),
        ));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(ExportError::Invalid(format!(
            "{} is not a folder",
            dir.display()
        )));
    }
    let created = !dir.exists();
    std::fs::create_dir_all(dir)
        .map_err(|e| ExportError::Invalid(format!("cannot make {}: {e}", dir.display())))?;
    let written = lock_folder(dir).and_then(|_lock| write_envs(app, dir, options, envs));
    if written.is_err() && created {
        // Nothing was written: the folder kf made goes too (it is removed only if empty).
        let _ = std::fs::remove_dir(dir);
    }
    written
}

/// One export into a folder at a time: an advisory lock (flock) on the folder itself,
/// which leaves no file behind, held from reading its manifest to the commit; waits up to
/// `KF_LOCK_TIMEOUT` as the app's lock does.
fn lock_folder(dir: &Path) -> Result<FolderLock, ExportError> {
    let file = std::fs::File::open(dir)
        .map_err(|e| ExportError::Invalid(format!("cannot open {}: {e}", dir.display())))?;
    let timeout = crate::app::lock::default_timeout();
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(FolderLock(file)),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(ExportError::Invalid(format!(
                    "another kf export into {} has been running for {:.0?}; wait for it to finish (or raise KF_LOCK_TIMEOUT)",
                    dir.display(),
                    start.elapsed()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(ExportError::Invalid(format!(
                    "cannot lock {}: {e}",
                    dir.display()
                )));
            }
        }
    }
}

/// Held while an export writes its folder; released on drop (and with the process).
struct FolderLock(std::fs::File);

impl Drop for FolderLock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

/// Render `envs` and write them into `dir`, which the caller has locked.
fn write_envs(
    app: &App,
    dir: &Path,
    options: &ExportOptions,
    envs: Vec<String>,
) -> Result<ExportReport, ExportError> {
    let previous = previous_manifest(dir, options.force)?;
    let rendered = render_all(app, &envs, &options.render, options.parallel)?;

    let mut files: Vec<(ExportedFile, Vec<u8>)> = Vec::new();
    let mut taken: BTreeMap<String, String> = BTreeMap::new();
    for (env, objects) in &rendered {
        for o in objects {
            let entry = describe(env, o, &options.template, options.format);
            let what = format!("{env}: {} {}", entry.kind, entry.name);
            if let Some(other) = taken.insert(entry.path.clone(), what.clone()) {
                return Err(ExportError::Invalid(format!(
                    "{other} and {what} would both be written to {}; give a --template that tells them apart (e.g. with {{namespace}} or {{component}})",
                    entry.path
                )));
            }
            let bytes = contents(&o.object, options.format);
            files.push((entry, bytes));
        }
    }

    let mut set = crate::atomic::FileSet::for_export(dir);
    let mut manifest = Manifest {
        kind: "kf-export".into(),
        version: 1,
        format: options.format,
        template: options.template.clone(),
        files: Vec::new(),
    };
    let exported: BTreeSet<&str> = envs.iter().map(String::as_str).collect();
    // With -c, only the selected components' files are this export's to replace: every
    // other component's stay, and stay in the manifest (removing them would have Flux,
    // with `prune: true`, delete those objects from the cluster).
    let selection = &options.render.components;
    let rendered_components: BTreeSet<&str> =
        files.iter().map(|(f, _)| f.component.as_str()).collect();
    let ours = |f: &ExportedFile| {
        exported.contains(f.env.as_str())
            && (selection.is_empty()
                || selection.contains(&f.component)
                || rendered_components.contains(f.component.as_str()))
    };
    // The files kf wrote last time: one whose bytes are already right is left as it is
    // (each write is staged and fsynced; a re-export that changes little writes little).
    let previously: BTreeSet<String> = previous
        .iter()
        .flat_map(|m| m.files.iter().map(|f| f.path.clone()))
        .collect();
    let mut removed = 0;
    let mut kept_others = 0;
    if let Some(previous) = previous {
        for f in previous.files {
            if ours(&f) {
                if !taken.contains_key(&f.path) && dir.join(&f.path).exists() {
                    set.remove(dir.join(&f.path));
                    removed += 1;
                }
            } else if !taken.contains_key(&f.path) {
                // Another environment's (or component's) files stay, in the manifest.
                manifest.files.push(f);
                kept_others += 1;
            }
        }
    }
    let mut written = 0;
    for (entry, bytes) in files {
        let path = dir.join(&entry.path);
        let unchanged = previously.contains(&entry.path)
            && crate::sandbox::read_regular(&path, bytes.len() as u64 + 1)
                .is_ok_and(|on_disk| on_disk == bytes);
        if !unchanged {
            set.write(path, bytes);
            written += 1;
        }
        manifest.files.push(entry);
    }
    manifest.files.sort_by(|a, b| a.env.cmp(&b.env));
    let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    text.push('\n');
    set.write(dir.join(MANIFEST), text);
    set.commit()?;
    Ok(ExportReport {
        envs,
        objects: manifest.files.len() - kept_others,
        written,
        removed,
    })
}

/// The manifest a folder already has: `None` for a new or empty folder; refused when
/// the folder holds files and no manifest of kf's, unless `force`.
fn previous_manifest(dir: &Path, force: bool) -> Result<Option<Manifest>, ExportError> {
    // A change a killed kf left half done is finished (or undone) first.
    crate::atomic::recover(dir)?;
    let path = dir.join(MANIFEST);
    let manifest = match crate::sandbox::read_regular_text(&path, crate::sandbox::STATE_FILE_CAP) {
        Ok(text) => match serde_json::from_str::<Manifest>(&text) {
            Ok(m) if m.kind == "kf-export" => Some(m),
            _ if force => None,
            _ => {
                return Err(ExportError::Invalid(format!(
                    "{} is not a manifest kf wrote; pass --force to export into {} anyway (kf then writes its files and touches nothing else)",
                    path.display(),
                    dir.display()
                )));
            }
        },
        Err(e) if e.is_not_found() => None,
        Err(e) => return Err(ExportError::Invalid(e.to_string())),
    };
    if manifest.is_none() && !force && is_non_empty(dir) {
        return Err(ExportError::Invalid(format!(
            "{} is not empty and has no {MANIFEST} of kf's: kf would mix its files with others; export into an empty or new folder, or pass --force",
            dir.display()
        )));
    }
    // The folder's manifest is data: every entry must name a file kf could have written
    // there, checked before anything is staged or journaled (an entry naming a folder made
    // a journal whose removal could never be carried out, and every later export failed).
    if let Some(m) = &manifest {
        let mut seen = BTreeSet::new();
        for f in &m.files {
            let why = entry_problem(dir, &f.path).or_else(|| {
                (!seen.insert(f.path.as_str())).then_some("it is listed twice".to_string())
            });
            if let Some(why) = why {
                return Err(ExportError::Invalid(format!(
                    "{}: file '{}' {why}; this manifest is not as kf wrote it: restore it (git checkout) or delete it and export with --force",
                    path.display(),
                    f.path.escape_debug()
                )));
            }
        }
    }
    Ok(manifest)
}

/// Whether `dir` holds anything but kf's lock.
fn is_non_empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name() != crate::atomic::LOCK_FILE)
    })
}

/// Why a manifest's entry `path` is not a file kf writes into `dir`: one of its objects'
/// files (`.yaml` or `.json`), inside the folder, named as a file system holds, never the
/// manifest itself, `.git` or kf's own state, never an existing folder or symlink.
fn entry_problem(dir: &Path, path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split('/').collect();
    if path.is_empty()
        || !Path::new(path)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
    {
        return Some("is not a path inside the folder".into());
    }
    if parts.iter().any(|p| p.is_empty() || p.len() > 255) || path.len() > 3072 {
        return Some("is not a name a file system holds (empty or over 255 bytes)".into());
    }
    if path.contains('\0') {
        return Some("holds a NUL byte".into());
    }
    // The journal's own rule for an export folder: never `.git` (any case), nor the journal.
    if path == MANIFEST || !crate::atomic::journal::Scope::Export.allows(Path::new(path)) {
        return Some("names the manifest, .git or kf's own state".into());
    }
    if !path.ends_with(".yaml") && !path.ends_with(".json") {
        return Some("is not an object's .yaml or .json file".into());
    }
    match std::fs::symlink_metadata(dir.join(path)) {
        Ok(m) if !m.is_file() => Some(format!("is {}, not a file", crate::sandbox::kind_of(&m))),
        _ => None,
    }
}

/// Render each env on a thread of its own (jrsonnet's state is per thread), at most
/// `parallel` at once; results in the order of `envs`.
fn render_all(
    app: &App,
    envs: &[String],
    options: &RenderOptions,
    parallel: usize,
) -> Result<Vec<(String, Vec<RenderedObject>)>, ExportError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<BTreeMap<usize, Result<Vec<RenderedObject>, ExportError>>> =
        std::sync::Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..parallel.clamp(1, envs.len()) {
            let worker = || {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(env) = envs.get(i) else { break };
                    let result = crate::render::render(app, env, options).map_err(|source| {
                        ExportError::Render {
                            env: env.clone(),
                            source,
                        }
                    });
                    if let Ok(mut r) = results.lock() {
                        r.insert(i, result);
                    }
                }
            };
            // Parsing recurses per nesting level, as on kf's main worker thread.
            let spawned = std::thread::Builder::new()
                .name("kf-export".into())
                .stack_size(1 << 30)
                .spawn_scoped(scope, worker);
            if spawned.is_err() {
                // No room for another big stack: the threads already running go on.
                break;
            }
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    let mut out = Vec::new();
    for (i, env) in envs.iter().enumerate() {
        match results.remove(&i) {
            Some(result) => out.push((env.clone(), result?)),
            None => {
                // Its thread could not start: render it here.
                let objects = crate::render::render(app, env, options).map_err(|source| {
                    ExportError::Render {
                        env: env.clone(),
                        source,
                    }
                })?;
                out.push((env.clone(), objects));
            }
        }
    }
    Ok(out)
}

fn check_template(template: &str) -> Result<(), ExportError> {
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return Err(ExportError::Invalid(format!(
                "--template '{template}': a '{{' without its '}}'"
            )));
        };
        let name = &rest[open + 1..open + close];
        if !PLACEHOLDERS.contains(&name) {
            return Err(ExportError::Invalid(format!(
                "--template '{template}': no placeholder {{{name}}}; use {}",
                PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
            )));
        }
        rest = &rest[open + close + 1..];
    }
    if template.trim().is_empty() || template.starts_with('/') {
        return Err(ExportError::Invalid(format!(
            "--template '{template}': a relative file name is needed, such as {DEFAULT_TEMPLATE}"
        )));
    }
    Ok(())
}

/// An object's manifest entry: its file from the template (each value made safe as a file
/// name part; the env may keep its `/`, since env names are checked folder paths).
fn describe(env: &str, o: &RenderedObject, template: &str, format: FileFormat) -> ExportedFile {
    let field = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let meta = o.object.get("metadata");
    let entry = ExportedFile {
        path: String::new(),
        env: env.to_string(),
        component: o.component.clone(),
        api_version: field(o.object.get("apiVersion")),
        kind: field(o.object.get("kind")),
        namespace: field(meta.and_then(|m| m.get("namespace"))),
        name: field(meta.and_then(|m| m.get("name"))),
    };
    let mut path = template.to_string();
    for (key, value) in [
        (
            "env",
            env.split('/').map(safe).collect::<Vec<_>>().join("/"),
        ),
        ("apiVersion", safe(&entry.api_version)),
        ("kind", safe(&entry.kind)),
        ("namespace", safe(&entry.namespace)),
        ("name", safe(&entry.name)),
        ("component", safe(&entry.component)),
    ] {
        path = path.replace(&format!("{{{key}}}"), &value);
    }
    // The template's own text is the user's: no part of it may climb out of the folder.
    // Nor write into `.git` (an object may be named so).
    let path: Vec<String> = path
        .split('/')
        .filter(|p| !p.is_empty())
        .map(|p| {
            if p == "." || p == ".." || p.eq_ignore_ascii_case(".git") {
                "_".to_string()
            } else {
                p.to_string()
            }
        })
        .collect();
    ExportedFile {
        path: format!("{}.{}", path.join("/"), format.extension()),
        ..entry
    }
}

/// A value as part of a file name: letters, digits, `.`, `-` and `_` kept, anything else
/// `-`; an empty value (a cluster-scoped object's namespace) is `_`.
fn safe(value: &str) -> String {
    if value.is_empty() {
        return "_".into();
    }
    let s: String = value
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if s.chars().all(|c| c == '.') {
        "_".into()
    } else {
        s
    }
}

/// An object's file: the document `kf show` prints for it (without the `---` line), or
/// the object as indented JSON.
fn contents(object: &serde_json::Map<String, Value>, format: FileFormat) -> Vec<u8> {
    match format {
        FileFormat::Yaml => crate::render::output::yaml_document(object).into_bytes(),
        FileFormat::Json => {
            let mut text = serde_json::to_string_pretty(object).unwrap_or_default();
            text.push('\n');
            text.into_bytes()
        }
    }
}
