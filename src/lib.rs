//! kf: ksonnet-style Jsonnet apps for machine-learning workloads on Kubernetes.
//!
//! The modules stand in layers and import downwards only: docs/dev/modules.md draws them,
//! and tests/architecture.rs holds the code to that drawing.

#[macro_use]
mod stderr;

pub mod app;
pub mod atomic;
pub mod cluster;
pub mod completion;
pub mod embedded;
pub mod engine;
pub mod k8s_version;
pub mod ksonnetlib;
pub mod message;
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
