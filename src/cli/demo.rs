use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use kf::app::App;
use kf::app::create::{EnvOptions, add_env, init_app};
use kf::params::ops::{ParamTarget, set};
use kf::prototype::Given;
use kf::prototype::generate::generate;
use kf::render::{RenderOptions, output};

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
        &raw(&[
            ("numWorkers", "2"),
            ("args", r#"["python","/opt/mnist.py"]"#),
        ]),
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
    set(&app, &prod("model-ui", "replicas"), "3", false)?;
    set(
        &app,
        &prod("model-config", "data.MODEL_VERSION"),
        "1.10",
        true,
    )?;
    set(&app, &prod("mnist-train", "workerGpus"), "2", false)?;
    set(
        &app,
        &prod("mnist-train", "gpuNodeSelector"),
        "cloud.google.com/gke-accelerator=nvidia-tesla-t4",
        false,
    )?;
    set(&app, &prod("mnist", "numGpus"), "1", false)?;
    let objects = kf::render::render(&app, "prod", &RenderOptions::default())?;
    print!("{}", output::to_yaml_stream(&objects));
    if let Some(dir) = a.keep {
        eprintln!(
            "The demo app is in {}; try `kf param diff dev prod` there.",
            dir.display()
        );
    }
    Ok(())
}
