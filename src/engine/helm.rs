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

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use jrsonnet_evaluator::function::builtin;
use jrsonnet_evaluator::{IStr, ObjValue, Result, Val, bail};
use serde_json::{Map, Value};

use super::external;

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
    let bytes = crate::sandbox::read_regular(&path, external::MAX_OUTPUT * 2).ok()?;
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

#[builtin]
pub fn helm_template(name: IStr, chart: IStr, opts: ObjValue) -> Result<Val> {
    let json = super::val_to_json(&Val::Obj(opts))?;
    let options: Options = match serde_json::from_value(json) {
        Ok(o) => o,
        Err(e) => bail!(
            "helmTemplate('{name}', '{chart}'): {e} (it takes values, namespace, includeCrds, kubeVersion, apiVersions, skipTests, noHooks, nameFormat and calledFrom)"
        ),
    };
    let what = format!("helmTemplate('{name}', '{chart}')");
    let format = external::name_format(options.name_format.as_deref(), &what)?;
    let Some(called_from) = options.called_from.clone().filter(|c| !c.is_empty()) else {
        bail!(
            "{what}: opts.calledFrom is unset; call it as tanka-util does, helm.new(std.thisFile).template(name, chart, conf), or pass calledFrom: std.thisFile"
        );
    };
    let place = external::place();
    let wanted = place.beside(&called_from, &chart);
    let how = "vendor it into the app with `kf chart add REPO/NAME@VERSION` (or helm pull REPO/NAME --version V --untar --untardir charts)";
    let dir = external::folder(&place, &wanted, &what, how)?;
    if !dir.join("Chart.yaml").is_file() {
        bail!(
            "{what}: {} has no Chart.yaml, so it is not a chart folder; {how}",
            place.shown(&wanted)
        );
    }
    let files = match super::chartfile::read_tree(&dir, external::MAX_FILES, external::MAX_OUTPUT) {
        Ok(f) => f,
        Err(e) => bail!("{what}: {e}"),
    };
    let tree = super::chartfile::tree_digest(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    check_recorded(&place, &dir, &tree, &what)?;
    let Some((helm, _)) = external::find_program("KF_HELM", &["helm"]) else {
        bail!(
            "helmTemplate needs helm (v3 or v4) and there is none on PATH; install it (https://helm.sh/docs/intro/install/) or name it with KF_HELM=/path/to/helm"
        );
    };
    let key = digest_of(&helm, &tree, &name, &options);
    let slot = slot(&key);
    let mut made = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(objects) = made.as_ref() {
        return Ok(super::json_to_val(objects));
    }
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let objects = match cached(&hex) {
        Some(objects) => objects,
        None => {
            let text = match external::run(
                &helm,
                &helm_args(&dir, &name, &options),
                Some(Value::Object(options.values.clone()).to_string()),
                &what,
            )? {
                Ok(text) => text,
                Err(external::Failed(said)) => {
                    let advice = if said.contains("missing in charts/") {
                        "; vendor the chart's dependencies into it: helm dependency build <chart folder>"
                    } else {
                        ""
                    };
                    bail!("{what}: helm template failed: {said}{advice}");
                }
            };
            let objects = external::keyed_objects(&text, &what, format.as_ref())?;
            keep(&hex, &objects);
            objects
        }
    };
    let val = super::json_to_val(&objects);
    *made = Some(objects);
    Ok(val)
}

/// SHA-256 of helm (its path, size and time), the release name, the options (without
/// calledFrom) and the digest of the chart's files.
fn digest_of(helm: &Path, tree: &str, name: &str, options: &Options) -> [u8; 32] {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    let meta = std::fs::metadata(helm).ok();
    hash.update(format!(
        "{}\0{:?}\0{:?}\0{name}\0{tree}\0",
        helm.display(),
        meta.as_ref().map(std::fs::Metadata::len),
        meta.and_then(|m| m.modified().ok())
    ));
    let mut decided = serde_json::to_value(options).unwrap_or(Value::Null);
    if let Some(o) = decided.as_object_mut() {
        o.remove("calledFrom");
    }
    hash.update(decided.to_string());
    hash.finalize().into()
}

/// A chart folder `kf chart` pulled (recorded in the `chartfile.lock` beside its
/// `charts/`) renders only while its files are what was pulled.
fn check_recorded(place: &external::Place, dir: &Path, tree: &str, what: &str) -> Result<()> {
    let read = |path: &Path| {
        let real = place.sandbox.resolve(path).ok()?;
        crate::sandbox::read_regular_text(&real, super::chartfile::MAX_FILE).ok()
    };
    let recorded = match super::chartfile::recorded_for(dir, read) {
        Ok(r) => r,
        Err(e) => bail!("{what}: {e}"),
    };
    if let Some((locked, lock, line)) = recorded
        && locked.digest != tree
    {
        let at = line.map_or(String::new(), |l| format!(":{l}"));
        bail!(
            "{what}: {} is not what `kf chart` pulled ({}@{}, recorded in {}{at}): its files' digest is {tree}, the record says {}. Pull it again with `kf chart update`; to render a folder you changed on purpose, remove its entry from {}",
            place.shown(dir),
            locked.chart,
            locked.version,
            place.shown(Path::new(&lock)),
            locked.digest,
            super::chartfile::LOCKFILE
        );
    }
    Ok(())
}

/// `helm template NAME DIR --values -` and the flags Tanka passes for the options.
fn helm_args(dir: &Path, name: &str, options: &Options) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![
        "template".into(),
        name.into(),
        dir.into(),
        "--values".into(),
        "-".into(),
    ];
    for v in &options.api_versions {
        args.push(format!("--api-versions={v}").into());
    }
    if options.include_crds.unwrap_or(true) {
        args.push("--include-crds".into());
    }
    if options.skip_tests {
        args.push("--skip-tests".into());
    }
    if let Some(v) = &options.kube_version {
        args.push(format!("--kube-version={v}").into());
    }
    if options.no_hooks {
        args.push("--no-hooks".into());
    }
    if let Some(ns) = &options.namespace {
        args.push(format!("--namespace={ns}").into());
    }
    args
}
