//! An env's evaluator: its ksonnet-lib, the folders imports are searched in (ksonnet's
//! order), the sandbox, ext vars and the component source rewrite.

use std::path::PathBuf;

use super::{ExtVar, RenderOptions, ksonnet_compat};
use crate::app::{App, Environment};
use crate::engine::{Engine, EngineOptions};

/// The env's ksonnet-lib (see [`crate::ksonnetlib::lib_dir`]); `None`, with a warning
/// printed once, when kf's cache cannot be used and the app has none.
pub(super) fn library(app: &App, env: &Environment) -> Option<crate::ksonnetlib::LibraryDir> {
    let app_lib = app
        .root
        .join("lib")
        .join("ksonnet-lib")
        .join(&env.k8s_version);
    // One render makes an engine per module and thread (and `show` more for its checks):
    // the library is found, and its signed manifest verified, once per process. The lock
    // is held while that is done, so that threads starting together do it once.
    static FOUND: std::sync::Mutex<Vec<(PathBuf, crate::ksonnetlib::LibraryDir)>> =
        std::sync::Mutex::new(Vec::new());
    let mut found = FOUND
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, lib)) = found.iter().find(|(at, _)| *at == app_lib) {
        return Some(lib.clone());
    }
    match crate::ksonnetlib::lib_dir(&app_lib, &env.k8s_version, app.sandbox()) {
        Ok(lib) => {
            found.push((app_lib, lib.clone()));
            Some(lib)
        }
        Err(e) => {
            static WARNED: std::sync::Once = std::sync::Once::new();
            WARNED.call_once(|| {
                eprintln!(
                    "warning: environment '{}' has no ksonnet-lib: {e}; imports of k.libsonnet fail until then",
                    env.name
                )
            });
            None
        }
    }
}

/// The folders imports are searched in, in ksonnet's order, with kf's additions: the
/// jsonnet-bundler `vendor/` above the app (`bundler`), app.yaml's `jpath` folders
/// (`listed`) and the `-J` folders (`extra`).
pub(super) fn search_paths(
    app: &App,
    env: &Environment,
    library: Option<&crate::ksonnetlib::LibraryDir>,
    bundler: Option<&PathBuf>,
    listed: &[PathBuf],
    extra: &[PathBuf],
) -> Vec<PathBuf> {
    let mut paths = vec![
        app.environments_dir(),
        app.env_dir(env),
        app.root.join("vendor"),
    ];
    paths.extend(bundler.cloned());
    paths.push(app.root.join("lib"));
    paths.extend(library.map(|l| l.path().to_path_buf()));
    paths.push(app.components_dir());
    paths.extend(listed.iter().cloned());
    paths.extend(extra.iter().cloned());
    paths
}

pub fn new_engine(app: &App, env: &Environment, options: &RenderOptions) -> Engine {
    crate::engine::set_chart_cache(|| crate::userdir::cache_dir().ok().map(|d| d.join("charts")));
    crate::engine::set_split_cache(|| {
        let dir = crate::userdir::cache_dir().ok()?.join("split-libraries");
        crate::userdir::make_private(&dir).ok()?;
        Some((dir, crate::userdir::secret().ok()?.to_vec()))
    });
    let library = library(app, env);
    // The app, the -J folders, the jsonnet-bundler vendor/ above the app, app.yaml's
    // jpath folders, and a library kf generated (checked file by file).
    let bundler = app.bundler_vendor();
    let listed = app.jpaths();
    let mut sandbox = crate::sandbox::Sandbox::new(
        std::iter::once(&app.root)
            .chain(options.jpaths.iter())
            .chain(bundler.iter())
            .chain(listed.iter()),
    );
    if let Some(crate::ksonnetlib::LibraryDir::Cache { dir, digests }) = &library {
        sandbox = sandbox.with_verified(dir, digests.clone());
    }
    let engine = Engine::new(EngineOptions {
        display_root: app.root.clone(),
        search_paths: search_paths(
            app,
            env,
            library.as_ref(),
            bundler.as_ref(),
            &listed,
            &options.jpaths,
        ),
        aliases: crate::registry::version_aliases(app),
        sandbox,
        max_stack: options
            .max_stack
            .unwrap_or(crate::engine::DEFAULT_MAX_STACK),
        rewrite: Some(crate::engine::SourceRewrite {
            components: crate::sandbox::real_dir(&app.components_dir())
                .unwrap_or_else(|_| app.components_dir()),
            rewrite: ksonnet_compat::as_ksonnet_evaluated,
        }),
        overlay: options.overlay.clone(),
    });
    for (name, value) in &options.ext_vars {
        match value {
            ExtVar::Str(s) => engine.set_ext_str(name, s),
            ExtVar::Code(c) => engine.set_ext_code(name, c),
        }
    }
    engine.set_ext_json(
        "__ksonnet/environments",
        &serde_json::json!({ "server": env.server, "namespace": env.namespace }),
    );
    engine
}
