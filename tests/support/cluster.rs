//! The cluster the cluster tests run against: the in-process test API server by default,
//! or a real cluster when `KF_TEST_KUBECONFIG` names a kubeconfig (its current context
//! is used; each test works in its own new namespace, deleted afterwards). Tests that
//! inject faults or count requests do those parts only against the test server.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::apiserver::ApiServer;

static NEXT: AtomicUsize = AtomicUsize::new(0);

pub struct Real {
    kubeconfig: PathBuf,
    /// The kubeconfig's current context, whose cluster the tests use.
    context: String,
    server: String,
    runtime: tokio::runtime::Runtime,
    cluster: kf::cluster::client::Cluster,
}

pub enum Backend {
    Fake(ApiServer),
    Real(Box<Real>),
}

pub struct TestCluster {
    pub backend: Backend,
    /// The namespace the test's environment deploys to.
    pub namespace: String,
}

fn version_of(group: &str) -> &'static str {
    match group {
        "" | "apps" | "example.com" | "apiextensions.k8s.io" | "rbac.authorization.k8s.io" => "v1",
        _ => "v1",
    }
}

fn path(group: &str, plural: &str, namespace: &str, name: &str) -> String {
    let base = if group.is_empty() {
        "/api/v1".to_string()
    } else {
        format!("/apis/{group}/{}", version_of(group))
    };
    let ns = if namespace.is_empty() {
        String::new()
    } else {
        format!("/namespaces/{namespace}")
    };
    format!("{base}{ns}/{plural}/{name}")
}

impl TestCluster {
    pub fn start() -> TestCluster {
        let Some(kubeconfig) = std::env::var_os("KF_TEST_KUBECONFIG") else {
            let server = ApiServer::start();
            // The test server, like a real one, wants a namespace before objects go in it.
            server.put(
                "",
                "namespaces",
                "",
                serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ml-dev"}}),
                "kf-test",
            );
            return TestCluster {
                backend: Backend::Fake(server),
                namespace: "ml-dev".into(),
            };
        };
        TestCluster::real(PathBuf::from(kubeconfig))
    }

    /// The real API server `tests/envtest/envtest up` started, when
    /// `KF_ENVTEST_KUBECONFIG` names its kubeconfig (context `admin` current, `limited`
    /// beside it); `None` without one.
    pub fn envtest() -> Option<TestCluster> {
        let kubeconfig = std::env::var_os("KF_ENVTEST_KUBECONFIG")?;
        Some(TestCluster::real(PathBuf::from(kubeconfig)))
    }

    /// A fresh namespace on the real cluster `kubeconfig`'s current context points at.
    fn real(kubeconfig: PathBuf) -> TestCluster {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (client, server, context) = runtime.block_on(async {
            let kc = kube::config::Kubeconfig::read_from(&kubeconfig).expect("KF_TEST_KUBECONFIG");
            let context = kc.current_context.clone().unwrap_or_default();
            let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
                .await
                .expect("a usable current context");
            let server = config
                .cluster_url
                .to_string()
                .trim_end_matches('/')
                .to_string();
            (kube::Client::try_from(config).unwrap(), server, context)
        });
        let cluster = kf::cluster::client::Cluster::new(client, Default::default()).quiet();
        let namespace = format!(
            "kf-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let real = Real {
            kubeconfig,
            context,
            server,
            runtime,
            cluster,
        };
        let tc = TestCluster {
            backend: Backend::Real(Box::new(real)),
            namespace: namespace.clone(),
        };
        tc.put(
            "",
            "namespaces",
            "",
            serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
            "kf-test",
        );
        tc
    }

    /// The kubeconfig context that points at this cluster.
    pub fn context(&self) -> &str {
        match &self.backend {
            Backend::Fake(_) => "fake",
            Backend::Real(r) => &r.context,
        }
    }

    pub fn fake(&self) -> Option<&ApiServer> {
        match &self.backend {
            Backend::Fake(f) => Some(f),
            Backend::Real(_) => None,
        }
    }

    /// The `server` an environment records for this cluster.
    pub fn url(&self) -> String {
        match &self.backend {
            Backend::Fake(f) => f.url.clone(),
            Backend::Real(r) => r.server.clone(),
        }
    }

    pub fn kubeconfig(&self, dir: &Path) -> PathBuf {
        match &self.backend {
            Backend::Fake(f) => f.kubeconfig(dir),
            Backend::Real(r) => r.kubeconfig.clone(),
        }
    }

    /// An object, by group, plural, namespace ("" for cluster-scoped) and name.
    pub fn get(&self, group: &str, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        match &self.backend {
            Backend::Fake(f) => f.get(group, plural, namespace, name),
            Backend::Real(r) => {
                let p = path(group, plural, namespace, name);
                r.runtime
                    .block_on(r.cluster.get(&p))
                    .ok()
                    .map(|reply| reply.body)
            }
        }
    }

    /// The object is gone, or going: kf deletes in the foreground, so on a real server an
    /// object stays (with a deletionTimestamp) until the garbage collector has removed
    /// its dependents; the test server removes it at once.
    pub fn gone(&self, group: &str, plural: &str, namespace: &str, name: &str) -> bool {
        self.get(group, plural, namespace, name)
            .is_none_or(|o| o["metadata"]["deletionTimestamp"].is_string())
    }

    /// Apply an object as another tool would (its own field manager, forcing).
    pub fn put(&self, group: &str, plural: &str, namespace: &str, object: Value, manager: &str) {
        match &self.backend {
            Backend::Fake(f) => f.put(group, plural, namespace, object, manager),
            Backend::Real(r) => {
                let name = object["metadata"]["name"].as_str().unwrap().to_string();
                let p = format!(
                    "{}?fieldManager={manager}&force=true",
                    path(group, plural, namespace, &name)
                );
                r.runtime
                    .block_on(r.cluster.request(
                        http::Method::PATCH,
                        &p,
                        Some("application/apply-patch+yaml"),
                        serde_json::to_vec(&object).unwrap(),
                    ))
                    .unwrap_or_else(|e| panic!("put {p}: {e}"));
            }
        }
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        if let Backend::Real(r) = &self.backend {
            let p = format!("/api/v1/namespaces/{}", self.namespace);
            let _ =
                r.runtime.block_on(
                    r.cluster
                        .request(http::Method::DELETE, &p, None, Vec::new()),
                );
        }
    }
}

impl TestCluster {
    /// A request to the real cluster as its admin: the reply's status and body.
    pub fn request(&self, method: http::Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let content = body.as_ref().map(|_| {
            if method == http::Method::PATCH {
                "application/merge-patch+json"
            } else {
                "application/json"
            }
        });
        self.send(method, path, content, body)
    }

    /// A server-side apply of `object` at `path` as `manager`, dry run (nothing is
    /// stored): what the real cluster says of it.
    pub fn apply_dry_run(&self, path: &str, object: Value, manager: &str) -> (u16, Value) {
        let path = format!("{path}?fieldManager={manager}&dryRun=All");
        self.send(
            http::Method::PATCH,
            &path,
            Some("application/apply-patch+yaml"),
            Some(object),
        )
    }

    fn send(
        &self,
        method: http::Method,
        path: &str,
        content: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let Backend::Real(r) = &self.backend else {
            panic!("requests are for a real cluster");
        };
        let bytes = body
            .map(|b| serde_json::to_vec(&b).unwrap())
            .unwrap_or_default();
        match r
            .runtime
            .block_on(r.cluster.request(method, path, content, bytes))
        {
            Ok(reply) => (reply.status.as_u16(), reply.body),
            Err(kf::cluster::client::Failure::Status(reply)) => (reply.status.as_u16(), reply.body),
            Err(e) => panic!("{path}: {e}"),
        }
    }
}
