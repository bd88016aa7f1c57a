//! The env's namespace, checked once before anything is applied: a missing one would
//! fail every namespaced object with the same 404 (and the ApplySet parent with it).

use http::{Method, StatusCode};
use serde_json::json;

use super::ClusterError;
use super::client::{Cluster, Failure};
use super::outcome::DryRun;

/// What [`ensure`] found or did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Namespace {
    /// There already, rendered by the app, or not readable by this user (RBAC): apply goes on.
    Ready,
    /// Made now (`--create-namespace`), or would be in a dry run.
    Created,
}

/// Check that `name` exists on the cluster, creating it when `create` (Helm's
/// `--create-namespace`: not labelled as kf's, so neither prune nor `kf delete` removes
/// it). `rendered`: the app renders that Namespace itself, which apply puts first.
pub async fn ensure(
    cluster: &Cluster,
    name: &str,
    rendered: bool,
    create: bool,
    dry_run: DryRun,
) -> Result<Namespace, ClusterError> {
    if name.is_empty() || rendered {
        return Ok(Namespace::Ready);
    }
    let path = format!("/api/v1/namespaces/{name}");
    match cluster.get(&path).await {
        Ok(_) => return Ok(Namespace::Ready),
        // A user whose Role covers one namespace may not read Namespaces: the apply says.
        Err(Failure::Status(r)) if r.status == StatusCode::FORBIDDEN => {
            return Ok(Namespace::Ready);
        }
        Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => {}
        Err(e) => {
            return Err(ClusterError::NamespaceCheck {
                name: name.to_string(),
                source: e,
            });
        }
    }
    if !create {
        return Err(ClusterError::NoNamespace {
            name: name.to_string(),
        });
    }
    if dry_run != DryRun::None {
        return Ok(Namespace::Created);
    }
    let body = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    cluster
        .request(
            Method::POST,
            "/api/v1/namespaces",
            Some("application/json"),
            serde_json::to_vec(&body).unwrap_or_default(),
        )
        .await
        .map(|_| Namespace::Created)
        .or_else(|e| match e {
            // Made by someone else meanwhile.
            Failure::Status(r) if r.status == StatusCode::CONFLICT => Ok(Namespace::Ready),
            e => Err(ClusterError::NamespaceCreate {
                name: name.to_string(),
                source: e,
            }),
        })
}
