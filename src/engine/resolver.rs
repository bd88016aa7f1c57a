//! Import resolution as ksonnet did it: the importing file's folder first, then the app's
//! library folders in order (environment, vendor/, lib/, ksonnet-lib, components/, -J).

use std::fs;
use std::io::ErrorKind as IoKind;
use std::path::{Path, PathBuf};

use jrsonnet_evaluator::{AsPathLike, bail};
use jrsonnet_evaluator::{
    ImportResolver, ResolvePath, Result, SourcePath,
    error::ErrorKind::{ImportFileNotFound, ImportIo, ImportIsADirectory, ResolvedFileNotFound},
};
use jrsonnet_gcmodule::Acyclic;

#[derive(Acyclic)]
pub struct KfImportResolver {
    search_paths: Vec<PathBuf>,
    aliases: Vec<(PathBuf, PathBuf)>,
}

impl KfImportResolver {
    pub fn new(search_paths: Vec<PathBuf>, aliases: Vec<(PathBuf, PathBuf)>) -> Self {
        KfImportResolver {
            search_paths,
            aliases,
        }
    }
}

fn existing_file(path: &Path) -> Result<Option<SourcePath>> {
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let canonical = path
                .canonicalize()
                .map_err(|e| ImportIo(format!("{}: {e}", path.display())))?;
            Ok(Some(SourcePath::new(jrsonnet_ir::SourceFile::new(
                canonical,
            ))))
        }
        Ok(_) => Ok(None),
        Err(e) if e.kind() == IoKind::NotFound || e.kind() == IoKind::NotADirectory => Ok(None),
        Err(e) => bail!(ImportIo(format!("{}: {e}", path.display()))),
    }
}

impl ImportResolver for KfImportResolver {
    fn resolve_from(&self, from: &SourcePath, path: &dyn AsPathLike) -> Result<SourcePath> {
        let wanted = path.as_path();
        let wanted_path: &Path = match &wanted {
            ResolvePath::Str(s) => Path::new(*s),
            ResolvePath::Path(p) => p,
        };
        if wanted_path.is_absolute() {
            if let Some(found) = existing_file(wanted_path)? {
                return Ok(found);
            }
            bail!(ImportFileNotFound(from.clone(), wanted.to_owned()));
        }
        if let Some(dir) = from.path().and_then(Path::parent)
            && let Some(found) = existing_file(&dir.join(wanted_path))?
        {
            return Ok(found);
        }
        for lib in &self.search_paths {
            if let Some(found) = existing_file(&lib.join(wanted_path))? {
                return Ok(found);
            }
        }
        for (prefix, dir) in &self.aliases {
            if let Ok(rest) = wanted_path.strip_prefix(prefix)
                && let Some(found) = existing_file(&dir.join(rest))?
            {
                return Ok(found);
            }
        }
        bail!(ImportFileNotFound(from.clone(), wanted.to_owned()))
    }

    fn load_file_contents(&self, resolved: &SourcePath) -> Result<Vec<u8>> {
        // Inline code (--ext-code, --tla-code) arrives as an in-memory "FIFO" source.
        if let Some(fifo) = resolved.downcast_ref::<jrsonnet_ir::SourceFifo>() {
            return Ok(fifo.1.to_vec());
        }
        let Some(path) = resolved.path() else {
            bail!(ImportIsADirectory(resolved.clone()))
        };
        fs::read(path).map_err(|_| ResolvedFileNotFound(resolved.clone()).into())
    }
}
