use std::collections::BTreeMap;
use std::io::Write;

use anyhow::{Result, anyhow};
use clap::Args;
use http::{Method, StatusCode};
use serde_json::Value;

use futures::StreamExt;
use kf::cluster::apply::Item;
use kf::cluster::client::{Cluster, Failure};
use kf::cluster::diff::{comparable, mask_secrets, unified, yaml};
use kf::cluster::ownership::Owner;
use kf::cluster::prune;
use kf::cluster::resources::Resource;
use kf::cluster::resources::Resources;
use kf::render::RenderedObject;

use super::cluster_args::{ClusterArgs, runtime};
use super::show::JsonnetArgs;
use super::{Context_, Exit, pick_env};

/// Show what `kf apply` would change, as a unified diff, or diff two environments' renders.
///
/// `kf diff ENV` asks the server for a dry-run apply of every object and compares it with
/// the live object (server-set fields such as managedFields, resourceVersion and status
/// left out); with --prune, the objects `kf apply --prune` would delete show as removals.
/// `kf diff local:dev local:prod` compares two renders with no cluster at all, pairing
/// objects by group, kind and name (the envs' namespaces may differ). Secret values are
/// shown as `***` (kubectl's mask) unless --show-secrets is given. Exit status as
/// kubectl's: 0 no differences, 1 differences, 2 an error.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf diff --env prod\n  kf diff prod -c mnist-train --color=always | less -R\n  kf diff local:dev local:prod"
)]
pub struct DiffArgs {
    /// `ENV` (the cluster against the render) or `local:ENV1 local:ENV2` (two renders).
    #[arg(num_args = 0..=2)]
    sides: Vec<String>,
    /// Environment whose cluster is compared with its render (the same as `kf diff ENV`).
    #[arg(long, value_name = "ENV")]
    env: Option<String>,
    #[command(flatten)]
    jsonnet: JsonnetArgs,
    #[command(flatten)]
    cluster: ClusterArgs,
    /// Colour the diff: auto (on a terminal), always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"])]
    color: String,
    /// Print Secret values instead of `***`.
    #[arg(long)]
    show_secrets: bool,
    /// Also show, as removals, the objects `kf apply --prune` would delete.
    #[arg(long)]
    prune: bool,
    /// Objects asked about at once (a GET and a dry-run apply each), as `kf apply`.
    #[arg(long, value_name = "N", default_value_t = 8)]
    concurrency: usize,
}

/// One object of `kf diff ENV`: the diff already known (a kind the cluster does not
/// serve), or the resource, the object and its namespace to ask the server about.
enum Job {
    Ready(Option<String>),
    Server(Box<(Resource, Item, Option<String>)>),
}

/// The live object against the server's dry-run apply of `item`.
async fn server_diff(
    cluster: &Cluster,
    owner: &Owner,
    show_secrets: bool,
    res: &Resource,
    item: &Item,
    ns: Option<&str>,
) -> Result<Option<String>> {
    let path = res.path(ns, Some(&item.name));
    let id = format!(
        "{}/{}{}",
        res.kind_name(),
        item.name,
        ns.map(|n| format!(" -n {n}")).unwrap_or_default()
    );
    let live = match cluster.get(&path).await {
        Ok(r) => Some(r.body),
        Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => None,
        Err(e) => return Err(anyhow!("{id}: reading the live object: {e}")),
    };
    let body = serde_json::to_vec(&item.object)?;
    let planned = cluster
        .request(
            Method::PATCH,
            &format!(
                "{path}?fieldManager={}&force=true&dryRun=All",
                prune::encode(&owner.field_manager)
            ),
            Some("application/apply-patch+yaml"),
            body,
        )
        .await
        .map_err(|e| anyhow!("{id}: server dry-run apply: {e}"))?
        .body;
    let name = format!(
        "{}/{}{}",
        res.kind_name(),
        ns.map(|n| format!("{n}/")).unwrap_or_default(),
        item.name
    );
    let left = live.as_ref().map(comparable);
    let right = comparable(&planned);
    let (left, right) = masked(show_secrets, left.as_ref(), Some(&right));
    Ok(unified(
        &yaml(left.as_ref()),
        &yaml(right.as_ref()),
        &format!("live/{name}"),
        &format!("kf/{name}"),
    ))
}

/// Secret values as `***` unless `show_secrets`.
fn masked(
    show_secrets: bool,
    l: Option<&Value>,
    r: Option<&Value>,
) -> (Option<Value>, Option<Value>) {
    if show_secrets {
        (l.cloned(), r.cloned())
    } else {
        mask_secrets(l, r)
    }
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

/// How two renders' objects are paired: group, kind and name — not the version (a
/// v1beta1 → v1 move is a change of one object) nor the namespace (two envs usually
/// deploy to different ones).
fn pairing_key(o: &Value) -> String {
    let api_version = o["apiVersion"].as_str().unwrap_or_default();
    let group = api_version.split_once('/').map(|(g, _)| g).unwrap_or("");
    let kind = o["kind"].as_str().unwrap_or_default().to_ascii_lowercase();
    let kind = if group.is_empty() {
        kind
    } else {
        format!("{kind}.{group}")
    };
    format!(
        "{kind}/{}",
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
            match writeln!(out, "{style}{line}{style:#}") {
                Ok(()) => {}
                // The reader has gone (`kf diff | head`): the exit status still tells.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => return Err(e.into()),
            }
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
    let mask = |l: Option<&Value>, r: Option<&Value>| masked(a.show_secrets, l, r);
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
                    (pairing_key(&v), v)
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
                let (lv, rv) = mask(l.get(k), r.get(k));
                let name = |env: &str, v: Option<&Value>| match v {
                    Some(v) => format!("{env}/{}", key(v)),
                    None => format!("{env}/(none)"),
                };
                unified(
                    &yaml(lv.as_ref()),
                    &yaml(rv.as_ref()),
                    &name(left, l.get(k)),
                    &name(right, r.get(k)),
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
    let env = a
        .cluster
        .environment(app.environment(&env_name)?, a.jsonnet.namespace());
    let owner = a.cluster.owner(&app.spec, &env);
    let objects = a.jsonnet.render(ctx, &app, &env_name)?;
    let selected = a.jsonnet.components().to_vec();
    let components = (!selected.is_empty()).then(|| {
        selected
            .iter()
            .cloned()
            .chain(objects.iter().map(|o| o.component.clone()))
            .collect()
    });
    let items = kf::cluster::prepare(&objects, &owner, &env);
    runtime()?.block_on(async {
        let cluster = a.cluster.connect(ctx, &env).await?;
        let resources = Resources::discover(&cluster).await?;
        let mut keep = std::collections::BTreeSet::new();
        let mut jobs = Vec::new();
        for mut item in items {
            let Some(res) = resources.resolve(&item.api_version, &item.kind) else {
                // A kind the cluster does not serve yet: all of it is new.
                let planned = Value::Object(item.object.clone());
                let (_, right) = mask(None, Some(&planned));
                jobs.push(Job::Ready(unified(
                    "",
                    &yaml(right.as_ref()),
                    "live/(none)",
                    &format!("kf/{}", key(&planned)),
                )));
                continue;
            };
            let ns = item.namespace_for(&res, &env.namespace);
            keep.insert((
                String::new(),
                res.api.kind.clone(),
                ns.clone().unwrap_or_default(),
                item.name.clone(),
            ));
            if let Some(Value::Object(m)) = item.object.get_mut("metadata") {
                match &ns {
                    Some(n) => m.insert("namespace".into(), Value::String(n.clone())),
                    None => m.remove("namespace"),
                };
            }
            jobs.push(Job::Server(Box::new((res, item, ns))));
        }
        // A GET and a dry-run PATCH per object, as many at once as apply makes; the
        // diffs come out in the objects' order whichever answer arrives first.
        let cluster = &cluster;
        let owner = &owner;
        let per_object: Vec<Result<Option<String>>> = futures::stream::iter(jobs)
            .map(|job| async move {
                match job {
                    Job::Ready(diff) => Ok(diff),
                    Job::Server(job) => {
                        let (res, item, ns) = *job;
                        let show = a.show_secrets;
                        server_diff(cluster, owner, show, &res, &item, ns.as_deref()).await
                    }
                }
            })
            .buffered(a.concurrency.max(1))
            .collect()
            .await;
        let mut diffs = Vec::new();
        for diff in per_object {
            diffs.extend(diff?);
        }
        if a.prune {
            let scope = prune::Scope {
                keep,
                components,
                namespace: env.namespace.clone(),
            };
            let found = prune::candidates(cluster, &resources, owner, &scope).await?;
            if let Some(w) = found.warning(&env.namespace) {
                eprintln!("warning: {w}");
            }
            for f in found.found {
                let path = f.resource.path(f.namespace.as_deref(), Some(&f.name));
                let live = match cluster.get(&path).await {
                    Ok(r) => r.body,
                    Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => continue,
                    Err(e) => return Err(anyhow!("{}: reading the live object: {e}", f.id())),
                };
                let name = format!(
                    "{}/{}{}",
                    f.resource.kind_name(),
                    f.namespace
                        .as_deref()
                        .map(|n| format!("{n}/"))
                        .unwrap_or_default(),
                    f.name
                );
                let (left, _) = mask(Some(&comparable(&live)), None);
                diffs.extend(unified(
                    &yaml(left.as_ref()),
                    "",
                    &format!("live/{name}"),
                    &format!("kf/{name} (pruned)"),
                ));
            }
        }
        Ok(diffs)
    })
}
