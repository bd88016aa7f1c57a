//! `std.native('kustomizeBuild')(path, opts)` as Tanka has it (pkg/kustomize/jsonnet.go),
//! so tanka-util's `kustomize.new(std.thisFile).build(path)` works unchanged: the
//! kustomization folder is `path` relative to `opts.calledFrom`'s folder, `kustomize
//! build` (or `kubectl kustomize`) renders it, and the objects come back keyed as
//! `helmTemplate`'s are.
//!
//! kf's rules on top of Tanka's: every kustomization it reaches (the folder and the bases,
//! resources and components it lists, followed down) is a folder inside the app or a
//! `-J` folder with no symlink in it, and a remote base (a URL, a git repository) is
//! refused before kustomize runs, so kustomize never fetches.

use std::path::{Path, PathBuf};

use jrsonnet_evaluator::function::builtin;
use jrsonnet_evaluator::{IStr, ObjValue, Result, Val, bail};
use serde_json::Value;

use super::external::{self, Place};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Options {
    called_from: Option<String>,
    name_format: Option<String>,
}

/// The file names kustomize reads a kustomization from, in its order.
const KUSTOMIZATION: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// How deep bases may nest.
const MAX_DEPTH: usize = 32;

#[builtin]
pub fn kustomize_build(path: IStr, opts: ObjValue) -> Result<Val> {
    let what = format!("kustomizeBuild('{path}')");
    let json = super::val_to_json(&Val::Obj(opts))?;
    let options: Options = match serde_json::from_value(json) {
        Ok(o) => o,
        Err(e) => bail!("{what}: {e} (it takes calledFrom and nameFormat)"),
    };
    let format = external::name_format(options.name_format.as_deref(), &what)?;
    let Some(called_from) = options.called_from.filter(|c| !c.is_empty()) else {
        bail!(
            "{what}: opts.calledFrom is unset; call it as tanka-util does, kustomize.new(std.thisFile).build(path), or pass calledFrom: std.thisFile"
        );
    };
    let place = external::place();
    let wanted = place.beside(&called_from, &path);
    let how = "copy the kustomization (and its bases) into the app";
    let dir = external::folder(&place, &wanted, &what, how)?;
    let mut seen = Vec::new();
    check_kustomization(&place, &dir, &what, 0, &mut seen)?;
    let Some((program, name)) = external::find_program("KF_KUSTOMIZE", &["kustomize", "kubectl"])
    else {
        bail!(
            "kustomizeBuild needs kustomize or kubectl and there is neither on PATH; install one (https://kubectl.docs.kubernetes.io/installation/kustomize/) or name it with KF_KUSTOMIZE=/path/to/kustomize"
        );
    };
    let verb = if name == "kubectl" {
        "kustomize"
    } else {
        "build"
    };
    let args = [verb.into(), dir.clone().into_os_string()];
    match external::run(&program, &args, None, &what)? {
        Ok(text) => Ok(super::json_to_val(&external::keyed_objects(
            &text,
            &what,
            format.as_ref(),
        )?)),
        Err(external::Failed(said)) => bail!("{what}: {name} {verb} failed: {said}"),
    }
}

/// `dir`'s kustomization, and every local base, resource folder and component it lists,
/// followed down: inside the sandbox, no symlink, nothing remote.
fn check_kustomization(
    place: &Place,
    dir: &Path,
    what: &str,
    depth: usize,
    seen: &mut Vec<PathBuf>,
) -> Result<()> {
    if seen.iter().any(|d| d == dir) {
        return Ok(());
    }
    seen.push(dir.to_path_buf());
    if depth > MAX_DEPTH {
        bail!("{what}: bases nest more than {MAX_DEPTH} deep");
    }
    let Some(file) = KUSTOMIZATION
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
    else {
        bail!(
            "{what}: {} has no kustomization.yaml, so it is not a kustomization",
            dir.display()
        );
    };
    let mut files = Vec::new();
    external::list_files(dir, dir, &mut files, what)?;
    let text = match crate::sandbox::read_regular_text(&file, external::MAX_OUTPUT) {
        Ok(t) => t,
        Err(e) => bail!("{what}: {e}"),
    };
    let doc: Value = match serde_saphyr::from_str(&text) {
        Ok(d) => d,
        Err(e) => bail!(
            "{what}: {} is not YAML: {}",
            file.display(),
            e.to_string().lines().next().unwrap_or_default()
        ),
    };
    for key in ["resources", "bases", "components"] {
        let entries = doc.get(key).and_then(Value::as_array).into_iter().flatten();
        for entry in entries.filter_map(Value::as_str) {
            let refuse_remote = || {
                format!(
                    "{what}: {} lists {key} '{entry}', which is not a file or folder in the app; kf does not let kustomize fetch remote bases: vendor it into the app and name its folder",
                    file.display()
                )
            };
            if entry.contains("://") || entry.starts_with("git@") {
                bail!("{}", refuse_remote());
            }
            let local = dir.join(entry);
            match place.sandbox.resolve(&local) {
                Ok(real) if real.is_dir() => {
                    check_kustomization(place, &real, what, depth + 1, seen)?;
                }
                Ok(_) => {}
                Err(e) if e.is_not_found() => bail!("{}", refuse_remote()),
                Err(e) => bail!("{what}: {} lists {key} '{entry}': {e}", file.display()),
            }
        }
    }
    Ok(())
}
