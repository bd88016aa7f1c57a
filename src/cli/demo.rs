use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use kf::app::App;
use kf::app::create::{EnvOptions, add_env, init_app};
use kf::prototype::Given;
use kf::render::{RenderOptions, output};
use kf::workflow::component::generate;
use kf::workflow::params::{ParamTarget, SetOptions, set};

/// Build a throw-away app from the built-in prototypes and print its `prod` manifests.
#[derive(Args)]
#[command(
    after_help = "Example:\n  kf demo --keep /tmp/demo-app && cd /tmp/demo-app && kf show dev"
)]
pub struct DemoArgs {
    /// Keep the app in this (new) folder instead of a temporary one.
    #[arg(long, value_name = "DIR")]
    keep: Option<PathBuf>,
}

pub fn run(a: DemoArgs) -> Result<()> {
    let temp = tempfile::tempdir().context("cannot create a temporary folder")?;
    let root = a
        .keep
        .clone()
        .unwrap_or_else(|| temp.path().join("demo-app"));
    init_app(
        &root,
        &EnvOptions {
            name: "dev".into(),
            server: Some("https://dev.example.com:6443".into()),
            namespace: Some("ml-dev".into()),
            api_spec: None,
            is_override: false,
        },
    )?;
    let app = App::load(&root)?;
    add_env(
        &app,
        &EnvOptions {
            name: "prod".into(),
            server: Some("https://prod.example.com:6443".into()),
            namespace: Some("ml-prod".into()),
            api_spec: None,
            is_override: false,
        },
    )?;
    let app = App::load(&root)?;
    let catalog = super::generate::catalog(Some(&app))?;
    let raw = |pairs: &[(&str, &str)]| -> BTreeMap<String, Given> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Given::Raw(v.to_string())))
            .collect()
    };
    generate(
        &app,
        &catalog,
        "deployed-service",
        "model-ui",
        &raw(&[("image", "nginx:1.27"), ("servicePort", "8080")]),
    )?;
    generate(
        &app,
        &catalog,
        "configMap",
        "model-config",
        &raw(&[("data", r#"{"MODEL_NAME":"mnist","ENABLE_BATCHING":"yes"}"#)]),
    )?;
    generate(
        &app,
        &catalog,
        "tf-job",
        "mnist-train",
        // The default command trains kf's example (a ConfigMap holds the script).
        &raw(&[("numWorkers", "2")]),
    )?;
    let app = App::load(&root)?;
    generate(
        &app,
        &catalog,
        "tf-serving",
        "mnist",
        &raw(&[("modelBasePath", "gs://kubeflow-examples-data/mnist")]),
    )?;
    let app = App::load(&root)?;
    let prod = |component: &str, key: &str| ParamTarget {
        component: Some(component.into()),
        key: key.into(),
        env: Some("prod".into()),
    };
    let typed = SetOptions::default();
    let as_string = SetOptions {
        as_string: true,
        ..SetOptions::default()
    };
    set(&app, &prod("model-ui", "replicas"), "3", typed)?;
    set(
        &app,
        &prod("model-config", "data.MODEL_VERSION"),
        "1.10",
        as_string,
    )?;
    set(&app, &prod("mnist-train", "workerGpus"), "2", typed)?;
    set(
        &app,
        &prod("mnist-train", "gpuNodeSelector"),
        "cloud.google.com/gke-accelerator=nvidia-tesla-t4",
        typed,
    )?;
    set(&app, &prod("mnist", "numGpus"), "1", typed)?;
    let objects = kf::render::render(&app, "prod", &RenderOptions::default())?;
    print!("{}", output::to_yaml_stream(&objects));
    // On stderr, so that `kf demo > prod.yaml` stays a clean YAML stream.
    eprintln!("{}", summary(&objects, a.keep.as_deref()));
    Ok(())
}

/// What the demo rendered and what to try next: the last lines a new user reads.
fn summary(objects: &[kf::render::RenderedObject], kept: Option<&std::path::Path>) -> String {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for o in objects {
        let kind = o.object.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
        *kinds.entry(kind).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    // Each component once, in the order its first object is printed (a component's
    // objects need not be adjacent: they are sorted by kind).
    let mut components: Vec<&str> = Vec::new();
    for o in objects {
        if !components.contains(&o.component.as_str()) {
            components.push(&o.component);
        }
    }
    let next = match kept {
        Some(dir) => format!(
            "Next: cd {} && kf param diff dev prod && kf show dev -o name && kf validate prod",
            dir.display()
        ),
        None => {
            "Next: kf demo --keep ./demo-app > /dev/null && cd demo-app && kf param diff dev prod"
                .into()
        }
    };
    format!(
        "Rendered environment 'prod' of a demo app (components {}, with prod's replicas and GPUs): {} objects ({}).\n{next}",
        components.join(", "),
        objects.len(),
        kinds.join(", ")
    )
}
