//! `std.native('helmTemplate')(name, chart, opts)` as Tanka has it (pkg/helm/jsonnet.go,
//! pkg/helm/template.go), so tanka-util's `helm.new(std.thisFile).template(name, chart,
//! conf)` works unchanged: the chart's folder is `chart` relative to `opts.calledFrom`'s
//! folder, `helm template` renders it, and the objects come back keyed by
//! `snakecase(kind + "_" + name)`.
//!
//! kf's rules on top of Tanka's: the chart must be a folder inside the app or a `-J`
//! folder (kf's read rule for imports), with no symlink in it; helm runs with no network
//! to reach (no repository config, an empty HOME, no kubeconfig), a time limit, and a cap
//! on what it prints. A chart and options rendered once are not rendered again: in a
//! process, threads asking for the same one wait for the first; between processes, the
//! result is kept in kf's cache folder, keyed by the SHA-256 of helm (path, size, time),
//! the release name, the options and every file of the chart.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use jrsonnet_evaluator::function::builtin;
use jrsonnet_evaluator::{IStr, ObjValue, Result, Val, bail};
use serde_json::{Map, Value};

use crate::sandbox::{ReadError, Sandbox};

/// How long one `helm template` may run.
const TIME_LIMIT: Duration = Duration::from_secs(120);
/// The most kf reads of what helm prints.
const MAX_OUTPUT: u64 = 64 << 20;
/// The most files and bytes a chart folder may hold.
const MAX_CHART_FILES: usize = 20_000;

/// What the render's engine on this thread lets a chart be read from.
struct Charts {
    root: PathBuf,
    sandbox: Sandbox,
}

thread_local! {
    static CHARTS: RefCell<Option<Charts>> = const { RefCell::new(None) };
}

/// One chart render: its objects once made. Every thread of the process (components
/// render on several) asking for the same digest waits on the same slot, so helm runs
/// once per chart and options in a process.
type Slot = Arc<Mutex<Option<Value>>>;
static RENDERED: Mutex<Option<HashMap<[u8; 32], Slot>>> = Mutex::new(None);

/// Where rendered charts are kept between runs (`<kf cache>/charts`), set by the render.
static CACHE: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Keep rendered charts in the folder `dir` gives (made if missing), read back while the
/// chart, the options and helm are unchanged. The first call in a process decides.
pub fn set_chart_cache(dir: impl FnOnce() -> Option<PathBuf>) {
    CACHE.get_or_init(dir);
}

fn slot(key: &[u8; 32]) -> Slot {
    let mut all = RENDERED.lock().unwrap_or_else(PoisonError::into_inner);
    all.get_or_insert_with(HashMap::new)
        .entry(*key)
        .or_default()
        .clone()
}

/// The kept render of `key`, if it was kept and reads as an object.
fn cached(key: &str) -> Option<Value> {
    let path = CACHE.get()?.as_ref()?.join(format!("{key}.json"));
    let bytes = crate::sandbox::read_regular(&path, MAX_OUTPUT * 2).ok()?;
    serde_json::from_slice::<Value>(&bytes)
        .ok()
        .filter(Value::is_object)
}

/// Keep a render (best effort: a cache that cannot be written only costs a helm run).
fn keep(key: &str, objects: &Value) {
    let Some(Some(dir)) = CACHE.get() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    if let Ok(mut file) = tempfile::NamedTempFile::new_in(dir)
        && file.write_all(objects.to_string().as_bytes()).is_ok()
    {
        let _ = file.persist(dir.join(format!("{key}.json")));
    }
}

/// Called by each engine made on this thread: `calledFrom` is relative to `root`, and
/// charts are read only where `sandbox` lets imports read.
pub fn set_context(root: &Path, sandbox: &Sandbox) {
    CHARTS.with(|c| {
        *c.borrow_mut() = Some(Charts {
            root: root.to_path_buf(),
            sandbox: sandbox.clone(),
        });
    });
}

/// tanka-util's options (`conf` plus `calledFrom`), as Tanka reads them.
#[derive(serde::Deserialize, serde::Serialize, Default, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Options {
    called_from: Option<String>,
    #[serde(default)]
    values: Map<String, Value>,
    namespace: Option<String>,
    #[serde(alias = "includeCRDs")]
    include_crds: Option<bool>,
    kube_version: Option<String>,
    #[serde(default)]
    api_versions: Vec<String>,
    #[serde(default)]
    skip_tests: bool,
    #[serde(default)]
    no_hooks: bool,
    name_format: Option<String>,
}

const DEFAULT_NAME_FORMAT: &str = r#"{{ print .kind "_" .metadata.name | snakecase }}"#;

#[builtin]
pub fn helm_template(name: IStr, chart: IStr, opts: ObjValue) -> Result<Val> {
    let json = super::val_to_json(&Val::Obj(opts))?;
    let options: Options = match serde_json::from_value(json) {
        Ok(o) => o,
        Err(e) => bail!(
            "helmTemplate('{name}', '{chart}'): {e} (it takes values, namespace, includeCrds, kubeVersion, apiVersions, skipTests, noHooks, nameFormat and calledFrom)"
        ),
    };
    if let Some(format) = &options.name_format
        && format.trim() != DEFAULT_NAME_FORMAT
    {
        bail!(
            "helmTemplate('{name}', '{chart}'): kf keys a chart's objects only by Tanka's default nameFormat, {DEFAULT_NAME_FORMAT}; leave nameFormat out and re-key the result in Jsonnet"
        );
    }
    let Some(called_from) = options.called_from.clone().filter(|c| !c.is_empty()) else {
        bail!(
            "helmTemplate('{name}', '{chart}'): opts.calledFrom is unset; call it as tanka-util does, helm.new(std.thisFile).template(name, chart, conf), or pass calledFrom: std.thisFile"
        );
    };
    let (root, sandbox) = CHARTS.with(|c| {
        c.borrow()
            .as_ref()
            .map(|c| (c.root.clone(), c.sandbox.clone()))
            .unwrap_or_default()
    });
    let wanted = root
        .join(&called_from)
        .parent()
        .map_or_else(|| PathBuf::from(chart.as_str()), |d| d.join(chart.as_str()));
    let dir = chart_folder(&sandbox, &wanted, &name, &chart)?;
    let helm = helm_binary()?;
    let key = digest_of(&helm, &dir, &name, &options)?;
    let slot = slot(&key);
    let mut made = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(objects) = made.as_ref() {
        return Ok(super::json_to_val(objects));
    }
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let objects = match cached(&hex) {
        Some(objects) => objects,
        None => {
            let text = run_helm(&helm, &dir, &name, &options)?;
            let objects = keyed_objects(&text, &name, &chart)?;
            keep(&hex, &objects);
            objects
        }
    };
    let val = super::json_to_val(&objects);
    *made = Some(objects);
    Ok(val)
}

/// The chart's folder, checked: inside the app or a -J folder, a folder with a Chart.yaml.
fn chart_folder(sandbox: &Sandbox, wanted: &Path, name: &str, chart: &str) -> Result<PathBuf> {
    let how = "vendor it into the app: helm pull REPO/CHART --version V --untar --untardir charts";
    let dir = match sandbox.resolve(wanted) {
        Ok(dir) => dir,
        Err(ReadError::Outside { resolved, .. }) => bail!(
            "helmTemplate('{name}', '{chart}'): the chart {} is outside the app and the -J folders; {how}",
            resolved.display()
        ),
        Err(e) if e.is_not_found() => bail!(
            "helmTemplate('{name}', '{chart}'): no chart at {}; {how}",
            wanted.display()
        ),
        Err(e) => bail!("helmTemplate('{name}', '{chart}'): {e}"),
    };
    if !dir.join("Chart.yaml").is_file() {
        bail!(
            "helmTemplate('{name}', '{chart}'): {} has no Chart.yaml, so it is not a chart folder; {how}",
            wanted.display()
        );
    }
    Ok(dir)
}

/// `helm` as KF_HELM names it, or the first on PATH.
fn helm_binary() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("KF_HELM").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("helm"))
            .find(|p| p.is_file())
    });
    match found {
        Some(p) => Ok(p),
        None => bail!(
            "helmTemplate needs helm (v3 or v4) and there is none on PATH; install it (https://helm.sh/docs/intro/install/) or name it with KF_HELM=/path/to/helm"
        ),
    }
}

/// SHA-256 of helm (its path, size and time), the release name, the options (without
/// calledFrom) and every file of the chart folder (names and bytes).
fn digest_of(helm: &Path, dir: &Path, name: &str, options: &Options) -> Result<[u8; 32]> {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    let meta = std::fs::metadata(helm).ok();
    hash.update(format!(
        "{}\0{:?}\0{:?}\0{name}\0",
        helm.display(),
        meta.as_ref().map(std::fs::Metadata::len),
        meta.and_then(|m| m.modified().ok())
    ));
    let mut decided = serde_json::to_value(options).unwrap_or(Value::Null);
    if let Some(o) = decided.as_object_mut() {
        o.remove("calledFrom");
    }
    hash.update(decided.to_string());
    let mut files = Vec::new();
    list_files(dir, dir, &mut files)?;
    files.sort();
    for rel in files {
        let bytes = match std::fs::read(dir.join(&rel)) {
            Ok(b) => b,
            Err(e) => bail!("helmTemplate: reading {}: {e}", dir.join(&rel).display()),
        };
        hash.update(rel.to_string_lossy().as_bytes());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    Ok(hash.finalize().into())
}

/// Every file below `dir`, relative to `top`; a symlink is refused (helm would follow it
/// out of the folder kf checked).
fn list_files(top: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => bail!("helmTemplate: reading {}: {e}", dir.display()),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            bail!(
                "helmTemplate: {} is a symlink; kf renders charts whose files are all inside their folder (copy the file in)",
                path.display()
            );
        } else if kind.is_dir() {
            list_files(top, &path, out)?;
        } else if kind.is_file() {
            out.push(path.strip_prefix(top).unwrap_or(&path).to_path_buf());
        }
        if out.len() > MAX_CHART_FILES {
            bail!(
                "helmTemplate: {} holds more than {MAX_CHART_FILES} files; is it a chart?",
                top.display()
            );
        }
    }
    Ok(())
}

/// `helm template NAME DIR --values -` with Tanka's flags, the values on stdin, in an
/// empty HOME with no kubeconfig, killed after [`TIME_LIMIT`].
fn run_helm(helm: &Path, dir: &Path, name: &str, options: &Options) -> Result<String> {
    let home = match tempfile::tempdir() {
        Ok(h) => h,
        Err(e) => bail!("helmTemplate: a temporary HOME for helm: {e}"),
    };
    let mut cmd = Command::new(helm);
    cmd.arg("template")
        .arg(name)
        .arg(dir)
        .args(["--values", "-"]);
    for v in &options.api_versions {
        cmd.arg(format!("--api-versions={v}"));
    }
    if options.include_crds.unwrap_or(true) {
        cmd.arg("--include-crds");
    }
    if options.skip_tests {
        cmd.arg("--skip-tests");
    }
    if let Some(v) = &options.kube_version {
        cmd.arg(format!("--kube-version={v}"));
    }
    if options.no_hooks {
        cmd.arg("--no-hooks");
    }
    if let Some(ns) = &options.namespace {
        cmd.arg(format!("--namespace={ns}"));
    }
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("HELM_CACHE_HOME", home.path().join("cache"))
        .env("HELM_CONFIG_HOME", home.path().join("config"))
        .env("HELM_DATA_HOME", home.path().join("data"))
        .env("KUBECONFIG", home.path().join("no-kubeconfig"))
        .current_dir(home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => bail!("helmTemplate: running {}: {e}", helm.display()),
    };
    let values = Value::Object(options.values.clone()).to_string();
    let stdin = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(values.as_bytes());
        }
    });
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(pipe) = pipe {
                let _ = pipe.take(MAX_OUTPUT + 1).read_to_end(&mut text);
            }
            text
        })
    };
    let out = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > TIME_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                bail!(
                    "helmTemplate('{name}'): helm template ran past {} s and was stopped",
                    TIME_LIMIT.as_secs()
                );
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => bail!("helmTemplate('{name}'): waiting for helm: {e}"),
        }
    };
    let _ = writer.join();
    let stdout = out.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    if !status.success() {
        let said = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let advice = if said.contains("missing in charts/") {
            "; vendor the chart's dependencies into it: helm dependency build <chart folder>"
        } else {
            ""
        };
        bail!(
            "helmTemplate('{name}', {}): helm template failed: {said}{advice}",
            dir.display()
        );
    }
    if stdout.len() as u64 > MAX_OUTPUT {
        bail!("helmTemplate('{name}'): helm printed more than {MAX_OUTPUT} bytes");
    }
    match String::from_utf8(stdout) {
        Ok(text) => Ok(text),
        Err(_) => bail!("helmTemplate('{name}'): helm printed text that is not UTF-8"),
    }
}

/// helm's documents as one object keyed `snakecase(kind + "_" + name)`; empty documents
/// are skipped, a key given twice is an error (as in Tanka).
fn keyed_objects(text: &str, name: &str, chart: &str) -> Result<Value> {
    let docs: Vec<Value> = match serde_saphyr::from_multiple(text) {
        Ok(d) => d,
        Err(e) => bail!(
            "helmTemplate('{name}', '{chart}'): what helm printed is not YAML: {}",
            e.to_string().lines().next().unwrap_or_default()
        ),
    };
    let mut objects = Map::new();
    for doc in docs.into_iter().filter(|d| !d.is_null()) {
        let kind = doc.get("kind").and_then(Value::as_str);
        let object_name = doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .map(str::to_string);
        let (Some(kind), true) = (kind, doc.get("apiVersion").is_some_and(Value::is_string)) else {
            bail!(
                "helmTemplate('{name}', '{chart}'): helm printed a document without a kind and an apiVersion"
            );
        };
        let key = super::snakecase::snakecase(&format!(
            "{kind}_{}",
            object_name.as_deref().unwrap_or("<nil>")
        ));
        if objects.contains_key(&key) {
            bail!(
                "helmTemplate('{name}', '{chart}'): two objects share the key '{key}' (kind and name); rename one in the chart's values"
            );
        }
        objects.insert(key, doc);
    }
    Ok(Value::Object(objects))
}
