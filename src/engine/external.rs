//! What the natives that run another program (helm for `helmTemplate`, kustomize for
//! `kustomizeBuild`) share: where they may read (the folder a render's imports may read,
//! set by each engine on its thread), a folder checked to hold no symlink, the program run
//! with a cleared environment, a time limit and a cap on its output, and its YAML read
//! back as Tanka keys it.

use std::cell::RefCell;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jrsonnet_evaluator::{Result, bail};
use serde_json::{Map, Value};

use crate::sandbox::{ReadError, Sandbox};

/// How long one run of a program may take.
const TIME_LIMIT: Duration = Duration::from_secs(120);
/// The most kf reads of what a program prints.
pub const MAX_OUTPUT: u64 = 64 << 20;
/// The most files a folder handed to a program may hold.
pub const MAX_FILES: usize = 20_000;

/// The app's folder and what a render on this thread may read.
#[derive(Clone, Default)]
pub struct Place {
    pub root: PathBuf,
    pub sandbox: Sandbox,
}

thread_local! {
    static PLACE: RefCell<Option<Place>> = const { RefCell::new(None) };
}

/// Called by each engine made on this thread: a native's `calledFrom` is relative to
/// `root`, and its folder is read only where `sandbox` lets imports read.
pub fn set_place(root: &Path, sandbox: &Sandbox) {
    PLACE.with(|p| {
        *p.borrow_mut() = Some(Place {
            root: root.to_path_buf(),
            sandbox: sandbox.clone(),
        });
    });
}

pub fn place() -> Place {
    PLACE.with(|p| p.borrow().clone().unwrap_or_default())
}

/// The real path of the folder `wanted`, checked inside the sandbox; `what` begins each
/// error, `how` says how to bring a missing or outside folder in.
pub fn folder(place: &Place, wanted: &Path, what: &str, how: &str) -> Result<PathBuf> {
    let shown = place.shown(wanted);
    match place.sandbox.resolve(wanted) {
        Ok(dir) if dir.is_dir() => Ok(dir),
        Ok(_) => bail!("{what}: {shown} is not a folder; {how}"),
        Err(ReadError::Outside { resolved, .. }) => bail!(
            "{what}: {} is outside the app and the -J folders; {how}",
            resolved.display()
        ),
        Err(e) if e.is_not_found() => bail!("{what}: no folder at {shown}; {how}"),
        Err(e) => bail!("{what}: {e}"),
    }
}

impl Place {
    /// `rel` beside the file `called_from` names (relative to the app, as `std.thisFile`
    /// gives it, or absolute), as Tanka joins a native's path to `opts.calledFrom`.
    pub fn beside(&self, called_from: &str, rel: &str) -> PathBuf {
        self.root
            .join(called_from)
            .parent()
            .map_or_else(|| PathBuf::from(rel), |dir| dir.join(rel))
    }

    /// `path` as a user reads it: `..` taken out, relative to the app where it is inside.
    pub fn shown(&self, path: &Path) -> String {
        let mut clean = PathBuf::new();
        for part in path.components() {
            match part {
                std::path::Component::ParentDir => {
                    clean.pop();
                }
                std::path::Component::CurDir => {}
                other => clean.push(other),
            }
        }
        match clean.strip_prefix(&self.root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
            _ => clean.display().to_string(),
        }
    }
}

/// Every file below `dir`, relative to `top`; a symlink is refused (the program would
/// follow it out of the folder kf checked).
pub fn list_files(top: &Path, dir: &Path, out: &mut Vec<PathBuf>, what: &str) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => bail!("{what}: reading {}: {e}", dir.display()),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            bail!(
                "{what}: {} is a symlink; kf hands a program only folders whose files are all inside them (copy the file in)",
                path.display()
            );
        } else if kind.is_dir() {
            list_files(top, &path, out, what)?;
        } else if kind.is_file() {
            out.push(path.strip_prefix(top).unwrap_or(&path).to_path_buf());
        }
        if out.len() > MAX_FILES {
            bail!(
                "{what}: {} holds more than {MAX_FILES} files",
                top.display()
            );
        }
    }
    Ok(())
}

/// The program `var` names, or the first of `names` on PATH (with the name found).
pub fn find_program(var: &str, names: &[&str]) -> Option<(PathBuf, String)> {
    if let Some(path) = std::env::var_os(var).filter(|p| !p.is_empty()) {
        let name = Path::new(&path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Some((PathBuf::from(path), name));
    }
    let paths = std::env::var_os("PATH")?;
    names.iter().find_map(|name| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
            .map(|p| (p, (*name).to_string()))
    })
}

/// What a program printed when it failed: its first line of stderr.
pub struct Failed(pub String);

/// Run `program args` with `stdin`, in an empty temporary HOME (and helm's folders there),
/// with only PATH kept and no kubeconfig, killed after [`TIME_LIMIT`]: its stdout, or
/// the first line it said on stderr when it failed.
pub fn run(
    program: &Path,
    args: &[OsString],
    stdin: Option<String>,
    what: &str,
) -> Result<std::result::Result<String, Failed>> {
    run_keeping(program, args, stdin, what, &[])
}

/// The variables a program that reaches the network needs from the user's environment:
/// proxies and where the system's CA certificates are.
pub const NETWORK_VARS: &[&str] = &[
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "NO_PROXY",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// [`run`], keeping also the variables `keep` names.
pub fn run_keeping(
    program: &Path,
    args: &[OsString],
    stdin: Option<String>,
    what: &str,
    keep: &[&str],
) -> Result<std::result::Result<String, Failed>> {
    let home = match tempfile::tempdir() {
        Ok(h) => h,
        Err(e) => bail!("{what}: a temporary HOME for {}: {e}", program.display()),
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("HELM_CACHE_HOME", home.path().join("cache"))
        .env("HELM_CONFIG_HOME", home.path().join("config"))
        .env("HELM_DATA_HOME", home.path().join("data"))
        .env("KUBECONFIG", home.path().join("no-kubeconfig"))
        .envs(keep.iter().filter_map(|k| Some((*k, std::env::var_os(k)?))))
        .current_dir(home.path())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => bail!("{what}: running {}: {e}", program.display()),
    };
    let input = child.stdin.take();
    let writer = std::thread::spawn(move || {
        if let (Some(mut pipe), Some(text)) = (input, stdin) {
            let _ = pipe.write_all(text.as_bytes());
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
                    "{what}: {} ran past {} s and was stopped",
                    program.display(),
                    TIME_LIMIT.as_secs()
                );
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => bail!("{what}: waiting for {}: {e}", program.display()),
        }
    };
    let _ = writer.join();
    let stdout = out.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    if !status.success() {
        let said = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Ok(Err(Failed(said.to_string())));
    }
    if stdout.len() as u64 > MAX_OUTPUT {
        bail!(
            "{what}: {} printed more than {MAX_OUTPUT} bytes",
            program.display()
        );
    }
    match String::from_utf8(stdout) {
        Ok(text) => Ok(Ok(text)),
        Err(_) => bail!(
            "{what}: {} printed text that is not UTF-8",
            program.display()
        ),
    }
}

/// Tanka's default name format, the one way kf keys a program's objects.
pub const DEFAULT_NAME_FORMAT: &str = r#"{{ print .kind "_" .metadata.name | snakecase }}"#;

/// The name format of a native's `nameFormat` option: `None` for Tanka's default (or
/// none given), else the parsed format; `what` begins the error.
pub fn name_format(
    given: Option<&str>,
    what: &str,
) -> Result<Option<super::name_format::NameFormat>> {
    match given.map(str::trim) {
        None | Some(DEFAULT_NAME_FORMAT) | Some("") => Ok(None),
        Some(format) => match super::name_format::NameFormat::parse(format) {
            Ok(f) => Ok(Some(f)),
            Err(e) => bail!("{what}: nameFormat: {e}"),
        },
    }
}

/// The documents of `text` as one object keyed by `format` (Tanka's default,
/// `snakecase(kind + "_" + name)`, when `None`); empty documents are skipped, a key given
/// twice is an error.
pub fn keyed_objects(
    text: &str,
    what: &str,
    format: Option<&super::name_format::NameFormat>,
) -> Result<Value> {
    let docs: Vec<Value> = match serde_saphyr::from_multiple(text) {
        Ok(d) => d,
        Err(e) => bail!(
            "{what}: what it printed is not YAML: {}",
            e.to_string().lines().next().unwrap_or_default()
        ),
    };
    let mut objects = Map::new();
    for doc in docs.into_iter().filter(|d| !d.is_null()) {
        let kind = doc.get("kind").and_then(Value::as_str);
        let name = doc.pointer("/metadata/name").and_then(Value::as_str);
        let (Some(kind), true) = (kind, doc.get("apiVersion").is_some_and(Value::is_string)) else {
            bail!("{what}: it printed a document without a kind and an apiVersion");
        };
        let key = match format {
            None => super::snakecase::snakecase(&format!("{kind}_{}", name.unwrap_or("<nil>"))),
            Some(f) => match f.key(&doc) {
                Ok(k) => k,
                Err(e) => bail!("{what}: nameFormat on {kind} '{}': {e}", name.unwrap_or("")),
            },
        };
        if objects.contains_key(&key) {
            bail!(
                "{what}: two objects share the key '{key}'; give a nameFormat that tells them apart"
            );
        }
        objects.insert(key, doc);
    }
    Ok(Value::Object(objects))
}
