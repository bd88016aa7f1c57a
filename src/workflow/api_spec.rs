//! `--api-spec server`: the API of an environment's own cluster, read from its
//! `/openapi/v2` (the swagger 2.0 spec ksonnet read when it made an env), for a library
//! with exactly the kinds and fields that server has, its CRDs' among them.

use crate::app::Environment;
use crate::cluster::ClusterError;
use crate::cluster::events::Reporter;

use super::{Connection, connect};

/// The spec `env`'s API server serves, as JSON bytes.
pub async fn server_spec(
    env: &Environment,
    connection: &Connection,
    reporter: &mut dyn Reporter,
) -> Result<Vec<u8>, ClusterError> {
    // The env's version is what the spec replaces: no warning that it differs.
    let mut env = env.clone();
    env.k8s_version.clear();
    let cluster = connect(&env, connection, reporter).await?;
    let reply = cluster
        .get("/openapi/v2")
        .await
        .map_err(|source| ClusterError::ServerSpec {
            env: env.name.clone(),
            source,
        })?;
    Ok(serde_json::to_vec(&reply.body)?)
}
