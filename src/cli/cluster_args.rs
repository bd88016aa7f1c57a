//! The flags every cluster command shares (kubectl's names), and what they all need:
//! the connection, the target as the flags have it, durations, the runtime.

use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use kf::cluster::outcome::DryRun;
use kf::cluster::select::ConnectOptions;
use kf::workflow::{Connection, Target};

use super::Context_;
use super::show::{JsonnetArgs, Rendered};

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
    /// How to reach the env's cluster, as the flags say.
    pub fn connection(&self, ctx: &Context_) -> Connection {
        Connection {
            connect: ConnectOptions {
                kubeconfig: self.kubeconfig.as_ref().map(|p| ctx.cwd.join(p)),
                context: self.context.clone(),
                request_timeout: Some(self.request_timeout),
            },
            timeout: self.timeout,
        }
    }

    /// The rendered env as the cluster verbs act on it: `-n` (a render flag) replaces
    /// its namespace, `--field-manager` kf's own.
    pub fn target(&self, rendered: &Rendered, jsonnet: &JsonnetArgs) -> Result<Target> {
        let mut env = rendered.app.environment(&rendered.env)?;
        if let Some(ns) = jsonnet.namespace() {
            env.namespace = ns.to_string();
        }
        Ok(Target::new(
            &rendered.app.spec,
            env,
            &rendered.objects,
            jsonnet.components(),
            self.field_manager.as_deref(),
        ))
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

/// `--cascade`'s value (clap allows only these).
pub fn cascade_mode(value: &str) -> kf::cluster::prune::Cascade {
    use kf::cluster::prune::Cascade;
    match value {
        "background" => Cascade::Background,
        "foreground" => Cascade::Foreground,
        "orphan" => Cascade::Orphan,
        _ => Cascade::Auto,
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
