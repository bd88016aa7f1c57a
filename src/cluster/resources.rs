//! What the cluster serves: discovery, and the URL of each object.

use kube::discovery::{ApiResource, Discovery, Scope};

use super::ClusterError;
use super::client::{Cluster, Failure};

/// A kind the cluster serves.
#[derive(Debug, Clone)]
pub struct Resource {
    pub api: ApiResource,
    pub namespaced: bool,
}

impl Resource {
    /// `/api/v1/namespaces/ns/configmaps/name`, `/apis/apps/v1/deployments`, …
    pub fn path(&self, namespace: Option<&str>, name: Option<&str>) -> String {
        let mut p = if self.api.group.is_empty() {
            format!("/api/{}", self.api.version)
        } else {
            format!("/apis/{}/{}", self.api.group, self.api.version)
        };
        if self.namespaced
            && let Some(ns) = namespace
        {
            p.push_str(&format!("/namespaces/{ns}"));
        }
        p.push('/');
        p.push_str(&self.api.plural);
        if let Some(n) = name {
            p.push('/');
            p.push_str(n);
        }
        p
    }

    /// kubectl's short form: `deployment.apps`, `configmap`.
    pub fn kind_name(&self) -> String {
        let kind = self.api.kind.to_ascii_lowercase();
        if self.api.group.is_empty() {
            kind
        } else {
            format!("{kind}.{}", self.api.group)
        }
    }
}

/// The cluster's API resources.
pub struct Resources {
    discovery: Discovery,
}

impl Resources {
    /// Aggregated discovery (one request per group list) where the server offers it; a
    /// server without it gives kube an empty answer, not an error, so fall back to the
    /// classic per-group-version walk then.
    ///
    /// Discovery goes through kube's client, under kf's retries and the command's
    /// deadline (`Cluster::retry_kube`).
    pub async fn discover(cluster: &Cluster) -> Result<Resources, ClusterError> {
        let client = cluster.kube().clone();
        let aggregated = cluster
            .retry_kube("discovery (aggregated)", || {
                Discovery::new(client.clone()).run_aggregated()
            })
            .await;
        match aggregated {
            Ok(d) if d.groups().next().is_some() => return Ok(Resources { discovery: d }),
            // A server kf cannot reach will not answer the classic walk either.
            Err(e @ (Failure::Transport(_) | Failure::Deadline(_))) => {
                return Err(ClusterError::Discovery { source: e });
            }
            _ => {}
        }
        // The classic walk lists the groups, then reads each group version: a group whose
        // CRD is deleted in between answers 404 and fails the whole walk (seen on 1.20
        // while another client removed a CRD). The list has changed, so walk it again.
        let mut walks = 0;
        loop {
            walks += 1;
            let walk = cluster
                .retry_kube("discovery (/api, /apis)", || {
                    Discovery::new(client.clone()).run()
                })
                .await;
            match walk {
                Ok(d) => return Ok(Resources { discovery: d }),
                Err(Failure::Status(r)) if r.status == http::StatusCode::NOT_FOUND && walks < 6 => {
                    // Deleting CRDs can take seconds: give it a moment before the next walk.
                    tokio::time::sleep(std::time::Duration::from_millis(250 * walks)).await;
                    continue;
                }
                Err(e) => {
                    return Err(ClusterError::Discovery { source: e });
                }
            }
        }
    }

    pub fn resolve(&self, api_version: &str, kind: &str) -> Option<Resource> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let gvk = kube::api::GroupVersionKind::gvk(group, version, kind);
        let (api, caps) = self.discovery.resolve_gvk(&gvk)?;
        Some(Resource {
            api,
            namespaced: caps.scope == Scope::Namespaced,
        })
    }

    /// Every listable, deletable kind (for prune), in a stable order.
    pub fn prunable(&self) -> Vec<Resource> {
        let mut out = Vec::new();
        for group in self.discovery.groups_alphabetical() {
            for (api, caps) in group.recommended_resources() {
                if caps.supports_operation(kube::discovery::verbs::LIST)
                    && caps.supports_operation(kube::discovery::verbs::DELETE)
                {
                    out.push(Resource {
                        api,
                        namespaced: caps.scope == Scope::Namespaced,
                    });
                }
            }
        }
        out
    }
}

/// Why a cluster may not serve a kind that kf renders, when upstream removed it: the
/// Kubernetes API versions retired by the deprecated-API migration guide
/// (kubernetes.io/docs/reference/using-api/deprecation-guide), and the Kubeflow job kinds
/// whose operators stopped serving them. `None` for kinds with no known history.
pub fn retired_hint(api_version: &str, kind: &str) -> Option<String> {
    let (group, _) = api_version.split_once('/').unwrap_or(("", api_version));
    let kubeflow = match (group, kind) {
        ("kubeflow.org", "MXJob") => Some(
            "MXJob is served only by the training-operator up to v1.8 (v1.9 removed it): run a v1.8.x training-operator that serves it (kf generate training-operator … --schemes=mxjob --image=<a v1.8.x image>)",
        ),
        ("kubeflow.org", "ChainerJob") => Some(
            "ChainerJob is served only by the archived chainer-operator: install it and its CRD first",
        ),
        ("kubeflow.org", "Caffe2Job") => Some(
            "Caffe2Job is served only by the archived caffe2-operator: install it and its CRD first",
        ),
        _ => None,
    };
    if let Some(h) = kubeflow {
        return Some(h.to_string());
    }
    crate::validate::retired(api_version, kind).map(|r| {
        format!(
            "Kubernetes 1.{} stopped serving {api_version} {kind}; use {}",
            r.removed_minor, r.instead
        )
    })
}

#[cfg(test)]
mod tests {
    use super::retired_hint;

    #[test]
    fn retired_kinds_say_what_replaced_them() {
        assert!(
            retired_hint("extensions/v1beta1", "Deployment")
                .unwrap()
                .contains("1.16 stopped serving extensions/v1beta1 Deployment; use apps/v1")
        );
        assert!(
            retired_hint("extensions/v1beta1", "Ingress")
                .unwrap()
                .contains("1.22")
        );
        assert!(
            retired_hint("kubeflow.org/v1", "MXJob")
                .unwrap()
                .contains("up to v1.8")
        );
        assert_eq!(retired_hint("apps/v1", "Deployment"), None);
        assert_eq!(retired_hint("kubeflow.org/v1", "TFJob"), None);
    }
}
