use std::collections::BTreeMap;
use std::io::Write;

use anyhow::{Result, anyhow};
use clap::Args;
use http::{Method, StatusCode};
use serde_json::Value;

use kf::cluster::client::{Cluster, Failure, RetryPolicy};
use kf::cluster::diff::{comparable, redact_secrets, unified, yaml};
use kf::cluster::resources::Resources;
use kf::cluster::select::connect;
use kf::render::RenderedObject;

use super::apply::{ClusterArgs, runtime};
use super::show::JsonnetArgs;
use super::{Context_, Exit, pick_env};

/// Show what `kf apply` would change, as a unified diff, or diff two environments' renders.
///
/// `kf diff ENV` asks the server for a dry-run apply of every object and compares it with
/// the live object (server-set fields such as managedFields, resourceVersion and status
/// left out). `kf diff local:dev local:prod` compares two renders with no cluster at all.
/// Secret values are shown as hashes unless --show-secrets is given. Exit status as
/// kubectl's: 0 no differences, 1 differences, 2 an error.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf diff --env prod\n  kf diff prod -c mnist-train --color=always | less -R\n  kf diff local:dev local:prod"
)]
pub struct DiffArgs {
    /// `ENV` (the cluster against the render) or `local:ENV1 local:ENV2` (two renders).
    #[arg(num_args = 0..=2)]
    sides: Vec<String>,
    #[arg(long)]
    env: Option<String>,
    #[command(flatten)]
    jsonnet: JsonnetArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Colour the diff: auto (on a terminal), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
    /// Print Secret values instead of their hashes.
    #[arg(long)]
    show_secrets: bool,
}

fn key(o: &Value) -> String {
    format!(
        "{}/{}/{}/{}",
        o["apiVersion"].as_str().unwrap_or_default(),
        o["kind"].as_str().unwrap_or_default(),
        o["metadata"]["namespace"].as_str().unwrap_or_default(),
        o["metadata"]["name"].as_str().unwrap_or_default()
    )
}

fn print_diffs(diffs: &[String], color: &str) -> Result<()> {
    let choice = match color {
        "always" => anstream::ColorChoice::Always,
        "never" => anstream::ColorChoice::Never,
        _ => anstream::ColorChoice::Auto,
    };
    let mut out = anstream::AutoStream::new(std::io::stdout(), choice);
    let red = anstyle::AnsiColor::Red.on_default();
    let green = anstyle::AnsiColor::Green.on_default();
    let cyan = anstyle::AnsiColor::Cyan.on_default();
    let bold = anstyle::Style::new().bold();
    for d in diffs {
        for line in d.lines() {
            let style = if line.starts_with("+++") || line.starts_with("---") {
                bold
            } else if line.starts_with('+') {
                green
            } else if line.starts_with('-') {
                red
            } else if line.starts_with("@@") {
                cyan
            } else {
                anstyle::Style::new()
            };
            writeln!(out, "{style}{line}{style:#}")?;
        }
    }
    Ok(())
}

pub fn run(ctx: &Context_, a: DiffArgs) -> Result<()> {
    match diff(ctx, &a) {
        Ok(diffs) => {
            print_diffs(&diffs, &a.color).map_err(|e| Exit::error(2, e))?;
            if diffs.is_empty() {
                Ok(())
            } else {
                Err(Exit::silent(1).into())
            }
        }
        Err(e) => Err(Exit::error(2, e).into()),
    }
}

fn diff(ctx: &Context_, a: &DiffArgs) -> Result<Vec<String>> {
    let app = ctx.app()?;
    let redact = |v: &Value| {
        if a.show_secrets {
            v.clone()
        } else {
            redact_secrets(v)
        }
    };
    let locals: Vec<&str> = a
        .sides
        .iter()
        .filter_map(|s| s.strip_prefix("local:"))
        .collect();
    if !locals.is_empty() {
        let [left, right] = locals.as_slice() else {
            return Err(anyhow!(
                "give two renders to compare: kf diff local:ENV1 local:ENV2"
            ));
        };
        if a.sides.len() != 2 {
            return Err(anyhow!(
                "give two renders to compare: kf diff local:ENV1 local:ENV2"
            ));
        }
        let side = |env: &str| -> Result<BTreeMap<String, Value>> {
            Ok(a.jsonnet
                .render(ctx, &app, env)?
                .into_iter()
                .map(|o: RenderedObject| {
                    let v = Value::Object(o.object);
                    (key(&v), redact(&v))
                })
                .collect())
        };
        let (l, r) = (side(left)?, side(right)?);
        let mut keys: Vec<&String> = l.keys().chain(r.keys()).collect();
        keys.sort();
        keys.dedup();
        return Ok(keys
            .into_iter()
            .filter_map(|k| {
                unified(
                    &yaml(l.get(k)),
                    &yaml(r.get(k)),
                    &format!("{left}/{k}"),
                    &format!("{right}/{k}"),
                )
            })
            .collect());
    }
    if a.sides.len() > 1 {
        return Err(anyhow!(
            "kf diff takes one environment, or local:ENV1 local:ENV2"
        ));
    }
    let env_name = pick_env(&app, a.sides.first().cloned(), a.env.clone())?;
    let env = app.environment(&env_name)?;
    let objects = a.jsonnet.render(ctx, &app, &env_name)?;
    let items = kf::cluster::prepare(&objects, &app.spec.name, &env);
    let connect_options = a.cluster.connect_options(ctx);
    runtime()?.block_on(async {
        let (client, _) = connect(&env, &connect_options).await?;
        let cluster = Cluster::new(client, RetryPolicy::default());
        let resources = Resources::discover(cluster.kube()).await?;
        let mut diffs = Vec::new();
        for mut item in items {
            let Some(res) = resources.resolve(&item.api_version, &item.kind) else {
                // A kind the cluster does not serve yet: all of it is new.
                let planned = Value::Object(item.object.clone());
                diffs.extend(unified(
                    "",
                    &yaml(Some(&redact(&planned))),
                    "live/(none)",
                    &format!("kf/{}", key(&planned)),
                ));
                continue;
            };
            let ns = item.namespace_for(&res, &env.namespace);
            if let Some(Value::Object(m)) = item.object.get_mut("metadata") {
                match &ns {
                    Some(n) => m.insert("namespace".into(), Value::String(n.clone())),
                    None => m.remove("namespace"),
                };
            }
            let path = res.path(ns.as_deref(), Some(&item.name));
            let live = match cluster.get(&path).await {
                Ok(r) => Some(r.body),
                Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => None,
                Err(e) => return Err(anyhow!("{}/{}: {e}", res.kind_name(), item.name)),
            };
            let body = serde_json::to_vec(&item.object)?;
            let planned = cluster
                .request(
                    Method::PATCH,
                    &format!("{path}?fieldManager=kf&force=true&dryRun=All"),
                    Some("application/apply-patch+yaml"),
                    body,
                )
                .await
                .map_err(|e| anyhow!("{}/{}: {e}", res.kind_name(), item.name))?
                .body;
            let name = format!(
                "{}/{}{}",
                res.kind_name(),
                ns.map(|n| format!("{n}/")).unwrap_or_default(),
                item.name
            );
            let left = live.as_ref().map(|l| redact(&comparable(l)));
            let right = redact(&comparable(&planned));
            diffs.extend(unified(
                &yaml(left.as_ref()),
                &yaml(Some(&right)),
                &format!("live/{name}"),
                &format!("kf/{name}"),
            ));
        }
        Ok(diffs)
    })
}
