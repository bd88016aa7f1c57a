//! kf: ksonnet-style Jsonnet apps for machine-learning workloads on Kubernetes.
//!
//! Layers, imported one way only: `cli → {app, prototype, params, render} → engine`.

#[macro_use]
mod stderr;

pub mod app;
pub mod cluster;
pub mod completion;
pub mod components;
pub mod docs;
pub mod embedded;
pub mod engine;
pub mod ksonnetlib;
pub mod params;
pub mod prototype;
pub mod registry;
pub mod render;
pub mod sandbox;
pub mod signing;
pub mod suggest;
pub mod userdir;
pub mod validate;
pub mod workflow;
