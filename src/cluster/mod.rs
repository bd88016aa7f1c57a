//! The cluster side: choosing the cluster an environment names, discovery, and
//! server-side apply. Rendering happens before any of this (the Jsonnet state is
//! thread-local and not `Send`); this module only sees JSON objects.

pub mod apply;
pub mod client;
pub mod diff;
pub mod labels;
pub mod ownership;
pub mod prune;
pub mod resources;
pub mod select;
pub mod status;

use crate::app::Environment;
use crate::render::RenderedObject;

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("{0}")]
    Config(String),
    #[error(
        "refusing to act: environment '{env}' is {env_server}, but context '{context}' points at {context_server}; pick a context for {env_server} or fix the env with `kf env set {env} --server`"
    )]
    WrongCluster {
        env: String,
        env_server: String,
        context: String,
        context_server: String,
    },
    #[error(
        "no kubeconfig context points at {server} (environment '{env}'); contexts: {known}. Add one, or fix the env with `kf env set {env} --server`"
    )]
    NoContext {
        env: String,
        server: String,
        known: String,
    },
    #[error("{0}")]
    Api(String),
}

/// Rendered objects with kf's labels, ready to apply.
pub fn prepare(objects: &[RenderedObject], app: &str, env: &Environment) -> Vec<apply::Item> {
    objects
        .iter()
        .map(|o| {
            let mut obj = o.object.clone();
            labels::add(&mut obj, app, &env.name);
            apply::Item::new(obj)
        })
        .collect()
}
