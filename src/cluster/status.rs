//! Readiness of live objects: what `kf status` prints and `kf apply --wait` waits for.

use std::time::{Duration, Instant};

use futures::StreamExt;
use http::StatusCode;
use serde_json::Value;

use super::client::{Cluster, Failure};
use super::resources::Resource;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    Ready,
    InProgress,
    Failed,
    Missing,
    /// Being deleted (a deletionTimestamp): whatever its status says, it is going.
    Terminating,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Ready => "Ready",
            State::InProgress => "InProgress",
            State::Failed => "Failed",
            State::Missing => "Missing",
            State::Terminating => "Terminating",
        }
    }

    /// Nothing more will happen by waiting.
    pub fn settled(self) -> bool {
        matches!(self, State::Ready | State::Failed)
    }
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or(0)
}

fn condition<'a>(obj: &'a Value, kind: &str) -> Option<&'a Value> {
    obj["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

fn condition_true(obj: &Value, kind: &str) -> bool {
    condition(obj, kind).is_some_and(|c| c["status"] == "True")
}

fn message(obj: &Value, kind: &str) -> String {
    condition(obj, kind)
        .and_then(|c| c["message"].as_str().or(c["reason"].as_str()))
        .unwrap_or("")
        .to_string()
}

/// The Kubeflow training jobs, whose operators report Created, Running, Restarting,
/// Succeeded and Failed conditions.
const TRAINING_JOBS: &[&str] = &[
    "TFJob",
    "PyTorchJob",
    "MPIJob",
    "MXJob",
    "XGBoostJob",
    "PaddleJob",
    "JAXJob",
    "ChainerJob",
    "Caffe2Job",
];

/// Kinds that run to completion: `--wait` only needs them to exist and not have failed;
/// `--wait-for-jobs` waits until they finish (Helm's flag).
pub fn is_job(kind: &str) -> bool {
    matches!(kind, "Job" | "TrainJob" | "Workflow") || TRAINING_JOBS.contains(&kind)
}

/// When the object was marked for deletion (its deletionTimestamp), if it was: until
/// the garbage collector and its finalizers are done it is still listed, and an apply
/// only patches what is about to go.
pub fn being_deleted(obj: &Value) -> Option<&str> {
    obj["metadata"]["deletionTimestamp"].as_str()
}

/// How ready a live object is, and a word on why.
pub fn readiness(obj: &Value) -> (State, String) {
    if let Some(since) = being_deleted(obj) {
        let finalizers: Vec<&str> = obj["metadata"]["finalizers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let held = if finalizers.is_empty() {
            String::new()
        } else {
            format!(", held by finalizers {}", finalizers.join(", "))
        };
        return (
            State::Terminating,
            format!("being deleted since {since}{held}"),
        );
    }
    let kind = obj["kind"].as_str().unwrap_or_default();
    let status = &obj["status"];
    let observed = status["observedGeneration"]
        .as_i64()
        .is_none_or(|g| g >= int(&obj["metadata"]["generation"]));
    match kind {
        "Deployment" | "StatefulSet" => {
            let want = obj["spec"]["replicas"].as_i64().unwrap_or(1);
            let updated = int(&status["updatedReplicas"]);
            let ready = if kind == "Deployment" {
                int(&status["availableReplicas"])
            } else {
                int(&status["readyReplicas"])
            };
            if kind == "Deployment"
                && condition(obj, "Progressing")
                    .is_some_and(|c| c["reason"] == "ProgressDeadlineExceeded")
            {
                return (State::Failed, message(obj, "Progressing"));
            }
            // kubectl's rollout status (kubectl/pkg/polymorphichelpers/rollout_status.go): not
            // done while old replicas still run (status.replicas above updatedReplicas).
            let total = status["replicas"].as_i64().unwrap_or(updated);
            let old = (total - updated).max(0);
            let detail = if old > 0 {
                format!("{ready}/{want} ready, {updated} updated, {old} old pending termination")
            } else {
                format!("{ready}/{want} ready, {updated} updated")
            };
            if observed && updated >= want && ready >= want && old == 0 {
                (State::Ready, detail)
            } else {
                (State::InProgress, detail)
            }
        }
        "DaemonSet" => {
            let want = int(&status["desiredNumberScheduled"]);
            let ready = int(&status["numberReady"]);
            let detail = format!("{ready}/{want} ready");
            if observed && ready >= want && status.get("desiredNumberScheduled").is_some() {
                (State::Ready, detail)
            } else {
                (State::InProgress, detail)
            }
        }
        "Job" => {
            if condition_true(obj, "Complete") {
                (State::Ready, "complete".into())
            } else if condition_true(obj, "Failed") {
                (State::Failed, message(obj, "Failed"))
            } else {
                (
                    State::InProgress,
                    format!("{} succeeded", int(&status["succeeded"])),
                )
            }
        }
        k if TRAINING_JOBS.contains(&k) => {
            if condition_true(obj, "Succeeded") {
                (State::Ready, "succeeded".into())
            } else if condition_true(obj, "Failed") {
                (State::Failed, message(obj, "Failed"))
            } else if condition_true(obj, "Running") {
                (State::InProgress, "running".into())
            } else if condition_true(obj, "Restarting") {
                (State::InProgress, "restarting".into())
            } else {
                (State::InProgress, "created".into())
            }
        }
        "TrainJob" => {
            if condition_true(obj, "Complete") {
                (State::Ready, "complete".into())
            } else if condition_true(obj, "Failed") {
                (State::Failed, message(obj, "Failed"))
            } else if condition_true(obj, "Suspended") {
                (State::InProgress, "suspended".into())
            } else if status["jobsStatus"]
                .as_array()
                .is_some_and(|jobs| jobs.iter().any(|j| int(&j["active"]) > 0))
            {
                (State::InProgress, "running".into())
            } else {
                // No status yet: the controller has not started it.
                (State::InProgress, "pending".into())
            }
        }
        "InferenceService" | "SeldonDeployment" => {
            if condition_true(obj, "Ready") || status["state"] == "Available" {
                (State::Ready, "ready".into())
            } else {
                (State::InProgress, message(obj, "Ready"))
            }
        }
        "Workflow" => match status["phase"].as_str() {
            Some("Succeeded") => (State::Ready, "succeeded".into()),
            Some(p @ ("Failed" | "Error")) => (
                State::Failed,
                format!("{p}: {}", status["message"].as_str().unwrap_or("")),
            ),
            Some(p) => (State::InProgress, p.to_ascii_lowercase()),
            None => (State::InProgress, "pending".into()),
        },
        "CustomResourceDefinition" => {
            if condition_true(obj, "Established") {
                (State::Ready, "established".into())
            } else {
                (State::InProgress, "not established yet".into())
            }
        }
        "PersistentVolumeClaim" => match status["phase"].as_str() {
            Some("Bound") => (State::Ready, "bound".into()),
            Some("Lost") => (State::Failed, "lost".into()),
            p => (
                State::InProgress,
                p.unwrap_or("pending").to_ascii_lowercase(),
            ),
        },
        "Pod" => match status["phase"].as_str() {
            Some("Succeeded") => (State::Ready, "succeeded".into()),
            Some("Failed") => (
                State::Failed,
                status["message"].as_str().unwrap_or("failed").into(),
            ),
            Some("Running") if condition_true(obj, "Ready") => (State::Ready, "running".into()),
            p => (
                State::InProgress,
                p.unwrap_or("pending").to_ascii_lowercase(),
            ),
        },
        _ => (State::Ready, "exists".into()),
    }
}

/// An object's state and a word on why.
pub type Readiness = (State, String);

/// An object to watch.
#[derive(Debug, Clone)]
pub struct Watched {
    pub resource: Resource,
    pub namespace: Option<String>,
    pub name: String,
}

impl Watched {
    pub fn id(&self) -> String {
        format!("{}/{}", self.resource.kind_name(), self.name)
    }
}

/// One object's readiness now.
pub async fn check(cluster: &Cluster, w: &Watched) -> (State, String) {
    let path = w.resource.path(w.namespace.as_deref(), Some(&w.name));
    match cluster.get(&path).await {
        Ok(r) => readiness(&r.body),
        Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => {
            (State::Missing, "not on the cluster".into())
        }
        Err(e) => (State::InProgress, format!("cannot read it: {e}")),
    }
}

/// Every object's readiness now, in order. The objects of a kind in one namespace are
/// read with one LIST (with kf's label `selector`, when given), so that `--wait` costs a
/// request per kind and namespace a round, not one per object; an object the list lacks
/// (kf did not label it, or it is gone) is read on its own.
pub async fn check_all(
    cluster: &Cluster,
    objects: &[Watched],
    selector: Option<&str>,
) -> Vec<(State, String)> {
    let mut states: Vec<Option<Readiness>> = vec![None; objects.len()];
    if let Some(selector) = selector {
        let mut groups: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
        for (i, w) in objects.iter().enumerate() {
            groups
                .entry(w.resource.path(w.namespace.as_deref(), None))
                .or_default()
                .push(i);
        }
        let selector = super::query::encode(selector);
        let listed: Vec<(Vec<usize>, Option<Value>)> =
            futures::stream::iter(groups.into_iter().filter(|(_, at)| at.len() > 1))
                .map(|(collection, at)| {
                    let path = format!("{collection}?labelSelector={selector}");
                    async move { (at, cluster.get(&path).await.ok().map(|r| r.body)) }
                })
                .buffered(8)
                .collect()
                .await;
        for (at, list) in listed {
            let items = list
                .as_ref()
                .and_then(|l| l["items"].as_array())
                .map(Vec::as_slice)
                .unwrap_or_default();
            for i in at {
                let name = objects[i].name.as_str();
                states[i] = items
                    .iter()
                    .find(|o| o["metadata"]["name"].as_str() == Some(name))
                    .map(readiness);
            }
        }
    }
    let rest: Vec<(usize, Readiness)> = futures::stream::iter(
        objects
            .iter()
            .enumerate()
            .filter(|(i, _)| states[*i].is_none()),
    )
    .map(|(i, w)| async move { (i, check(cluster, w).await) })
    .buffered(8)
    .collect()
    .await;
    for (i, r) in rest {
        states[i] = Some(r);
    }
    states
        .into_iter()
        .map(|s| s.unwrap_or((State::InProgress, String::new())))
        .collect()
}

/// Poll until `done` says so of every object, or `timeout` passes; `progress` hears each
/// round.
pub async fn wait(
    cluster: &Cluster,
    objects: &[Watched],
    selector: Option<&str>,
    timeout: Duration,
    interval: Duration,
    done: &dyn Fn(&Watched, State) -> bool,
    progress: &mut dyn FnMut(&[Readiness]),
) -> (Vec<(State, String)>, bool) {
    let start = Instant::now();
    loop {
        let states = check_all(cluster, objects, selector).await;
        progress(&states);
        if objects.iter().zip(&states).all(|(w, (s, _))| done(w, *s)) {
            return (states, true);
        }
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return (states, false);
        }
        tokio::time::sleep(interval.min(left)).await;
        // No last round the command's deadline would cut short: its reads would fail and
        // hide the states seen.
        if start.elapsed() >= timeout
            && cluster
                .remaining()
                .is_some_and(|r| r < Duration::from_millis(500))
        {
            return (states, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn deployments_are_ready_when_rolled_out() {
        let d = |status: Value| json!({"kind": "Deployment", "metadata": {"generation": 2}, "spec": {"replicas": 3}, "status": status});
        assert_eq!(
            readiness(&d(
                json!({"observedGeneration": 2, "updatedReplicas": 3, "availableReplicas": 3})
            ))
            .0,
            State::Ready
        );
        assert_eq!(
            readiness(&d(
                json!({"observedGeneration": 1, "updatedReplicas": 3, "availableReplicas": 3})
            ))
            .0,
            State::InProgress
        );
        let (s, detail) = readiness(&d(
            json!({"observedGeneration": 2, "updatedReplicas": 3, "availableReplicas": 1}),
        ));
        assert_eq!(
            (s, detail.as_str()),
            (State::InProgress, "1/3 ready, 3 updated")
        );
        // A rollout with the old ReplicaSet's pods still running is not done.
        let (s, detail) = readiness(&d(
            json!({"observedGeneration": 2, "replicas": 4, "updatedReplicas": 3, "availableReplicas": 3}),
        ));
        assert_eq!(
            (s, detail.as_str()),
            (
                State::InProgress,
                "3/3 ready, 3 updated, 1 old pending termination"
            )
        );
    }

    #[test]
    fn a_trainjob_without_status_is_pending_not_running() {
        let (s, d) = readiness(&json!({"kind": "TrainJob", "metadata": {"name": "t"}}));
        assert_eq!((s, d.as_str()), (State::InProgress, "pending"));
        let running =
            json!({"kind": "TrainJob", "status": {"jobsStatus": [{"name": "node", "active": 2}]}});
        assert_eq!(readiness(&running).1, "running");
        assert!(is_job("TFJob") && is_job("Job") && !is_job("Deployment"));
    }

    #[test]
    fn training_jobs_follow_their_conditions() {
        let job = |conds: Value| json!({"kind": "TFJob", "status": {"conditions": conds}});
        assert_eq!(
            readiness(&job(json!([{"type": "Created", "status": "True"}]))).0,
            State::InProgress
        );
        assert_eq!(
            readiness(&job(json!([{"type": "Running", "status": "True"}]))).1,
            "running"
        );
        assert_eq!(readiness(&job(json!([{"type": "Running", "status": "False"}, {"type": "Succeeded", "status": "True"}]))).0, State::Ready);
        let (s, m) = readiness(&job(
            json!([{"type": "Failed", "status": "True", "message": "OOMKilled"}]),
        ));
        assert_eq!((s, m.as_str()), (State::Failed, "OOMKilled"));
        assert_eq!(readiness(&json!({"kind": "Job", "status": {"conditions": [{"type": "Complete", "status": "True"}]}})).0, State::Ready);
        assert_eq!(readiness(&json!({"kind": "ConfigMap"})).0, State::Ready);
    }
}
