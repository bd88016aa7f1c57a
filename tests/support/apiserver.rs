//! A small Kubernetes API server for tests, started in-process on 127.0.0.1 (no
//! kube-apiserver can run on these machines). Faithful where kf's safety depends on it.
//!
//! What it models: discovery (`/api`, `/apis`, per group-version resource lists; it has no
//! aggregated discovery, like older servers), namespaced and cluster-scoped objects with
//! UIDs, resourceVersions and generations; namespaces that must exist before objects go in
//! them; GET, LIST (equality label selectors, or ignoring them on request, as a broken proxy
//! would), DELETE with `preconditions.uid` (409 on a mismatch, as the real server) and
//! `propagationPolicy` (Foreground/Background delete dependents by ownerReferences' UID,
//! Orphan keeps them without the reference), recorded per request; server-side apply
//! (`application/apply-patch+yaml`) with field managers, conflicts (409 unless
//! `force=true`), removal of fields a manager stops applying, associative lists merged by key
//! (containers, initContainers, volumes and env by `name`, ports by `containerPort`/`port`,
//! volumeMounts by `mountPath`), managedFields in the real `FieldsV1` format (`f:`/`k:`
//! keys); `dryRun=All`; a status subresource (an apply to the object never changes
//! `.status`; tests set it with `set_status`, as a controller would); CRDs that become
//! Established at once, after a delay, or never (`crd_established`), and serve their kind
//! only once Established; injected faults (any status code such as 429/503/504 with
//! Retry-After, a 200 with a body that is not JSON, dropped connections, slow or hanging
//! replies).
//!
//! What it does not model: admission, defaulting and validation; the order of merged list
//! items (they come back sorted by key); lists of scalars with set semantics; the
//! deletionTimestamp/finalizer phase of a foreground deletion (dependents and the object go
//! at once); watches; authentication and authorization; PATCH types other than apply, and
//! PUT/POST.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Map, Value, json};

#[derive(Debug, Clone)]
pub struct Kind {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
}

fn kind(group: &str, version: &str, kind: &str, plural: &str, namespaced: bool) -> Kind {
    Kind {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        plural: plural.into(),
        namespaced,
    }
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    group: String,
    plural: String,
    namespace: String,
    name: String,
}

#[derive(Debug, Clone)]
struct Stored {
    object: Value,
    /// Field manager → leaf paths it owns.
    managers: BTreeMap<String, BTreeSet<Vec<String>>>,
}

/// A fault to inject into matching requests.
#[derive(Debug, Clone, Default)]
pub struct Fault {
    pub method: Option<Method>,
    /// Substring of the request path.
    pub path: String,
    /// Reply with this status (and a Status body)…
    pub status: Option<u16>,
    /// …and this Retry-After header.
    pub retry_after: Option<u64>,
    /// Close the connection without a reply.
    pub drop: bool,
    /// Wait before handling the request.
    pub delay: Option<Duration>,
    /// Reply 200 with this body (and `text/html`) instead of handling the request.
    pub body: Option<String>,
    /// How many requests it hits; then it is spent.
    pub times: usize,
}

/// When a new CRD becomes Established.
#[derive(Debug, Clone, Copy, Default)]
pub enum CrdEstablished {
    #[default]
    Immediately,
    After(Duration),
    Never,
}

#[derive(Default)]
pub struct State {
    kinds: Vec<Kind>,
    objects: BTreeMap<Key, Stored>,
    rv: u64,
    uid: u64,
    faults: Vec<Fault>,
    /// Every request: method and path with query.
    pub requests: Vec<(String, String)>,
    /// When each of `requests` arrived.
    arrivals: Vec<std::time::Instant>,
    /// The body of every DELETE, with its path.
    pub delete_bodies: Vec<(String, Value)>,
    /// Every request's Authorization header ("" when none).
    authorizations: Vec<String>,
    ignore_label_selector: bool,
    crd_established: CrdEstablished,
    /// CRDs not Established yet, with when they were created.
    pending_crds: Vec<(Key, std::time::Instant)>,
}

pub struct ApiServer {
    pub url: String,
    state: Arc<Mutex<State>>,
    _runtime: tokio::runtime::Runtime,
}

fn builtin_kinds() -> Vec<Kind> {
    vec![
        kind("", "v1", "Namespace", "namespaces", false),
        kind("", "v1", "ConfigMap", "configmaps", true),
        kind("", "v1", "Secret", "secrets", true),
        kind("", "v1", "Service", "services", true),
        kind("", "v1", "ServiceAccount", "serviceaccounts", true),
        kind("", "v1", "Pod", "pods", true),
        kind(
            "",
            "v1",
            "PersistentVolumeClaim",
            "persistentvolumeclaims",
            true,
        ),
        kind("apps", "v1", "Deployment", "deployments", true),
        kind("apps", "v1", "StatefulSet", "statefulsets", true),
        kind("batch", "v1", "Job", "jobs", true),
        kind("rbac.authorization.k8s.io", "v1", "Role", "roles", true),
        kind(
            "rbac.authorization.k8s.io",
            "v1",
            "RoleBinding",
            "rolebindings",
            true,
        ),
        kind(
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRole",
            "clusterroles",
            false,
        ),
        kind(
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRoleBinding",
            "clusterrolebindings",
            false,
        ),
        kind(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
        ),
    ]
}

impl ApiServer {
    pub fn start() -> ApiServer {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let state = Arc::new(Mutex::new(State {
            kinds: builtin_kinds(),
            ..State::default()
        }));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let shared = state.clone();
        runtime.spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let state = shared.clone();
                tokio::spawn(async move {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let service = hyper::service::service_fn(move |req| handle(state.clone(), req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(io, service)
                        .await;
                });
            }
        });
        ApiServer {
            url,
            state,
            _runtime: runtime,
        }
    }

    /// A kubeconfig whose only context points at this server.
    pub fn kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        std::fs::write(
            &path,
            format!(
                "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: {}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\nusers:\n- name: fake\n  user:\n    token: fake-token\n",
                self.url
            ),
        )
        .unwrap();
        path
    }

    pub fn inject(&self, fault: Fault) {
        self.state.lock().unwrap().faults.push(fault);
    }

    pub fn requests(&self) -> Vec<(String, String)> {
        self.state.lock().unwrap().requests.clone()
    }

    /// Every request with the time it arrived.
    pub fn timed_requests(&self) -> Vec<(String, String, std::time::Instant)> {
        let st = self.state.lock().unwrap();
        st.requests
            .iter()
            .zip(&st.arrivals)
            .map(|((m, p), t)| (m.clone(), p.clone(), *t))
            .collect()
    }

    pub fn clear_requests(&self) {
        let mut st = self.state.lock().unwrap();
        st.requests.clear();
        st.arrivals.clear();
    }

    /// A stored object, by group, plural, namespace ("" for cluster-scoped) and name.
    pub fn get(&self, group: &str, plural: &str, namespace: &str, name: &str) -> Option<Value> {
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.into(),
            name: name.into(),
        };
        self.state
            .lock()
            .unwrap()
            .objects
            .get(&key)
            .map(|s| denormalize(&s.object))
    }

    /// Store an object as another tool would (its own field manager).
    pub fn put(&self, group: &str, plural: &str, namespace: &str, object: Value, manager: &str) {
        let mut st = self.state.lock().unwrap();
        let name = object["metadata"]["name"].as_str().unwrap().to_string();
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.into(),
            name,
        };
        let _ = apply(&mut st, key, object, manager, false, false);
    }

    pub fn count(&self) -> usize {
        self.state.lock().unwrap().objects.len()
    }

    /// From now on, LIST returns every object of the kind, whatever the labelSelector (a
    /// proxy or old server that drops the parameter).
    pub fn ignore_label_selector(&self) {
        self.state.lock().unwrap().ignore_label_selector = true;
    }

    /// When CRDs applied from now on become Established.
    pub fn crd_established(&self, when: CrdEstablished) {
        self.state.lock().unwrap().crd_established = when;
    }

    /// Set an object's status, as its controller would through the status subresource.
    pub fn set_status(
        &self,
        group: &str,
        plural: &str,
        namespace: &str,
        name: &str,
        status: Value,
    ) {
        let mut st = self.state.lock().unwrap();
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.into(),
            name: name.into(),
        };
        st.rv += 1;
        let rv = st.rv.to_string();
        if let Some(stored) = st.objects.get_mut(&key) {
            stored.object["status"] = status;
            stored.object["metadata"]["resourceVersion"] = Value::String(rv);
        }
    }

    /// Remove an object as another tool would (no dependents touched).
    pub fn remove(&self, group: &str, plural: &str, namespace: &str, name: &str) {
        let key = Key {
            group: group.into(),
            plural: plural.into(),
            namespace: namespace.into(),
            name: name.into(),
        };
        self.state.lock().unwrap().objects.remove(&key);
    }

    /// The Authorization headers received, in order.
    pub fn authorizations(&self) -> Vec<String> {
        self.state.lock().unwrap().authorizations.clone()
    }

    /// DELETE bodies (DeleteOptions) received, with their paths.
    pub fn delete_bodies(&self) -> Vec<(String, Value)> {
        self.state.lock().unwrap().delete_bodies.clone()
    }
}

fn status(code: StatusCode, reason: &str, message: &str) -> (StatusCode, Value) {
    (
        code,
        json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
               "reason": reason, "message": message, "code": code.as_u16()}),
    )
}

type Reply = Result<Response<Full<Bytes>>, std::io::Error>;

async fn handle(state: Arc<Mutex<State>>, req: Request<Incoming>) -> Reply {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let fault = {
        let mut st = state.lock().unwrap();
        st.requests
            .push((method.to_string(), format!("{path}?{query}")));
        st.arrivals.push(std::time::Instant::now());
        let auth = req
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        st.authorizations.push(auth);
        let hit = st.faults.iter_mut().find(|f| {
            f.times > 0 && path.contains(&f.path) && f.method.as_ref().is_none_or(|m| *m == method)
        });
        hit.map(|f| {
            f.times -= 1;
            f.clone()
        })
    };
    if let Some(f) = &fault {
        if let Some(d) = f.delay {
            tokio::time::sleep(d).await;
        }
        if f.drop {
            return Err(std::io::Error::other("injected: connection dropped"));
        }
        if let Some(text) = &f.body {
            return Ok(Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "text/html")
                .body(Full::new(Bytes::from(text.clone())))
                .unwrap());
        }
        if let Some(code) = f.status {
            let code = StatusCode::from_u16(code).unwrap();
            let (code, body) = status(code, "InternalError", "injected fault");
            let mut res = Response::builder()
                .status(code)
                .header("content-type", "application/json");
            if let Some(after) = f.retry_after {
                res = res.header("retry-after", after.to_string());
            }
            return Ok(res.body(Full::new(Bytes::from(body.to_string()))).unwrap());
        }
    }
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let (code, value) = {
        let mut st = state.lock().unwrap();
        route(&mut st, &method, &path, &query, &body)
    };
    Ok(Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(value.to_string())))
        .unwrap())
}

fn query_param<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

fn discovery(st: &State, path: &str) -> Option<Value> {
    let group_versions = |group: &str| -> BTreeSet<String> {
        st.kinds
            .iter()
            .filter(|k| k.group == group)
            .map(|k| k.version.clone())
            .collect()
    };
    let resource_list = |group: &str, version: &str| {
        let gv = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        let resources: Vec<Value> = st
            .kinds
            .iter()
            .filter(|k| k.group == group && k.version == version)
            .map(|k| {
                json!({"name": k.plural, "singularName": k.kind.to_ascii_lowercase(),
                            "namespaced": k.namespaced, "kind": k.kind,
                            "verbs": ["create", "delete", "get", "list", "patch", "update"]})
            })
            .collect();
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources})
    };
    match path.trim_end_matches('/') {
        "/version" => Some(json!({"major": "1", "minor": "33", "gitVersion": "v1.33.0-kf-test"})),
        // Its swagger 2.0 spec: kf's own v1.33.0 one, less batch/v1 CronJob, so that a
        // library made from it is told apart from the one kf carries.
        "/openapi/v2" => {
            let (_, carried) = kf::ksonnetlib::CARRIED[kf::ksonnetlib::carried_for("v1.33.0")];
            let mut spec: Value = serde_json::from_str(carried).unwrap();
            spec["info"]["version"] = json!("v1.33.0-kf-test");
            spec["paths"]
                .as_object_mut()
                .unwrap()
                .retain(|_, op| op["post"]["x-kubernetes-group-version-kind"]["kind"] != "CronJob");
            Some(spec)
        }
        "/api" => Some(
            json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}),
        ),
        "/api/v1" => Some(resource_list("", "v1")),
        "/apis" => {
            let groups: BTreeSet<&str> = st
                .kinds
                .iter()
                .filter(|k| !k.group.is_empty())
                .map(|k| k.group.as_str())
                .collect();
            let groups: Vec<Value> = groups
                .into_iter()
                .map(|g| {
                    let versions: Vec<Value> = group_versions(g)
                        .into_iter()
                        .map(|v| json!({"groupVersion": format!("{g}/{v}"), "version": v}))
                        .collect();
                    json!({"name": g, "versions": versions, "preferredVersion": versions[0]})
                })
                .collect();
            Some(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
        }
        p => {
            let rest = p.strip_prefix("/apis/")?;
            let parts: Vec<&str> = rest.split('/').collect();
            match parts.as_slice() {
                [g, v] if group_versions(g).contains(*v) => Some(resource_list(g, v)),
                _ => None,
            }
        }
    }
}

/// (kind, namespace, name) of an object path.
fn parse_object_path(st: &State, path: &str) -> Option<(Kind, String, Option<String>)> {
    let (group, version, rest) = if let Some(r) = path.strip_prefix("/api/v1/") {
        ("", "v1", r)
    } else {
        let r = path.strip_prefix("/apis/")?;
        let mut it = r.splitn(3, '/');
        let g = it.next()?;
        let v = it.next()?;
        (g, v, it.next()?)
    };
    let segs: Vec<&str> = rest.split('/').filter(|s| !s.is_empty()).collect();
    let find = |plural: &str| {
        st.kinds
            .iter()
            .find(|k| k.group == group && k.version == version && k.plural == plural)
            .cloned()
    };
    match segs.as_slice() {
        ["namespaces", ns, plural, tail @ ..] if tail.len() <= 1 => {
            let k = find(plural)?;
            k.namespaced
                .then(|| (k, ns.to_string(), tail.first().map(|s| s.to_string())))
        }
        [plural, tail @ ..] if tail.len() <= 1 => {
            let k = find(plural)?;
            Some((k, String::new(), tail.first().map(|s| s.to_string())))
        }
        _ => None,
    }
}

fn route(
    st: &mut State,
    method: &Method,
    path: &str,
    query: &str,
    body: &[u8],
) -> (StatusCode, Value) {
    establish_due_crds(st);
    if *method == Method::GET
        && let Some(v) = discovery(st, path)
    {
        return (StatusCode::OK, v);
    }
    let Some((kind, namespace, name)) = parse_object_path(st, path) else {
        return status(
            StatusCode::NOT_FOUND,
            "NotFound",
            &format!("the server could not find the requested resource ({path})"),
        );
    };
    let dry_run = query_param(query, "dryRun") == Some("All");
    match (method.as_str(), name) {
        ("GET", None) => {
            let selector: Vec<(String, String)> = query_param(query, "labelSelector")
                .map(|s| {
                    let s = s
                        .replace("%3D", "=")
                        .replace("%2C", ",")
                        .replace("%2F", "/");
                    s.split(',')
                        .filter_map(|kv| kv.split_once('='))
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect()
                })
                .unwrap_or_default();
            let items: Vec<Value> = st
                .objects
                .iter()
                .filter(|(k, _)| {
                    k.group == kind.group
                        && k.plural == kind.plural
                        && (namespace.is_empty() || k.namespace == namespace)
                })
                .map(|(_, s)| s.object.clone())
                .filter(|o| {
                    st.ignore_label_selector
                        || selector
                            .iter()
                            .all(|(k, v)| o["metadata"]["labels"][k] == *v)
                })
                .map(|o| denormalize(&o))
                .collect();
            (
                StatusCode::OK,
                json!({"kind": format!("{}List", kind.kind), "apiVersion": if kind.group.is_empty() { kind.version.clone() } else { format!("{}/{}", kind.group, kind.version) }, "metadata": {"resourceVersion": st.rv.to_string()}, "items": items}),
            )
        }
        ("GET", Some(name)) => {
            let key = Key {
                group: kind.group.clone(),
                plural: kind.plural.clone(),
                namespace,
                name: name.clone(),
            };
            match st.objects.get(&key) {
                Some(s) => (StatusCode::OK, denormalize(&s.object)),
                None => status(
                    StatusCode::NOT_FOUND,
                    "NotFound",
                    &format!("{} \"{name}\" not found", kind.plural),
                ),
            }
        }
        ("DELETE", Some(name)) => {
            let key = Key {
                group: kind.group.clone(),
                plural: kind.plural.clone(),
                namespace,
                name: name.clone(),
            };
            let options: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
            st.delete_bodies
                .push((format!("{path}?{query}"), options.clone()));
            let Some(stored) = st.objects.get(&key) else {
                return status(
                    StatusCode::NOT_FOUND,
                    "NotFound",
                    &format!("{} \"{name}\" not found", kind.plural),
                );
            };
            let uid = stored.object["metadata"]["uid"].clone();
            if let Some(want) = options["preconditions"]["uid"].as_str()
                && uid != want
            {
                return status(
                    StatusCode::CONFLICT,
                    "Conflict",
                    &format!(
                        "Operation cannot be fulfilled on {} \"{name}\": Precondition failed: UID in precondition: {want}, UID in object meta: {}",
                        kind.plural,
                        uid.as_str().unwrap_or_default()
                    ),
                );
            }
            // As the real server reads DeleteOptions (apiserver endpoints/handlers/
            // delete.go): from the body when there is one, the query only when there is
            // none. A `?dryRun=All` beside a body is ignored, and the delete is real.
            let dry_run = if body.is_empty() {
                dry_run
            } else {
                options["dryRun"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|v| v == "All"))
            };
            if dry_run {
                return (StatusCode::OK, denormalize(&stored.object));
            }
            let policy = options["propagationPolicy"]
                .as_str()
                .unwrap_or("Background")
                .to_string();
            remove_object(st, &key, &policy);
            (
                StatusCode::OK,
                json!({"kind": "Status", "apiVersion": "v1", "status": "Success"}),
            )
        }
        ("PATCH", Some(name)) => {
            let Ok(patch) = serde_json::from_slice::<Value>(body) else {
                return status(
                    StatusCode::BAD_REQUEST,
                    "BadRequest",
                    "the apply body is not JSON (this test server reads JSON only)",
                );
            };
            if patch["metadata"]["name"] != name.as_str() {
                return status(
                    StatusCode::BAD_REQUEST,
                    "BadRequest",
                    "metadata.name does not match the URL",
                );
            }
            let Some(manager) = query_param(query, "fieldManager") else {
                return status(
                    StatusCode::BAD_REQUEST,
                    "BadRequest",
                    "fieldManager is required for apply patch",
                );
            };
            let force = query_param(query, "force") == Some("true");
            if kind.namespaced && !namespace_exists(st, &namespace) {
                return status(
                    StatusCode::NOT_FOUND,
                    "NotFound",
                    &format!("namespaces \"{namespace}\" not found"),
                );
            }
            let key = Key {
                group: kind.group.clone(),
                plural: kind.plural.clone(),
                namespace,
                name: name.clone(),
            };
            apply(st, key, patch, manager, force, dry_run)
        }
        _ => status(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "not supported by the test server",
        ),
    }
}

fn namespace_exists(st: &State, namespace: &str) -> bool {
    st.objects
        .keys()
        .any(|k| k.group.is_empty() && k.plural == "namespaces" && k.name == namespace)
}

/// Remove an object and, by `policy`, its dependents (ownerReferences by UID); a
/// Namespace takes its objects with it; a CRD its kind.
fn remove_object(st: &mut State, key: &Key, policy: &str) {
    let Some(gone) = st.objects.remove(key) else {
        return;
    };
    st.rv += 1;
    let uid = gone.object["metadata"]["uid"].clone();
    let dependents: Vec<Key> = st
        .objects
        .iter()
        .filter(|(_, s)| {
            s.object["metadata"]["ownerReferences"]
                .as_array()
                .is_some_and(|refs| refs.iter().any(|r| r["uid"] == uid))
        })
        .map(|(k, _)| k.clone())
        .collect();
    for d in dependents {
        if policy == "Orphan" {
            if let Some(s) = st.objects.get_mut(&d)
                && let Some(refs) = s.object["metadata"]["ownerReferences"].as_array_mut()
            {
                refs.retain(|r| r["uid"] != uid);
            }
        } else {
            remove_object(st, &d, policy);
        }
    }
    if key.group.is_empty() && key.plural == "namespaces" {
        let inside: Vec<Key> = st
            .objects
            .keys()
            .filter(|k| k.namespace == key.name)
            .cloned()
            .collect();
        for k in inside {
            remove_object(st, &k, policy);
        }
    }
    if gone.object["kind"] == "CustomResourceDefinition" {
        let plural = gone.object["spec"]["names"]["plural"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        st.kinds
            .retain(|k| k.plural != plural || k.group != gone.object["spec"]["group"]);
        st.pending_crds.retain(|(k, _)| k != key);
    }
}

/// The key of an associative list's items (SSA's `x-kubernetes-list-map-keys` for the
/// lists kf's objects use), when every item is an object that has it.
fn merge_key(field: &str, items: &[Value]) -> Option<&'static str> {
    let key = match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "volumes"
        | "env"
        | "imagePullSecrets" => "name",
        "volumeMounts" => "mountPath",
        "ports" if items.iter().all(|i| i.get("containerPort").is_some()) => "containerPort",
        "ports" => "port",
        _ => return None,
    };
    (!items.is_empty() && items.iter().all(|i| i.get(key).is_some())).then_some(key)
}

/// Associative lists as maps keyed `k:{"name":"web"}` (fieldsV1's spelling), so that
/// ownership, conflicts and merges work item by item.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, child)| {
                    let child = match child {
                        Value::Array(items) => match merge_key(k, items) {
                            Some(mk) => Value::Object(
                                items
                                    .iter()
                                    .map(|item| {
                                        (format!("k:{}", json!({ mk: item[mk] })), normalize(item))
                                    })
                                    .collect(),
                            ),
                            None => child.clone(),
                        },
                        other => normalize(other),
                    };
                    (k.clone(), child)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The stored form back as the API serves it.
fn denormalize(v: &Value) -> Value {
    match v {
        Value::Object(o) if !o.is_empty() && o.keys().all(|k| k.starts_with("k:")) => {
            Value::Array(o.values().map(denormalize).collect())
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, child)| (k.clone(), denormalize(child)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Kinds whose `.status` is a subresource: an apply to the object leaves it alone.
fn has_status_subresource(kind: &str) -> bool {
    matches!(
        kind,
        "Deployment"
            | "StatefulSet"
            | "DaemonSet"
            | "Job"
            | "Pod"
            | "PersistentVolumeClaim"
            | "Service"
            | "Namespace"
            | "CustomResourceDefinition"
    )
}

/// Mark a CRD Established and serve its kind.
fn establish(st: &mut State, key: &Key) {
    let Some(stored) = st.objects.get_mut(key) else {
        return;
    };
    stored.object["status"] = json!({"conditions": [{"type": "Established", "status": "True"}, {"type": "NamesAccepted", "status": "True"}]});
    let spec = stored.object["spec"].clone();
    for v in spec["versions"].as_array().into_iter().flatten() {
        let k = kind(
            spec["group"].as_str().unwrap_or_default(),
            v["name"].as_str().unwrap_or_default(),
            spec["names"]["kind"].as_str().unwrap_or_default(),
            spec["names"]["plural"].as_str().unwrap_or_default(),
            spec["scope"] == "Namespaced",
        );
        if !st
            .kinds
            .iter()
            .any(|x| x.group == k.group && x.version == k.version && x.plural == k.plural)
        {
            st.kinds.push(k);
        }
    }
}

fn establish_due_crds(st: &mut State) {
    let now = std::time::Instant::now();
    let due: Vec<Key> = st
        .pending_crds
        .iter()
        .filter(|(_, at)| *at <= now)
        .map(|(k, _)| k.clone())
        .collect();
    st.pending_crds.retain(|(_, at)| *at > now);
    for k in due {
        establish(st, &k);
    }
}

const UNOWNED: &[&str] = &["apiVersion", "kind"];

fn leaves(v: &Value, prefix: &mut Vec<String>, out: &mut BTreeSet<Vec<String>>) {
    match v {
        Value::Object(o) if !o.is_empty() => {
            for (k, child) in o {
                if prefix.is_empty() && UNOWNED.contains(&k.as_str()) {
                    continue;
                }
                if prefix.len() == 1
                    && prefix[0] == "metadata"
                    && matches!(
                        k.as_str(),
                        "name"
                            | "namespace"
                            | "managedFields"
                            | "resourceVersion"
                            | "uid"
                            | "generation"
                            | "creationTimestamp"
                    )
                {
                    continue;
                }
                prefix.push(k.clone());
                leaves(child, prefix, out);
                prefix.pop();
            }
        }
        _ => {
            out.insert(prefix.clone());
        }
    }
}

fn at<'a>(v: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

fn set_at(v: &mut Value, path: &[String], value: Value) {
    let mut cur = v;
    for k in &path[..path.len() - 1] {
        if !cur.get(k).is_some_and(Value::is_object) {
            cur[k.as_str()] = Value::Object(Map::new());
        }
        cur = cur.get_mut(k).unwrap();
    }
    cur[path[path.len() - 1].as_str()] = value;
}

fn remove_at(v: &mut Value, path: &[String]) {
    if path.is_empty() {
        return;
    }
    if let Some(parent) = path[..path.len() - 1]
        .iter()
        .try_fold(&mut *v, |v, k| v.get_mut(k))
        && let Some(o) = parent.as_object_mut()
    {
        o.remove(&path[path.len() - 1]);
        if o.is_empty() && path.len() > 1 {
            remove_at(v, &path[..path.len() - 1]);
        }
    }
}

/// managedFields as the API server writes them: one entry per manager, its fields as a
/// `FieldsV1` tree (`{"f:data": {"f:mode": {}}}`, list items as `k:{"name":"web"}`).
fn managed_fields(managers: &BTreeMap<String, BTreeSet<Vec<String>>>) -> Value {
    Value::Array(
        managers
            .iter()
            .map(|(m, paths)| {
                let mut tree = json!({});
                for p in paths {
                    let mut cur = &mut tree;
                    for seg in p {
                        let key = if seg.starts_with("k:") {
                            seg.clone()
                        } else {
                            format!("f:{seg}")
                        };
                        if cur.get(&key).is_none() {
                            cur[key.as_str()] = json!({});
                        }
                        cur = cur.get_mut(&key).unwrap();
                    }
                }
                json!({"manager": m, "operation": "Apply", "apiVersion": "v1",
                       "time": "2026-11-30T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": tree})
            })
            .collect(),
    )
}

fn apply(
    st: &mut State,
    key: Key,
    patch: Value,
    manager: &str,
    force: bool,
    dry_run: bool,
) -> (StatusCode, Value) {
    let mut patch = normalize(&patch);
    if has_status_subresource(patch["kind"].as_str().unwrap_or_default())
        && let Some(o) = patch.as_object_mut()
    {
        o.remove("status");
    }
    let mut owned = BTreeSet::new();
    leaves(&patch, &mut Vec::new(), &mut owned);
    let existing = st.objects.get(&key).cloned();
    let created = existing.is_none();
    let mut stored = existing.unwrap_or_else(|| Stored {
        object: json!({}),
        managers: BTreeMap::new(),
    });
    let mut conflicts = Vec::new();
    for (other, paths) in &stored.managers {
        if other == manager {
            continue;
        }
        for p in paths.intersection(&owned) {
            if at(&stored.object, p) != at(&patch, p) {
                conflicts.push((other.clone(), p.clone()));
            }
        }
    }
    if !conflicts.is_empty() && !force {
        let list: Vec<String> = conflicts
            .iter()
            .map(|(m, p)| format!("conflict with \"{m}\": .{}", p.join(".")))
            .collect();
        return status(
            StatusCode::CONFLICT,
            "Conflict",
            &format!(
                "Apply failed with {} conflicts: {}",
                conflicts.len(),
                list.join("; ")
            ),
        );
    }
    for (m, p) in &conflicts {
        if let Some(paths) = stored.managers.get_mut(m) {
            paths.remove(p);
        }
    }
    let before = stored.object.clone();
    let mut object = stored.object.clone();
    let previous = stored.managers.get(manager).cloned().unwrap_or_default();
    for p in previous.difference(&owned) {
        let others_own = stored
            .managers
            .iter()
            .any(|(m, ps)| m != manager && ps.contains(p));
        if !others_own {
            remove_at(&mut object, p);
        }
    }
    object["apiVersion"] = patch["apiVersion"].clone();
    object["kind"] = patch["kind"].clone();
    set_at(
        &mut object,
        &["metadata".into(), "name".into()],
        Value::String(key.name.clone()),
    );
    if !key.namespace.is_empty() {
        set_at(
            &mut object,
            &["metadata".into(), "namespace".into()],
            Value::String(key.namespace.clone()),
        );
    }
    for p in &owned {
        set_at(
            &mut object,
            p,
            at(&patch, p).cloned().unwrap_or(Value::Null),
        );
    }
    stored.managers.insert(manager.to_string(), owned);
    stored.managers.retain(|_, ps| !ps.is_empty());
    let comparable = |v: &Value| {
        let mut v = v.clone();
        if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("managedFields");
        }
        v
    };
    let changed = comparable(&before) != comparable(&object);
    if created {
        st.uid += 1;
        set_at(
            &mut object,
            &["metadata".into(), "uid".into()],
            Value::String(format!("00000000-0000-0000-0000-{:012}", st.uid)),
        );
        set_at(
            &mut object,
            &["metadata".into(), "creationTimestamp".into()],
            Value::String("2026-11-30T00:00:00Z".into()),
        );
        set_at(
            &mut object,
            &["metadata".into(), "generation".into()],
            json!(1),
        );
    }
    if changed || created {
        let rv = st.rv + 1;
        if !dry_run {
            st.rv = rv;
        }
        set_at(
            &mut object,
            &["metadata".into(), "resourceVersion".into()],
            Value::String(rv.to_string()),
        );
        if !created
            && comparable(&before.get("spec").cloned().unwrap_or(Value::Null))
                != comparable(&object.get("spec").cloned().unwrap_or(Value::Null))
        {
            let g = object["metadata"]["generation"].as_i64().unwrap_or(1) + 1;
            set_at(
                &mut object,
                &["metadata".into(), "generation".into()],
                json!(g),
            );
        }
    }
    set_at(
        &mut object,
        &["metadata".into(), "managedFields".into()],
        managed_fields(&stored.managers),
    );
    if created && patch["kind"] == "CustomResourceDefinition" {
        object["status"] = json!({"conditions": [{"type": "Established", "status": "False", "reason": "Installing"}, {"type": "NamesAccepted", "status": "True"}]});
    }
    stored.object = object.clone();
    if !dry_run {
        st.objects.insert(key.clone(), stored);
        if created && patch["kind"] == "CustomResourceDefinition" {
            match st.crd_established {
                CrdEstablished::Immediately => establish(st, &key),
                CrdEstablished::After(d) => st
                    .pending_crds
                    .push((key.clone(), std::time::Instant::now() + d)),
                CrdEstablished::Never => {}
            }
            if let Some(s) = st.objects.get(&key) {
                object = s.object.clone();
            }
        }
    }
    let object = denormalize(&object);
    (
        if created {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
        object,
    )
}

#[allow(unused)]
fn _infallible(_: Infallible) {}
