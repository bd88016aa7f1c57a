//! Which cluster an environment means: the kubeconfig context whose cluster server is the
//! environment's `server`, with that context's own user. ksonnet used the current
//! context's user for every cluster (its bugs #277/#804); kf never does.

use std::path::PathBuf;

use kube::config::{KubeConfigOptions, Kubeconfig};

use super::ClusterError;
use super::redact::{kube_error, redact};
use crate::app::Environment;

/// Where to connect, as the user asked on the command line.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig`; else `KUBECONFIG`, else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    /// `--context`: use this context (its cluster must still be the env's server).
    pub context: Option<String>,
    /// `--request-timeout`: one request's longest wait for its reply (default 30 s).
    pub request_timeout: Option<std::time::Duration>,
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
            return Err(ClusterError::UnknownContext {
                name: name.to_string(),
                hint: crate::suggest::hint(name, kc.contexts.iter().map(|c| c.name.as_str())),
            });
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
            known: if kc.contexts.is_empty() {
                "the kubeconfig has no contexts".into()
            } else {
                let known: Vec<String> = kc
                    .contexts
                    .iter()
                    .map(|c| {
                        format!(
                            "{} ({})",
                            c.name,
                            context_server(kc, &c.name).unwrap_or_else(|| "no server".into())
                        )
                    })
                    .collect();
                format!("its contexts: {}", known.join(", "))
            },
        }),
        many => Err(ClusterError::SeveralContexts {
            server: env.server.clone(),
            env: env.name.clone(),
            contexts: many.join(", "),
        }),
    }
}

/// Where a kubeconfig comes from when `--kubeconfig` is not given: `KUBECONFIG`, else
/// `~/.kube/config` if it exists; `None` means none is there, and kf falls back to the
/// in-cluster config when it runs in a pod (as client-go's `BuildConfigFromFlags` does).
fn kubeconfig_present() -> bool {
    if std::env::var_os("KUBECONFIG").is_some_and(|v| !v.is_empty()) {
        return true;
    }
    std::env::var_os("HOME")
        .map(|h| PathBuf::from(h).join(".kube/config"))
        .is_some_and(|p| p.exists())
}

/// client-go trims whitespace around a token read from a file
/// (k8s.io/client-go/transport/token_source.go, `strings.TrimSpace`); kube 5 does not, and a
/// token file ending in a newline (what `echo` and most editors write) makes an invalid
/// Authorization header. kf reads the file once and uses the trimmed token.
fn trim_token_file(config: &mut kube::Config) -> Result<(), ClusterError> {
    if config.auth_info.token.is_some() {
        return Ok(());
    }
    let Some(file) = config.auth_info.token_file.clone() else {
        return Ok(());
    };
    let token =
        crate::sandbox::read_named(std::path::Path::new(&file), 64 * 1024).map_err(|source| {
            ClusterError::TokenFile {
                file: file.clone(),
                source,
            }
        })?;
    // AuthInfo's token is a secret type kf has no other use for; build it the way a
    // kubeconfig would spell it.
    let parsed: kube::config::AuthInfo =
        serde_json::from_value(serde_json::json!({ "token": token.trim() })).map_err(|e| {
            ClusterError::BadToken {
                file: file.clone(),
                why: redact(&e.to_string()),
            }
        })?;
    config.auth_info.token = parsed.token;
    config.auth_info.token_file = None;
    Ok(())
}

/// How much later than the per-request timeout kube's own read timeout fires. kf bounds
/// each attempt itself (and says "no reply within …"); kube's is the backstop. At the same
/// instant the two raced, and on a loaded machine kube's sometimes won with a bare "timed
/// out" (seen in CI on tests/cluster.rs's silent-server test).
const READ_TIMEOUT_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

/// kf's settings on every client: no retries of kube's own (kf's client has the one retry
/// layer), and a read timeout so a server that accepts a request and never answers
/// cannot hang kf (kf's per-request timeout, which fires first, bounds discovery too).
fn tune(config: &mut kube::Config, request_timeout: std::time::Duration) {
    config.default_retry = false;
    config.read_timeout = Some(request_timeout.saturating_add(READ_TIMEOUT_MARGIN));
    config.connect_timeout = Some(request_timeout.min(std::time::Duration::from_secs(10)));
}

/// The in-cluster config (a pod's service account), when kf runs in a pod and there is no
/// kubeconfig. The env's server must still be the cluster's own API server.
fn in_cluster(env: &Environment) -> Result<Option<kube::Config>, ClusterError> {
    if std::env::var_os("KUBERNETES_SERVICE_HOST").is_none() {
        return Ok(None);
    }
    let config = kube::Config::incluster().map_err(|e| ClusterError::InCluster {
        why: kube_error(&e),
    })?;
    let url = config.cluster_url.to_string();
    let wanted = normalize_server(&env.server);
    let known = [
        normalize_server(&url),
        "https://kubernetes.default.svc".to_string(),
        "https://kubernetes.default.svc.cluster.local".to_string(),
    ];
    if !known.contains(&wanted) {
        return Err(ClusterError::WrongCluster {
            env: env.name.clone(),
            env_server: env.server.clone(),
            context: "in-cluster".into(),
            context_server: url,
        });
    }
    Ok(Some(config))
}

/// Read the kubeconfig (or, in a pod without one, the in-cluster config), choose the
/// context and build a client for it.
pub async fn connect(
    env: &Environment,
    options: &ConnectOptions,
) -> Result<(kube::Client, Endpoint), ClusterError> {
    let request_timeout = options
        .request_timeout
        .unwrap_or(std::time::Duration::from_secs(30));
    if options.kubeconfig.is_none()
        && options.context.is_none()
        && !kubeconfig_present()
        && let Some(mut config) = in_cluster(env)?
    {
        tune(&mut config, request_timeout);
        trim_token_file(&mut config)?;
        super::redact::hold_credentials(&config.auth_info);
        let endpoint = Endpoint::of(&config, "in-cluster");
        let client = kube::Client::try_from(config).map_err(|e| ClusterError::InClusterClient {
            why: kube_error(&e),
        })?;
        return Ok((client, endpoint));
    }
    let kc = match &options.kubeconfig {
        Some(path) => Kubeconfig::read_from(path).map_err(|e| ClusterError::Kubeconfig {
            path: path.clone(),
            why: kubeconfig_why(&e, false),
        })?,
        None => Kubeconfig::read().map_err(|e| ClusterError::NoKubeconfig {
            why: kubeconfig_why(&e, true),
        })?,
    };
    let context = choose_context(&kc, env, options.context.as_deref())?;
    let mut config = kube::Config::from_custom_kubeconfig(
        kc,
        &KubeConfigOptions {
            context: Some(context.clone()),
            cluster: None,
            user: None,
        },
    )
    .await
    .map_err(|e| ClusterError::Context {
        context: context.clone(),
        why: kube_error(&e),
    })?;
    tune(&mut config, request_timeout);
    trim_token_file(&mut config)?;
    super::redact::hold_credentials(&config.auth_info);
    let endpoint = Endpoint::of(&config, &context);
    let client = kube::Client::try_from(config).map_err(|e| ClusterError::Context {
        context: context.clone(),
        why: kube_error(&e),
    })?;
    Ok((client, endpoint))
}

/// Why a kubeconfig could not be read, in one line: the path once (kube's own message
/// quotes it twice), and whether the file is missing. `name_path`: say which file (kf was
/// not given one).
fn kubeconfig_why(e: &kube::config::KubeconfigError, name_path: bool) -> String {
    match e {
        kube::config::KubeconfigError::ReadConfig(io, path) => {
            let what = if io.kind() == std::io::ErrorKind::NotFound {
                "does not exist".to_string()
            } else {
                io.to_string()
            };
            if name_path {
                format!("{} {what}", path.display())
            } else {
                what
            }
        }
        other => redact(&other.to_string()),
    }
}

/// Where a client's requests go, for messages.
#[derive(Debug, Clone, Default)]
pub struct Endpoint {
    pub context: String,
    /// The API server's URL.
    pub server: String,
    /// The kubeconfig's proxy-url, when there is one.
    pub proxy: Option<String>,
}

impl Endpoint {
    fn of(config: &kube::Config, context: &str) -> Endpoint {
        Endpoint {
            context: context.to_string(),
            server: config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_string(),
            proxy: config.proxy_url.as_ref().map(|u| u.to_string()),
        }
    }
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
