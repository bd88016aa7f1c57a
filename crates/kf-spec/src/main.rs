//! Writes the Kubernetes v1.33 API spec kf carries for new apps
//! (`schemas/k8s/swagger-v1.33.0.json`), in the reduced swagger 2.0 shape kf's ksonnet-lib
//! generator reads (the one `schemas/strip-swagger.py` makes of an upstream swagger.json):
//! `info`, every definition without its descriptions (a description saying "read-only"
//! stays, as exactly that), and, of `paths`, one body-taking operation per kind with its
//! `x-kubernetes-group-version-kind`.
//!
//! The definitions are k8s-openapi's own (its `schemars` feature), so kf carries today's
//! API without downloading anything; the kinds are k8s-openapi's `Resource` types.
//!
//!     cargo run -p kf-spec --locked -- schemas/k8s/swagger-v1.33.0.json           # write
//!     cargo run -p kf-spec --locked -- --check schemas/k8s/swagger-v1.33.0.json   # CI
//!
//! `--check` also fails when k8s-openapi has a `Resource` type the list below lacks (it
//! reads the crate's source, found with `cargo metadata`), so a k8s-openapi upgrade cannot
//! silently drop a kind.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use k8s_openapi::Resource;
use schemars::JsonSchema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

/// The version the spec is recorded as (k8s-openapi's `v1_33` module).
const VERSION: &str = "v1.33.0";
const SOURCE: &str = "k8s-openapi 0.29.0, feature v1_33 (its schemars schemas)";

/// A kind: the body of a create (or, for subresources, an update) operation.
struct Kind {
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    schema: String,
}

fn kind<T: Resource + JsonSchema>(generator: &mut SchemaGenerator) -> Kind {
    generator.subschema_for::<T>();
    Kind {
        group: T::GROUP,
        version: T::VERSION,
        kind: T::KIND,
        plural: T::URL_PATH_SEGMENT,
        schema: T::schema_name().into_owned(),
    }
}

/// A type whose schema is a definition but which no request body takes.
fn definition<T: JsonSchema>(generator: &mut SchemaGenerator) {
    generator.subschema_for::<T>();
}

macro_rules! resources {
    (kinds: [$($kind:ty),* $(,)?], read_only: [$($read_only:ty),* $(,)?] $(,)?) => {
        /// Every `Resource` type of k8s-openapi, by the name `--check` finds in its source.
        const LISTED: &[&str] = &[$(stringify!($kind),)* $(stringify!($read_only),)*];

        fn collect(generator: &mut SchemaGenerator) -> Vec<Kind> {
            $(definition::<$read_only>(generator);)*
            vec![$(kind::<$kind>(generator)),*]
        }
    };
}

use k8s_openapi::api::{
    admissionregistration, apiserverinternal, apps, authentication, authorization, autoscaling,
    batch, certificates, coordination, core, discovery, events, flowcontrol, networking, node,
    policy, rbac, resource, scheduling, storage, storagemigration,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions;
use k8s_openapi::apimachinery::pkg::apis::meta;
use k8s_openapi::kube_aggregator::pkg::apis::apiregistration;

resources! {
    kinds: [
        admissionregistration::v1::MutatingWebhookConfiguration,
        admissionregistration::v1::ValidatingAdmissionPolicy,
        admissionregistration::v1::ValidatingAdmissionPolicyBinding,
        admissionregistration::v1::ValidatingWebhookConfiguration,
        admissionregistration::v1alpha1::MutatingAdmissionPolicy,
        admissionregistration::v1alpha1::MutatingAdmissionPolicyBinding,
        admissionregistration::v1beta1::ValidatingAdmissionPolicy,
        admissionregistration::v1beta1::ValidatingAdmissionPolicyBinding,
        apiserverinternal::v1alpha1::StorageVersion,
        apps::v1::ControllerRevision,
        apps::v1::DaemonSet,
        apps::v1::Deployment,
        apps::v1::ReplicaSet,
        apps::v1::StatefulSet,
        authentication::v1::SelfSubjectReview,
        authentication::v1::TokenRequest,
        authentication::v1::TokenReview,
        authorization::v1::LocalSubjectAccessReview,
        authorization::v1::SelfSubjectAccessReview,
        authorization::v1::SelfSubjectRulesReview,
        authorization::v1::SubjectAccessReview,
        autoscaling::v1::HorizontalPodAutoscaler,
        autoscaling::v1::Scale,
        autoscaling::v2::HorizontalPodAutoscaler,
        batch::v1::CronJob,
        batch::v1::Job,
        certificates::v1::CertificateSigningRequest,
        certificates::v1alpha1::ClusterTrustBundle,
        certificates::v1beta1::ClusterTrustBundle,
        coordination::v1::Lease,
        coordination::v1alpha2::LeaseCandidate,
        coordination::v1beta1::LeaseCandidate,
        core::v1::Binding,
        core::v1::ConfigMap,
        core::v1::Endpoints,
        core::v1::Event,
        core::v1::LimitRange,
        core::v1::Namespace,
        core::v1::Node,
        core::v1::PersistentVolume,
        core::v1::PersistentVolumeClaim,
        core::v1::Pod,
        core::v1::PodTemplate,
        core::v1::ReplicationController,
        core::v1::ResourceQuota,
        core::v1::Secret,
        core::v1::Service,
        core::v1::ServiceAccount,
        discovery::v1::EndpointSlice,
        events::v1::Event,
        flowcontrol::v1::FlowSchema,
        flowcontrol::v1::PriorityLevelConfiguration,
        networking::v1::Ingress,
        networking::v1::IngressClass,
        networking::v1::IPAddress,
        networking::v1::NetworkPolicy,
        networking::v1::ServiceCIDR,
        networking::v1beta1::IPAddress,
        networking::v1beta1::ServiceCIDR,
        node::v1::RuntimeClass,
        policy::v1::Eviction,
        policy::v1::PodDisruptionBudget,
        rbac::v1::ClusterRole,
        rbac::v1::ClusterRoleBinding,
        rbac::v1::Role,
        rbac::v1::RoleBinding,
        resource::v1alpha3::DeviceClass,
        resource::v1alpha3::DeviceTaintRule,
        resource::v1alpha3::ResourceClaim,
        resource::v1alpha3::ResourceClaimTemplate,
        resource::v1alpha3::ResourceSlice,
        resource::v1beta1::DeviceClass,
        resource::v1beta1::ResourceClaim,
        resource::v1beta1::ResourceClaimTemplate,
        resource::v1beta1::ResourceSlice,
        resource::v1beta2::DeviceClass,
        resource::v1beta2::ResourceClaim,
        resource::v1beta2::ResourceClaimTemplate,
        resource::v1beta2::ResourceSlice,
        scheduling::v1::PriorityClass,
        storage::v1::CSIDriver,
        storage::v1::CSINode,
        storage::v1::CSIStorageCapacity,
        storage::v1::StorageClass,
        storage::v1::VolumeAttachment,
        storage::v1alpha1::VolumeAttributesClass,
        storage::v1beta1::VolumeAttributesClass,
        storagemigration::v1alpha1::StorageVersionMigration,
        apiextensions::v1::CustomResourceDefinition,
        apiregistration::v1::APIService,
    ],
    // Served with GET only (componentstatuses, discovery documents, Status): their
    // definitions are in the spec, but no operation takes them as a body.
    read_only: [
        core::v1::ComponentStatus,
        meta::v1::APIGroup,
        meta::v1::APIGroupList,
        meta::v1::APIResourceList,
        meta::v1::APIVersions,
        meta::v1::Status,
    ],
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (check, path) = match args.as_slice() {
        [flag, path] if flag == "--check" => (true, PathBuf::from(path)),
        [path] if !path.starts_with('-') => (false, PathBuf::from(path)),
        _ => {
            eprintln!("usage: kf-spec [--check] <schemas/k8s/swagger-v1.33.0.json>");
            return ExitCode::from(2);
        }
    };
    let text = match spec() {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("kf-spec: {e}");
            return ExitCode::from(1);
        }
    };
    if !check {
        return match std::fs::write(&path, text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("kf-spec: cannot write {}: {e}", path.display());
                ExitCode::from(1)
            }
        };
    }
    let mut ok = true;
    match std::fs::read_to_string(&path) {
        Ok(carried) if carried == text => {
            println!("kf-spec: {} is k8s-openapi's v1.33 API", path.display())
        }
        Ok(_) => {
            eprintln!(
                "kf-spec: {} differs from what k8s-openapi gives; rewrite it with `cargo run -p kf-spec -- {}`",
                path.display(),
                path.display()
            );
            ok = false;
        }
        Err(e) => {
            eprintln!("kf-spec: cannot read {}: {e}", path.display());
            ok = false;
        }
    }
    match unlisted_resources() {
        Ok(missing) if missing.is_empty() => {}
        Ok(missing) => {
            eprintln!(
                "kf-spec: k8s-openapi has Resource types the list in crates/kf-spec/src/main.rs lacks: {}",
                missing.join(", ")
            );
            ok = false;
        }
        Err(e) => {
            eprintln!("kf-spec: cannot read k8s-openapi's source: {e}");
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The reduced spec, as the file's text.
fn spec() -> Result<String, String> {
    let mut generator = SchemaSettings::draft07().into_generator();
    let kinds = collect(&mut generator);
    let mut definitions = Map::new();
    for (name, schema) in generator.definitions() {
        definitions.insert(name.clone(), definition_of(name, schema)?);
    }
    let mut paths = Map::new();
    for k in &kinds {
        if !definitions.contains_key(&k.schema) {
            return Err(format!("kind {} has no definition {}", k.kind, k.schema));
        }
        let path = if k.group.is_empty() {
            format!("/api/{}/{}", k.version, k.plural)
        } else {
            format!("/apis/{}/{}/{}", k.group, k.version, k.plural)
        };
        let operation = json!({
            "parameters": [{ "name": "body", "schema": { "$ref": format!("#/definitions/{}", k.schema) } }],
            "x-kubernetes-group-version-kind": { "group": k.group, "version": k.version, "kind": k.kind },
        });
        // A kind's collection path; for a subresource kind (Scale, Eviction) only its
        // name is unique, which is all the generator needs.
        let key = if paths.contains_key(&path) {
            format!("{path}#{}", k.schema)
        } else {
            path
        };
        paths.insert(key, json!({ "post": operation }));
    }
    let spec = json!({
        "swagger": "2.0",
        "info": { "title": "Kubernetes", "version": VERSION },
        "x-kf-source": SOURCE,
        "definitions": definitions,
        "paths": paths,
    });
    serde_json::to_string(&spec).map_err(|e| e.to_string())
}

/// One definition as swagger 2.0 has it, descriptions removed.
///
/// k8s-openapi's schemas carry one OpenAPI v3 form swagger 2.0 lacks: the
/// `x-kubernetes-int-or-string` of IntOrString and Quantity. The v2 spec the API server
/// serves gives IntOrString `type: string, format: int-or-string` and Quantity plain
/// `type: string` (their OpenAPISchemaType/OpenAPISchemaFormat in apimachinery's
/// pkg/util/intstr/intstr.go and pkg/api/resource/quantity.go), which is what ksonnet-lib
/// decides setters by.
fn definition_of(name: &str, schema: &Value) -> Result<Value, String> {
    let mut out = reduce(schema);
    if let Some(o) = out.as_object_mut()
        && o.remove("x-kubernetes-int-or-string").is_some()
    {
        o.insert("type".into(), "string".into());
        match name {
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => {
                o.insert("format".into(), "int-or-string".into());
            }
            "io.k8s.apimachinery.pkg.api.resource.Quantity" => {}
            _ => {
                return Err(format!(
                    "{name} is int-or-string, which swagger 2.0 has no form for: say here what the v2 spec gives it"
                ));
            }
        }
    }
    Ok(out)
}

/// Descriptions out, except that one saying "read-only" stays as exactly that (ksonnet-lib
/// leaves read-only fields out); `$ref`s point at `#/definitions/`.
fn reduce(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, x) in o {
                if k == "description"
                    && let Some(d) = x.as_str()
                {
                    if d.to_ascii_lowercase().contains("read-only") {
                        out.insert(k.clone(), "read-only".into());
                    }
                    continue;
                }
                out.insert(k.clone(), reduce(x));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(reduce).collect()),
        _ => v.clone(),
    }
}

/// `Resource` types in k8s-openapi's v1_33 source that [`LISTED`] does not name.
fn unlisted_resources() -> Result<Vec<String>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        // Not --offline: metadata reads every package's manifest, other platforms' too,
        // which a fresh machine has not downloaded.
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let meta: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-openapi")
        .and_then(|p| p["manifest_path"].as_str())
        .ok_or("cargo metadata names no k8s-openapi package")?;
    let root = Path::new(manifest)
        .parent()
        .ok_or("k8s-openapi's manifest has no folder")?
        .join("src")
        .join("v1_33");
    // `group::version::Type`, as the list names them and as the source files sit.
    let listed: BTreeSet<String> = LISTED.iter().map(|p| p.replace(' ', "")).collect();
    let mut found = Vec::new();
    walk(&root, &mut |file, text| {
        let folders: Vec<&str> = file
            .parent()
            .into_iter()
            .flat_map(|p| p.iter())
            .filter_map(|s| s.to_str())
            .collect();
        let [.., group, version] = folders.as_slice() else {
            return;
        };
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("impl crate::Resource for ") {
                let name = rest.trim_end_matches('{').trim();
                found.push(format!("{group}::{version}::{name}"));
            }
        }
    })?;
    if found.is_empty() {
        return Err(format!("no Resource impl under {}", root.display()));
    }
    let mut missing: Vec<String> = found.into_iter().filter(|t| !listed.contains(t)).collect();
    missing.sort();
    missing.dedup();
    Ok(missing)
}

fn walk(dir: &Path, each: &mut dyn FnMut(&Path, &str)) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(&path, each)?;
        } else if path.extension().is_some_and(|x| x == "rs") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            each(&path, &text);
        }
    }
    Ok(())
}
