//! The cluster side: choosing the cluster an environment names, discovery, and
//! server-side apply. Rendering happens before any of this (the Jsonnet state is
//! thread-local and not `Send`); this module only sees JSON objects.

pub mod apply;
pub mod applyset;
pub mod client;
pub mod diff;
pub mod events;
pub mod field_check;
pub mod labels;
pub mod namespace;
pub mod ownership;
pub mod prune;
pub mod redact;
pub mod resources;
pub mod select;
pub mod status;
pub mod version;

use crate::app::Environment;
use crate::render::RenderedObject;
use serde_json::Value;

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

/// Rendered objects with kf's labels (of `owner`'s app and env) and the env's ApplySet
/// label, ready to apply.
pub fn prepare(
    objects: &[RenderedObject],
    owner: &ownership::Owner,
    env: &Environment,
) -> Vec<apply::Item> {
    let app = owner.app.as_str();
    let set = applyset::ApplySet::of(owner, &env.namespace).id();
    objects
        .iter()
        .map(|o| {
            let mut obj = o.object.clone();
            labels::add(&mut obj, app, owner.app_id.as_deref(), &env.name);
            if let Some(Value::Object(l)) =
                obj.get_mut("metadata").and_then(|m| m.get_mut("labels"))
            {
                l.insert(applyset::PART_OF.into(), Value::String(set.clone()));
            }
            apply::Item::new(obj)
        })
        .collect()
}
