//! The cluster side: choosing the cluster an environment names, discovery, and
//! server-side apply. Rendering happens before any of this (the Jsonnet state is
//! thread-local and not `Send`); this module only sees JSON objects.

pub mod apply;
pub mod applyset;
pub mod client;
pub mod diff;
pub mod events;
pub mod field_check;
pub mod item;
pub mod labels;
pub mod namespace;
pub mod outcome;
pub mod ownership;
pub mod prune;
pub mod query;
pub mod redact;
pub mod resources;
pub mod select;
pub mod status;
pub mod throttle;
pub mod tier;
pub mod version;

use crate::app::Environment;
use crate::render::RenderedObject;
use client::Failure;
use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("no context '{name}' in the kubeconfig{hint}")]
    UnknownContext { name: String, hint: String },
    #[error(
        "several kubeconfig contexts point at {server} (environment '{env}'): {contexts}; pick one with --context"
    )]
    SeveralContexts {
        server: String,
        env: String,
        contexts: String,
    },
    #[error("cannot read the token file {file} named by the kubeconfig: {source}")]
    TokenFile {
        file: String,
        source: crate::sandbox::ReadError,
    },
    /// `why` is redacted: a parser's message may quote the token.
    #[error("token file {file}: {why}")]
    BadToken { file: String, why: String },
    #[error(
        "no kubeconfig, and the in-cluster config (KUBERNETES_SERVICE_HOST and the service account token) cannot be used: {why}; pass --kubeconfig"
    )]
    InCluster { why: String },
    #[error("in-cluster config: {why}")]
    InClusterClient { why: String },
    #[error("cannot read kubeconfig {}: {why}; pass another with --kubeconfig", .path.display())]
    Kubeconfig {
        path: std::path::PathBuf,
        why: String,
    },
    #[error("cannot read a kubeconfig (KUBECONFIG or ~/.kube/config): {why}; pass --kubeconfig")]
    NoKubeconfig { why: String },
    #[error("context '{context}': {why}")]
    Context { context: String, why: String },
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
        "no kubeconfig context points at {server} (environment '{env}'); {known}. Add one, or fix the env with `kf env set {env} --server`"
    )]
    NoContext {
        env: String,
        server: String,
        known: String,
    },
    #[error(
        "no API server for environment '{env}' (context '{context}'): {source}; start it, or point the env (`kf env set {env} --server`) or --context at one that runs"
    )]
    Unreachable {
        env: String,
        context: String,
        source: Failure,
    },
    #[error("{source}; check the server is up and the credentials may list API groups")]
    Discovery { source: Failure },
    #[error("checking namespace {name}: {source}")]
    NamespaceCheck { name: String, source: Failure },
    #[error(
        "namespace {name} does not exist on the cluster; create it (`kubectl create namespace {name}`), pass --create-namespace, or render it (`kf generate namespace {name} --name={name}`)"
    )]
    NoNamespace { name: String },
    #[error("creating namespace {name}: {source}")]
    NamespaceCreate { name: String, source: Failure },
    #[error("listing {kind} for prune: {source}; nothing was pruned")]
    PruneList { kind: String, source: Failure },
    #[error("reading the API server's spec of environment '{env}' (GET /openapi/v2): {source}")]
    ServerSpec { env: String, source: Failure },
    #[error("{0}")]
    ServerSpecJson(#[from] serde_json::Error),
}

/// Rendered objects with kf's labels (of `owner`'s app and env) and the env's ApplySet
/// label, ready to apply.
pub fn prepare(
    objects: &[RenderedObject],
    owner: &ownership::Owner,
    env: &Environment,
) -> Vec<item::Item> {
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
            item::Item::new(obj)
        })
        .collect()
}
