//! Which cluster an environment means: the kubeconfig context whose cluster server is the
//! environment's `server`, with that context's own user. ksonnet used the current
//! context's user for every cluster (its bugs #277/#804); kf never does.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::ClusterError;
use crate::app::Environment;

/// Where to connect, as the user asked on the command line.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig`; else `KUBECONFIG`, else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`: use this context (its cluster must still be the env's server).
    pub context: Option<String>,
}

/// `https://Host:443/` and `https://host` are the same server.
pub fn normalize_server(server: &str) -> String {
    let s = server.trim().trim_end_matches('/').to_ascii_lowercase();
    match s.strip_prefix("https://") {
        Some(rest) => format!("https://{}", rest.strip_suffix(":443").unwrap_or(rest)),
        None => match s.strip_prefix("http://") {
            Some(rest) => format!("http://{}", rest.strip_suffix(":80").unwrap_or(rest)),
            None => s,
        },
    }
}

fn context_server(kc: &Kubeconfig, context: &str) -> Option<String> {
    let ctx = kc
        .contexts
        .iter()
        .find(|c| c.name == context)?
        .context
        .as_ref()?;
    kc.clusters
        .iter()
        .find(|c| c.name == ctx.cluster)?
        .cluster
        .as_ref()?
        .server
        .clone()
}

/// Pick the context for `env`: `--context` if given, else the current context when it points
/// at the env's server, else the one context that does. Refuses any other case.
pub fn choose_context(
    kc: &Kubeconfig,
    env: &Environment,
    flag: Option<&str>,
) -> Result<String, ClusterError> {
    let wanted = normalize_server(&env.server);
    let points_at_env =
        |name: &str| context_server(kc, name).is_some_and(|s| normalize_server(&s) == wanted);
    if let Some(name) = flag {
        if !kc.contexts.iter().any(|c| c.name == name) {
            return Err(ClusterError::Config(format!(
                "no context '{name}' in the kubeconfig{}",
                crate::suggest::hint(name, kc.contexts.iter().map(|c| c.name.as_str()))
            )));
        }
        if !points_at_env(name) {
            return Err(ClusterError::WrongCluster {
                env: env.name.clone(),
                env_server: env.server.clone(),
                context: name.to_string(),
                context_server: context_server(kc, name).unwrap_or_else(|| "<none>".into()),
            });
        }
        return Ok(name.to_string());
    }
    if let Some(current) = &kc.current_context
        && points_at_env(current)
    {
        return Ok(current.clone());
    }
    let matching: Vec<&str> = kc
        .contexts
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| points_at_env(n))
        .collect();
    match matching.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(ClusterError::NoContext {
            env: env.name.clone(),
            server: env.server.clone(),
            known: kc
                .contexts
                .iter()
                .map(|c| {
                    format!(
                        "{} ({})",
                        c.name,
                        context_server(kc, &c.name).unwrap_or_else(|| "no server".into())
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
        }),
        many => Err(ClusterError::Config(format!(
            "several kubeconfig contexts point at {} (environment '{}'): {}; pick one with --context",
            env.server,
            env.name,
            many.join(", ")
        ))),
    }
}

/// Read the kubeconfig, choose the context and build a client for it.
pub async fn connect(
    env: &Environment,
    options: &ConnectOptions,
) -> Result<(kube::Client, String), ClusterError> {
    let kc = match &options.kubeconfig {
        Some(path) => Kubeconfig::read_from(path).map_err(|e| {
            ClusterError::Config(format!(
                "cannot read kubeconfig {}: {}",
                path.display(),
                crate::app::error_summary(&e.to_string())
            ))
        })?,
        None => Kubeconfig::read().map_err(|e| {
            ClusterError::Config(format!(
                "cannot read a kubeconfig (KUBECONFIG or ~/.kube/config): {}; pass --kubeconfig",
                crate::app::error_summary(&e.to_string())
            ))
        })?,
    };
    let context = choose_context(&kc, env, options.context.as_deref())?;
    let config = kube::Config::from_custom_kubeconfig(
        kc,
        &KubeConfigOptions {
            context: Some(context.clone()),
            cluster: None,
            user: None,
        },
    )
    .await
    .map_err(|e| ClusterError::Config(format!("context '{context}': {e}")))?;
    let client = kube::Client::try_from(config)
        .map_err(|e| ClusterError::Config(format!("context '{context}': {e}")))?;
    Ok((client, context))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kubeconfig() -> Kubeconfig {
        Kubeconfig::from_yaml(
            "apiVersion: v1\nkind: Config\ncurrent-context: dev\nclusters:\n- name: dev\n  cluster: {server: 'https://dev.example.com:443/'}\n- name: prod\n  cluster: {server: 'https://prod.example.com'}\ncontexts:\n- name: dev\n  context: {cluster: dev, user: dev-user}\n- name: prod-admin\n  context: {cluster: prod, user: admin}\n- name: prod-ci\n  context: {cluster: prod, user: ci}\nusers:\n- name: dev-user\n  user: {token: a}\n- name: admin\n  user: {token: b}\n- name: ci\n  user: {token: c}\n",
        )
        .unwrap()
    }

    fn env(server: &str) -> Environment {
        Environment {
            name: "e".into(),
            server: server.into(),
            namespace: "ns".into(),
            k8s_version: "v1.10.3".into(),
            path: "e".into(),
            is_override: false,
            targets: Vec::new(),
            spec: Default::default(),
        }
    }

    #[test]
    fn the_current_context_is_used_when_it_points_at_the_env() {
        assert_eq!(
            choose_context(&kubeconfig(), &env("https://DEV.example.com"), None).unwrap(),
            "dev"
        );
    }

    #[test]
    fn another_cluster_needs_its_own_context_and_user() {
        let err = choose_context(&kubeconfig(), &env("https://prod.example.com"), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("prod-admin, prod-ci") && err.contains("--context"),
            "{err}"
        );
        assert_eq!(
            choose_context(
                &kubeconfig(),
                &env("https://prod.example.com"),
                Some("prod-ci")
            )
            .unwrap(),
            "prod-ci"
        );
    }

    #[test]
    fn a_context_for_another_cluster_is_refused() {
        let err = choose_context(&kubeconfig(), &env("https://prod.example.com"), Some("dev"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("refusing"), "{err}");
        let err = choose_context(&kubeconfig(), &env("https://other.example.com"), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no kubeconfig context points at https://other.example.com"),
            "{err}"
        );
    }
}
