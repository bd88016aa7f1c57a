//! Kubernetes' built-in kinds, typed: an object read into its k8s-openapi struct and
//! written back. A field the type does not have is gone from the result, and a value of
//! the wrong type fails to read, which is how `kf validate` finds both before an API
//! server does.
//!
//! A crate of its own for build time: reading and writing 30 kinds instantiates the serde
//! code of every type they reach (a third of what the `kf` crate would otherwise compile).
//! Here it is built beside the rest of kf, and at the opt-level the release profile gives
//! it, instead of after everything at kf's.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `object` as the typed struct of its `apiVersion` and `kind` reads and writes it:
/// `None` when there is no type for that pair, `Err` with serde's reason when the object
/// does not read as one (a string where the type has a number, say).
pub fn round_trip(api_version: &str, kind: &str, object: &Value) -> Option<Result<Value, String>> {
    use k8s_openapi::api::{
        admissionregistration, apps, autoscaling, batch, core, networking, policy, rbac,
        scheduling, storage,
    };
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions;
    Some(match (api_version, kind) {
        ("v1", "ConfigMap") => typed::<core::v1::ConfigMap>(object),
        ("v1", "Secret") => typed::<core::v1::Secret>(object),
        ("v1", "Service") => typed::<core::v1::Service>(object),
        ("v1", "ServiceAccount") => typed::<core::v1::ServiceAccount>(object),
        ("v1", "Namespace") => typed::<core::v1::Namespace>(object),
        ("v1", "PersistentVolumeClaim") => typed::<core::v1::PersistentVolumeClaim>(object),
        ("v1", "PersistentVolume") => typed::<core::v1::PersistentVolume>(object),
        ("v1", "Pod") => typed::<core::v1::Pod>(object),
        ("v1", "LimitRange") => typed::<core::v1::LimitRange>(object),
        ("v1", "ResourceQuota") => typed::<core::v1::ResourceQuota>(object),
        ("apps/v1", "Deployment") => typed::<apps::v1::Deployment>(object),
        ("apps/v1", "StatefulSet") => typed::<apps::v1::StatefulSet>(object),
        ("apps/v1", "DaemonSet") => typed::<apps::v1::DaemonSet>(object),
        ("batch/v1", "Job") => typed::<batch::v1::Job>(object),
        ("batch/v1", "CronJob") => typed::<batch::v1::CronJob>(object),
        ("rbac.authorization.k8s.io/v1", "Role") => typed::<rbac::v1::Role>(object),
        ("rbac.authorization.k8s.io/v1", "RoleBinding") => typed::<rbac::v1::RoleBinding>(object),
        ("rbac.authorization.k8s.io/v1", "ClusterRole") => typed::<rbac::v1::ClusterRole>(object),
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding") => {
            typed::<rbac::v1::ClusterRoleBinding>(object)
        }
        ("networking.k8s.io/v1", "Ingress") => typed::<networking::v1::Ingress>(object),
        ("networking.k8s.io/v1", "NetworkPolicy") => typed::<networking::v1::NetworkPolicy>(object),
        ("policy/v1", "PodDisruptionBudget") => typed::<policy::v1::PodDisruptionBudget>(object),
        ("autoscaling/v2", "HorizontalPodAutoscaler") => {
            typed::<autoscaling::v2::HorizontalPodAutoscaler>(object)
        }
        ("scheduling.k8s.io/v1", "PriorityClass") => typed::<scheduling::v1::PriorityClass>(object),
        ("storage.k8s.io/v1", "StorageClass") => typed::<storage::v1::StorageClass>(object),
        ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration") => {
            typed::<admissionregistration::v1::ValidatingWebhookConfiguration>(object)
        }
        ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration") => {
            typed::<admissionregistration::v1::MutatingWebhookConfiguration>(object)
        }
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition") => {
            typed::<apiextensions::v1::CustomResourceDefinition>(object)
        }
        _ => return None,
    })
}

fn typed<'a, T: Deserialize<'a> + Serialize>(object: &'a Value) -> Result<Value, String> {
    let typed = T::deserialize(object).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_field_the_type_lacks_is_gone_and_a_mistyped_one_fails() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"replica": 3, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}});
        let back = round_trip("apps/v1", "Deployment", &deployment)
            .unwrap()
            .unwrap();
        assert_eq!(back["spec"]["selector"], deployment["spec"]["selector"]);
        assert!(back["spec"].get("replica").is_none(), "{back}");

        let mistyped = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "web"}, "spec": {"ports": [{"port": "eighty"}]}});
        let err = round_trip("v1", "Service", &mistyped).unwrap().unwrap_err();
        assert!(
            err.contains("eighty") || err.contains("invalid type"),
            "{err}"
        );
    }

    #[test]
    fn kinds_without_a_type_are_none() {
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget"});
        assert!(round_trip("example.com/v1", "Widget", &widget).is_none());
        // A retired version has no type even when its kind does.
        assert!(round_trip("extensions/v1beta1", "Deployment", &widget).is_none());
    }
}
