//! A small Kubernetes API server for tests, started in-process on 127.0.0.1 (no
//! kube-apiserver can run on these machines).
//!
//! What it models: discovery (`/api`, `/apis`, per group-version resource lists; it has no
//! aggregated discovery, like older servers), namespaced and cluster-scoped objects with
//! UIDs, resourceVersions and generations, GET/LIST (equality label selectors)/DELETE,
//! server-side apply (`application/apply-patch+yaml`) with field managers, conflicts (409
//! unless `force=true`) and removal of fields a manager stops applying, `dryRun=All`, CRDs
//! that become Established and add their kind to discovery, and injected faults (status
//! codes, 429 with Retry-After, dropped connections, slow replies).
//!
//! What it does not model: admission, defaulting and validation, strategic merge of lists
//! (a list is owned and replaced as a whole, where the real server merges lists of
//! containers, ports… by key), status subresources, watches, garbage collection of
//! dependents, authentication and authorization, and PATCH types other than apply.

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
    /// How many requests it hits; then it is spent.
    pub times: usize,
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
            .map(|s| s.object.clone())
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
                    selector
                        .iter()
                        .all(|(k, v)| o["metadata"]["labels"][k] == *v)
                })
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
                Some(s) => (StatusCode::OK, s.object.clone()),
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
            if !st.objects.contains_key(&key) {
                return status(
                    StatusCode::NOT_FOUND,
                    "NotFound",
                    &format!("{} \"{name}\" not found", kind.plural),
                );
            }
            if dry_run {
                return (StatusCode::OK, st.objects[&key].object.clone());
            }
            let gone = st.objects.remove(&key).unwrap();
            if kind.kind == "CustomResourceDefinition" {
                let plural = gone.object["spec"]["names"]["plural"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                st.kinds
                    .retain(|k| k.plural != plural || k.group != gone.object["spec"]["group"]);
            }
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

fn managed_fields(managers: &BTreeMap<String, BTreeSet<Vec<String>>>) -> Value {
    Value::Array(
        managers
            .iter()
            .map(|(m, paths)| json!({"manager": m, "operation": "Apply", "fieldsType": "FieldsV1",
                                     "fieldsV1": paths.iter().map(|p| format!(".{}", p.join("."))).collect::<Vec<_>>()}))
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
    if patch["kind"] == "CustomResourceDefinition" {
        object["status"] = json!({"conditions": [{"type": "Established", "status": "True"}, {"type": "NamesAccepted", "status": "True"}]});
    }
    stored.object = object.clone();
    if !dry_run {
        if patch["kind"] == "CustomResourceDefinition" {
            let spec = &patch["spec"];
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
        st.objects.insert(key, stored);
    }
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
