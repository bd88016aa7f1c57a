//! The flags every cluster command shares (kubectl's names), and what they all need:
//! the connection, the environment as the flags have it, the owner, durations, the runtime.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use kf::app::Environment;
use kf::cluster::apply::DryRun;
use kf::cluster::client::{Cluster, RetryPolicy};
use kf::cluster::ownership::Owner;
use kf::cluster::select::{ConnectOptions, connect};

use super::Context_;

/// How to reach the cluster, and kubectl's flags for it (shared by the cluster commands).
#[derive(Args, Clone)]
pub struct ClusterArgs {
    /// Kubeconfig file (default: KUBECONFIG, else ~/.kube/config; in a pod without either,
    /// the pod's service account).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<std::path::PathBuf>,
    /// Kubeconfig context to use; it must point at the environment's server.
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Server-side apply field manager (default: kf-<app>-<env>). Prune and delete only
    /// remove objects this manager applied.
    #[arg(long, value_name = "NAME")]
    field_manager: Option<String>,
    /// The whole command's time limit, retries and waits included: 30s, 5m, 1h…
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = parse_duration)]
    pub timeout: Duration,
    /// The longest one request waits for its reply before it is retried.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_duration)]
    request_timeout: Duration,
}

impl ClusterArgs {
    pub fn connect_options(&self, ctx: &Context_) -> ConnectOptions {
        ConnectOptions {
            kubeconfig: self.kubeconfig.as_ref().map(|p| ctx.cwd.join(p)),
            context: self.context.clone(),
            request_timeout: Some(self.request_timeout),
        }
    }

    /// The environment as the flags have it (`-n`, a render flag, replaces its namespace).
    pub fn environment(&self, mut env: Environment, namespace: Option<&str>) -> Environment {
        if let Some(ns) = namespace {
            env.namespace = ns.to_string();
        }
        env
    }

    pub fn owner(&self, app: &kf::app::AppSpec, env: &Environment) -> Owner {
        Owner::new(
            &app.name,
            app.id.as_deref(),
            &env.name,
            self.field_manager.as_deref(),
        )
    }

    /// Connect to the env's cluster; every request from here on counts against --timeout.
    pub async fn connect(&self, ctx: &Context_, env: &Environment) -> Result<Cluster> {
        let started = std::time::Instant::now();
        let policy = RetryPolicy {
            request_timeout: self.request_timeout,
            ..RetryPolicy::default()
        };
        let (client, endpoint) = connect(env, &self.connect_options(ctx)).await?;
        let cluster = Cluster::new(client, policy)
            .with_endpoint(endpoint)
            .with_timeout(self.timeout, started);
        let version = kf::cluster::version::of_server(&cluster).await;
        if let Some((server, git)) = &version
            && let Some(w) = kf::cluster::version::skew(&env.name, &env.k8s_version, *server, git)
        {
            eprintln!("warning: {w}");
        }
        Ok(cluster.with_version(version.map(|(v, _)| v)))
    }
}

/// `90`, `30s`, `5m`, `1h`, `1m30s`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || format!("'{s}' is not a duration; use e.g. 30s, 5m or 1h");
    if s.is_empty() {
        return Err(bad());
    }
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let mut total = 0u64;
    let mut number = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let n: u64 = number.parse().map_err(|_| bad())?;
        number.clear();
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            _ => return Err(bad()),
        };
        total = n
            .checked_mul(unit)
            .and_then(|x| total.checked_add(x))
            .ok_or_else(bad)?;
    }
    if !number.is_empty() {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// `--dry-run`'s value (clap has already limited it to none|client|server).
pub fn dry_run_mode(value: &str) -> DryRun {
    match value {
        "server" => DryRun::Server,
        "client" => DryRun::Client,
        _ => DryRun::None,
    }
}

pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// An app without an id shares its objects with every other app of its name in the same
/// namespace (kfctl named them all `ks_app`): say so, and how to fix it, on the verbs that
/// change the cluster.
pub fn warn_without_app_id(app: &kf::app::AppSpec) {
    if app.id.is_none() {
        eprintln!(
            "warning: app '{}' has no id in app.yaml, so another app named '{}' applying to the same namespace and environment would take over and prune these objects; run `kf upgrade` and commit app.yaml",
            app.name, app.name
        );
    }
}
