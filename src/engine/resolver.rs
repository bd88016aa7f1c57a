//! Import resolution as ksonnet did it: the importing file's folder first, then the app's
//! library folders in order (environment, vendor/, lib/, ksonnet-lib, components/, -J).

use std::path::{Path, PathBuf};

use jrsonnet_evaluator::{AsPathLike, bail};
use jrsonnet_evaluator::{
    ImportResolver, ResolvePath, Result, SourcePath,
    error::ErrorKind::{
        ImportFileNotFound, ImportIo, ImportIsADirectory, ResolvedFileNotFound, RuntimeError,
    },
};
use jrsonnet_gcmodule::Acyclic;

use crate::sandbox::{ReadError, Sandbox};

/// The library entry points a Tanka layout and kf's generated ksonnet-lib both name:
/// when one hides another, kf says so.
const SHADOWED_NAMES: [&str; 2] = ["k.libsonnet", "k8s.libsonnet"];

/// The files a shadowing warning was printed for (once a process each).
static SHADOW_WARNED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

#[derive(Acyclic)]
pub struct KfImportResolver {
    search_paths: Vec<PathBuf>,
    aliases: Vec<(PathBuf, PathBuf)>,
    /// The folders imports may read from (none: no file at all).
    sandbox: Sandbox,
    display_root: PathBuf,
    rewrite: Option<super::SourceRewrite>,
    overlay: std::rc::Rc<Vec<(PathBuf, String)>>,
    /// What [`KfImportResolver::existing_file`] found for each path it looked at, for
    /// this engine's render: every file importing `k.libsonnet` or a package's
    /// `util.libsonnet` tries the same folders in the same order, an `lstat` each (a
    /// render made 600 of them).
    looked_up: std::cell::RefCell<std::collections::HashMap<PathBuf, Option<SourcePath>>>,
    /// The big libraries this engine reads as parts ([`super::split_library`]).
    parts: std::cell::RefCell<super::split_parts::Parts>,
}

impl KfImportResolver {
    pub fn new(
        search_paths: Vec<PathBuf>,
        aliases: Vec<(PathBuf, PathBuf)>,
        sandbox: Sandbox,
        display_root: PathBuf,
        rewrite: Option<super::SourceRewrite>,
        overlay: std::rc::Rc<Vec<(PathBuf, String)>>,
    ) -> Self {
        KfImportResolver {
            overlay,
            search_paths,
            aliases,
            sandbox,
            display_root,
            rewrite,
            looked_up: Default::default(),
            parts: Default::default(),
        }
    }

    /// The file `path` names, if it exists; an error if it resolves (through `..` or a
    /// symlink) outside the sandbox.
    fn existing_file(
        &self,
        path: &Path,
        from: &SourcePath,
        wanted: &str,
    ) -> Result<Option<SourcePath>> {
        if let Some(known) = self.looked_up.borrow().get(path) {
            return Ok(known.clone());
        }
        let found = self.look_up(path, from, wanted)?;
        self.looked_up
            .borrow_mut()
            .insert(path.to_path_buf(), found.clone());
        Ok(found)
    }

    /// [`KfImportResolver::existing_file`], looked up on disk.
    fn look_up(&self, path: &Path, from: &SourcePath, wanted: &str) -> Result<Option<SourcePath>> {
        let (canonical, meta) = match self.sandbox.resolve_with_metadata(path) {
            Ok(found) => found,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(ReadError::Outside { resolved, .. }) => bail!(RuntimeError(
                format!(
                    "{}: import '{wanted}' reads {}, which is outside the app and the -J folders; kf imports only files there (copy the file into the app, or pass its folder with -J)",
                    self.location(from, wanted),
                    resolved.display()
                )
                .into()
            )),
            Err(e) => bail!(ImportIo(e.to_string())),
        };
        // A folder of that name is not the file: search on. A FIFO, a device or a socket
        // is refused, naming it: skipping it would make the import read another file of
        // that name further along the search path, behind the user's back.
        match meta {
            m if m.is_file() => {}
            m if !m.is_dir() => bail!(ImportIo(
                ReadError::NotRegular {
                    path: path.to_path_buf(),
                    what: crate::sandbox::kind_of(&m),
                }
                .to_string()
            )),
            _ => return Ok(None),
        }
        Ok(Some(SourcePath::new(jrsonnet_ir::SourceFile::new(
            canonical,
        ))))
    }

    /// Warn, once a process for each file, when the `k.libsonnet` an import found in
    /// search folder `at` hides another further along: a Tanka-style `lib/k.libsonnet` or
    /// a vendored one in front of the ksonnet-lib kf generated, or the other way round.
    fn warn_if_shadowing(
        &self,
        from: &SourcePath,
        wanted: &str,
        found: &Path,
        at: usize,
    ) -> Result<()> {
        for later in self.search_paths.iter().skip(at + 1) {
            let hidden = later.join(wanted);
            if self.existing_file(&hidden, from, wanted)?.is_none() {
                continue;
            }
            let mut warned = SHADOW_WARNED
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !warned.iter().any(|w| w == found) {
                warned.push(found.to_path_buf());
                let shown = |p: &Path| {
                    p.strip_prefix(&self.display_root)
                        .unwrap_or(p)
                        .display()
                        .to_string()
                };
                eprintln!(
                    "warning: {}: import '{wanted}' reads {}, which hides {} further along the import path (docs/rendering.md, \"Import search path\"); rename one, or import the one you mean by a path that names its folder",
                    self.location(from, wanted),
                    shown(found),
                    shown(&hidden)
                );
            }
            break;
        }
        Ok(())
    }

    /// An import found in none of the folders: where it is, each folder looked in (in the
    /// order searched), and how to add one.
    fn not_found(&self, from: &SourcePath, wanted: &str) -> String {
        let shown = |dir: &Path| match dir.strip_prefix(&self.display_root) {
            Ok(rel) if rel.as_os_str().is_empty() => "./".to_string(),
            Ok(rel) => format!("{}/", rel.display()),
            Err(_) => format!("{}/", dir.display()),
        };
        let mut folders: Vec<String> = Vec::new();
        let searched = from.path().and_then(Path::parent).into_iter();
        for dir in searched.chain(self.search_paths.iter().map(PathBuf::as_path)) {
            let dir = shown(dir);
            if !folders.contains(&dir) {
                folders.push(dir);
            }
        }
        format!(
            "{}: import '{wanted}' is in none of the folders kf searched: {}; put the file in one of them, or add its folder with -J DIR or JSONNET_PATH",
            self.location(from, wanted),
            folders.join(", ")
        )
    }

    /// `file:line` of the import in the importing file, as far as it can be found.
    fn location(&self, from: &SourcePath, wanted: &str) -> String {
        let Some(path) = from.path() else {
            return "<inline code>".to_string();
        };
        let shown = path
            .strip_prefix(&self.display_root)
            .unwrap_or(path)
            .display()
            .to_string();
        let line = self.sandbox.read_text(path).ok().and_then(|text| {
            text.lines().position(|l| {
                l.contains(&format!("'{wanted}'")) || l.contains(&format!("\"{wanted}\""))
            })
        });
        match line {
            Some(l) => format!("{shown}:{}", l + 1),
            None => shown,
        }
    }
}

impl ImportResolver for KfImportResolver {
    fn resolve_from(&self, from: &SourcePath, path: &dyn AsPathLike) -> Result<SourcePath> {
        let wanted = path.as_path();
        let wanted_path: &Path = match &wanted {
            ResolvePath::Str(s) => Path::new(*s),
            ResolvePath::Path(p) => p,
        };
        let shown = wanted_path.display().to_string();
        let existing = |p: &Path| self.existing_file(p, from, &shown);
        if wanted_path.is_absolute() {
            if let Some(found) = existing(wanted_path)? {
                return Ok(found);
            }
            bail!(ImportFileNotFound(from.clone(), wanted.to_owned()));
        }
        if let Some(from) = from.path()
            && let Some(dir) = from.parent()
        {
            let beside = dir.join(wanted_path);
            if self.parts.borrow().has(from, &beside) {
                return Ok(SourcePath::new(jrsonnet_ir::SourceFile::new(beside)));
            }
            if let Some(found) = existing(&beside)? {
                return Ok(found);
            }
        }
        for (i, lib) in self.search_paths.iter().enumerate() {
            if let Some(found) = existing(&lib.join(wanted_path))? {
                if SHADOWED_NAMES.contains(&shown.as_str()) {
                    self.warn_if_shadowing(from, &shown, &lib.join(wanted_path), i)?;
                }
                return Ok(found);
            }
        }
        for (prefix, dir) in &self.aliases {
            if let Ok(rest) = wanted_path.strip_prefix(prefix)
                && let Some(found) = existing(&dir.join(rest))?
            {
                return Ok(found);
            }
        }
        bail!(RuntimeError(self.not_found(from, &shown).into()))
    }

    fn load_file_contents(&self, resolved: &SourcePath) -> Result<Vec<u8>> {
        // Inline code (--ext-code, --tla-code) arrives as an in-memory "FIFO" source.
        if let Some(fifo) = resolved.downcast_ref::<jrsonnet_ir::SourceFifo>() {
            return Ok(fifo.1.to_vec());
        }
        let Some(path) = resolved.path() else {
            bail!(ImportIsADirectory(resolved.clone()))
        };
        let shown = || {
            path.strip_prefix(&self.display_root)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        let part = match self.parts.borrow().get(path) {
            Some(Some(text)) => Some(text),
            Some(None) => bail!(RuntimeError(
                format!(
                    "{}: a part of this library kept in kf's cache no longer reads back, and the library has changed since this render began; run the command again",
                    super::split_library::shown_path(&shown())
                )
                .into()
            )),
            None => None,
        };
        let is_part = part.is_some();
        // A library file (not a part, not an edit held in memory) may be read in parts:
        // stamped before it is read, so that the stamp can name the bytes read.
        let library = !is_part
            && path.extension().is_some_and(|e| e == "libsonnet")
            && !self.overlay.iter().any(|(p, _)| p == path)
            && super::split_parts::may_split(path);
        let stamp = library.then(|| super::split_parts::stamp(path)).flatten();
        let seen = stamp.and_then(|now| super::split_parts::seen(path, now));
        let mut bytes = match (part, &seen) {
            (Some(text), _) => text,
            (None, Some(split)) => split.main.as_bytes().to_vec(),
            (None, None) => read_as_written(&self.overlay, &self.sandbox, resolved)?,
        };
        let known = seen.is_some();
        if let Some(split) = seen {
            self.parts.borrow_mut().add(split);
        }
        // A big library in ksonnet-lib's shape is read as parts, each checked and
        // rewritten as it loads.
        if library
            && !known
            && bytes.len() >= super::split_library::MIN_BYTES
            && let Some(split) = super::split_parts::split_file(path, stamp, &bytes)
        {
            bytes = split.main.as_bytes().to_vec();
            self.parts.borrow_mut().add(split);
        }
        // Parsing recurses per nesting level: refuse what would overflow the stack (a
        // part was checked when its library was split).
        if !is_part && let Err(deep) = super::limits::check_nesting(&bytes) {
            bail!(RuntimeError(
                format!("{}:{}: {deep}", shown(), deep.line).into()
            ));
        }
        if !is_part
            && !path
                .extension()
                .is_some_and(|e| e == "jsonnet" || e == "libsonnet")
        {
            return Ok(bytes);
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Ok(bytes);
        };
        let mut rewritten = None;
        if let Some(r) = &self.rewrite {
            // `path` is already the real path (existing_file), as is `r.components`.
            let component =
                path.extension().is_some_and(|e| e == "jsonnet") && path.starts_with(&r.components);
            rewritten = (r.rewrite)(text, component);
        }
        let source = rewritten.as_deref().unwrap_or(text);
        if let Some(new) = super::json_import::with_json_imports_as_data(source, |wanted| {
            super::parse_json::keep_if_data(&self.text_of(resolved, wanted)?)
        }) {
            rewritten = Some(new);
        }
        Ok(rewritten.map_or(bytes, String::into_bytes))
    }
}

impl KfImportResolver {
    /// The text of the file `import wanted` in `from` reads, if it resolves in the sandbox
    /// and is UTF-8.
    fn text_of(&self, from: &SourcePath, wanted: &str) -> Option<String> {
        let found = self.resolve_from(from, &wanted).ok()?;
        String::from_utf8(read_as_written(&self.overlay, &self.sandbox, &found).ok()?).ok()
    }
}

/// The bytes of a resolved file as its import reads them before kf's checks and rewrites:
/// from the overlay if it holds the path, else from disk through the sandbox (a regular
/// file inside it, capped), without a byte-order mark.
pub fn read_as_written(
    overlay: &[(PathBuf, String)],
    sandbox: &Sandbox,
    resolved: &SourcePath,
) -> Result<Vec<u8>> {
    let Some(path) = resolved.path() else {
        bail!(ImportIsADirectory(resolved.clone()))
    };
    Ok(match overlay.iter().find(|(p, _)| p == path) {
        Some((_, text)) => without_bom(text.as_bytes().to_vec()),
        None => match sandbox.read(path) {
            Ok(bytes) => without_bom(bytes),
            Err(e) if e.is_not_found() => bail!(ResolvedFileNotFound(resolved.clone())),
            Err(e) => bail!(ImportIo(e.to_string())),
        },
    })
}

/// Editors on Windows save UTF-8 with a byte-order mark, which Jsonnet's lexer rejects.
fn without_bom(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    bytes
}
