use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use kf::prototype::{Catalog, Given, Prototype, instantiate};
use kf::workflow::component::generate;

use super::{Context_, table};

/// Create a component from a prototype: `kf generate <prototype> <component> [--<param>=<value>…]`.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  kf generate deployed-service web --image=nginx:1.27 --replicas=2\n  kf generate configMap settings --data='{\"mode\":\"fast\"}'"
)]
pub struct GenerateArgs {
    /// Prototype name, or a unique suffix of it (`deployed-service`).
    prototype: String,
    /// Name of the new component.
    component: String,
    /// A YAML or JSON file of param values (flags win over it).
    #[arg(long, value_name = "FILE")]
    values_file: Option<PathBuf>,
    /// Prototype params: `--name=value` or `--name value`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PARAMS"
    )]
    params: Vec<String>,
}

/// Find, inspect and use prototypes.
#[derive(Subcommand)]
pub enum PrototypeCommand {
    /// List every prototype.
    #[command(after_help = "Examples:\n  kf prototype list\n  kf prototype list -o json")]
    List {
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
    },
    /// Show a prototype's description and params.
    #[command(after_help = "Example:\n  kf prototype describe deployed-service")]
    Describe {
        /// Prototype name, or a unique suffix of it.
        name: String,
    },
    /// Print the component a prototype would generate, without writing it.
    #[command(
        after_help = "Example:\n  kf prototype preview deployed-service --name=web --image=nginx"
    )]
    Preview {
        /// Prototype name, or a unique suffix of it.
        name: String,
        /// The prototype's params, as --name=value.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "PARAMS"
        )]
        params: Vec<String>,
    },
    /// Search prototypes by name or description.
    #[command(after_help = "Example:\n  kf prototype search service")]
    Search {
        /// Text to find in prototype names and descriptions.
        query: String,
        /// Output format: table, wide, json or yaml.
        #[arg(short = 'o', long, default_value = "table", value_parser = table::LIST_OUTPUTS)]
        output: String,
    },
    /// Same as `kf generate`.
    #[command(
        after_help = "Example:\n  kf prototype use single-port-service web-svc --targetLabelSelector='{\"app\":\"web\"}'"
    )]
    Use(GenerateArgs),
}

/// The prototypes available in `app` (built-in ones and its vendored packages').
pub fn catalog(app: Option<&kf::app::App>) -> Result<Catalog> {
    Ok(Catalog::for_app(app)?)
}

/// `--a=1 --b 2` → {a: "1", b: "2"}.
fn parse_params(args: &[String]) -> Result<BTreeMap<String, Given>> {
    parse_params_and_files(args).map(|(p, _)| p)
}

/// Prototype params, plus any `--values-file` given after them (the trailing params
/// capture everything after the component name).
fn parse_params_and_files(args: &[String]) -> Result<(BTreeMap<String, Given>, Vec<PathBuf>)> {
    let mut files = Vec::new();
    let mut out = BTreeMap::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let Some(flag) = arg.strip_prefix("--") else {
            let habit = if arg == "-f" {
                format!("\n\nkf's way: {}", super::habits::VALUES_FILE)
            } else {
                String::new()
            };
            bail!(
                "unexpected argument '{arg}': prototype params are given as --<param>=<value>{habit}"
            );
        };
        let (name, value) = match flag.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => {
                let Some(v) = args.get(i + 1) else {
                    bail!("--{flag} needs a value");
                };
                i += 1;
                (flag.to_string(), v.clone())
            }
        };
        if name.is_empty() {
            bail!("empty param name in '{arg}'");
        }
        if name == "values-file" {
            files.push(PathBuf::from(value));
        } else if name == "env" {
            // `--env` is kf's environment flag on every command, never a prototype param.
            bail!(
                "--env names an environment, and a generated component belongs to every environment: generate without it, then `kf param set <component> <param> <value> --env {value}` for values of that environment only. Container environment variables are --envVars"
            );
        } else {
            out.insert(name, Given::Raw(value));
        }
        i += 1;
    }
    Ok((out, files))
}

fn values_file(path: &std::path::Path) -> Result<BTreeMap<String, Given>> {
    let text = kf::sandbox::read_named(path, kf::sandbox::RENDER_FILE_CAP)?;
    let value: serde_json::Value = serde_saphyr::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not valid YAML/JSON: {}",
            path.display(),
            e.to_string().lines().next().unwrap_or("")
        )
    })?;
    let serde_json::Value::Object(map) = value else {
        bail!(
            "{}: must be a mapping of param names to values",
            path.display()
        );
    };
    Ok(map.into_iter().map(|(k, v)| (k, Given::Typed(v))).collect())
}

pub fn run_generate(ctx: &Context_, a: GenerateArgs) -> Result<()> {
    let (app, _lock) = ctx.app_for(true)?;
    let (flags, late_files) = parse_params_and_files(&a.params)?;
    let mut given = BTreeMap::new();
    for f in a.values_file.iter().chain(late_files.iter()) {
        let path = if f.is_absolute() {
            f.clone()
        } else {
            ctx.cwd.join(f)
        };
        given.extend(values_file(&path)?);
    }
    given.extend(flags);
    refuse_non_kubernetes_names(&a.component, &given)?;
    let catalog = catalog(Some(&app))?;
    generate(&app, &catalog, &a.prototype, &a.component, &given)?;
    println!(
        "Generated component '{}' (components/{}.jsonnet)",
        a.component, a.component
    );
    if let Ok(p) = catalog.find(&a.prototype)
        && let Some((oldest, api)) = &p.kubernetes
    {
        for e in app
            .environments()
            .iter()
            .filter(|e| !p.served_by(&e.k8s_version))
        {
            eprintln!(
                "warning: {} makes {api}, which Kubernetes {} (environment '{}') does not serve (it needs {oldest} or newer): `kf validate {}` refuses it; `kf env set {} --api-spec version:<newer>` moves the environment",
                p.short_name(),
                e.k8s_version,
                e.name,
                e.name,
                e.name
            );
        }
    }
    Ok(())
}

/// The component name becomes the objects' names (unless `--name` says otherwise), and
/// the API server rejects a name that is not a DNS-1123 label (`Bad_Name`): refuse it
/// now rather than at `kf apply`.
fn refuse_non_kubernetes_names(component: &str, given: &BTreeMap<String, Given>) -> Result<()> {
    // What no component file may be called (`../evil`) is said first, in the app's words.
    kf::app::validate_component_name(component)?;
    let explicit = match given.get("name") {
        Some(Given::Raw(name)) => Some(name.as_str()),
        Some(Given::Typed(serde_json::Value::String(name))) => Some(name.as_str()),
        _ => None,
    };
    let (what, name) = match explicit {
        Some(name) => ("--name", name),
        None => ("component name", component),
    };
    if let Some(problem) = kf::validate::dns1123_label_problem(name) {
        bail!("{what}: {problem}; Kubernetes would reject objects with this name");
    }
    Ok(())
}

fn describe(p: &Prototype) -> String {
    let flag = |name: &str| format!("--{name}=<{name}>");
    // ksonnet pads each block (required, optional) to its own widest flag.
    let group = |params: Vec<&kf::prototype::ParamSpec>| {
        if params.is_empty() {
            return "  [none]".to_string();
        }
        let width = params
            .iter()
            .map(|x| flag(&x.name).len())
            .max()
            .unwrap_or(0);
        params
            .iter()
            .map(|x| {
                let facts = match &x.default {
                    Some(d) => format!("[default: {d}, type: {}]", x.kind.as_str()),
                    None => format!("[type: {}]", x.kind.as_str()),
                };
                format!("  {:<width$} {} {facts}", flag(&x.name), x.description)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    // ksonnet's layout, with kf's REQUIRES block only where a prototype declares one.
    let items: Vec<String> = p
        .requirements()
        .iter()
        .map(|r| format!("  - {r}"))
        .collect();
    let requires = if items.is_empty() {
        String::new()
    } else {
        format!("REQUIRES:\n{}\n\n", items.join("\n"))
    };
    format!(
        "PROTOTYPE NAME:\n{}\n\nDESCRIPTION:\n{}\n\n{requires}REQUIRED PARAMETERS:\n{}\n\nOPTIONAL PARAMETERS:\n{}\n\nTEMPLATE TYPES AVAILABLE:\n  [jsonnet]\n",
        p.name,
        p.description,
        group(p.required().collect()),
        group(p.optional().collect()),
    )
}

pub fn run_prototype(ctx: &Context_, cmd: PrototypeCommand) -> Result<()> {
    let app = ctx.app().ok();
    let catalog = catalog(app.as_ref())?;
    match cmd {
        PrototypeCommand::List { output } => {
            // A prototype whose kinds no environment's Kubernetes serves is left out.
            let rows: Vec<Vec<String>> = catalog
                .prototypes
                .values()
                .filter(|p| p.offered_to(app.as_ref()))
                .map(|p| vec![p.name.clone(), p.short_description.clone()])
                .collect();
            table::print("prototypes", &["NAME", "DESCRIPTION"], &rows, &output);
        }
        PrototypeCommand::Describe { name } => print!("{}", describe(catalog.find(&name)?)),
        PrototypeCommand::Search { query, output } => {
            let rows: Vec<Vec<String>> = catalog
                .search(&query)
                .iter()
                .filter(|p| p.offered_to(app.as_ref()))
                .map(|p| vec![p.name.clone(), p.short_description.clone()])
                .collect();
            if rows.is_empty() {
                bail!("no prototype matches '{query}'; `kf prototype list` shows them all");
            }
            table::print("prototypes", &["NAME", "DESCRIPTION"], &rows, &output);
        }
        PrototypeCommand::Preview { name, params } => {
            let proto = catalog.find(&name)?;
            let given = parse_params(&params)?;
            let component = match given.get("name") {
                Some(Given::Raw(n)) => n.clone(),
                _ => proto.short_name().to_string(),
            };
            let instance = instantiate(proto, &component, &given)?;
            let fields: Vec<String> = instance
                .params
                .iter()
                .map(|(k, v)| format!("  {}: {v},", kf::params::value::render_key(k)))
                .collect();
            println!(
                "// params of component '{component}'\n{{\n{}\n}}\n",
                fields.join("\n")
            );
            print!("{}", instance.source);
        }
        PrototypeCommand::Use(a) => run_generate(ctx, a)?,
    }
    Ok(())
}
