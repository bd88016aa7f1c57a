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
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Ready => "Ready",
            State::InProgress => "InProgress",
            State::Failed => "Failed",
            State::Missing => "Missing",
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

/// How ready a live object is, and a word on why.
pub fn readiness(obj: &Value) -> (State, String) {
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
            let detail = format!("{ready}/{want} ready, {updated} updated");
            if observed && updated >= want && ready >= want {
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
            } else {
                (State::InProgress, "running".into())
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

/// Every object's readiness now, in order.
pub async fn check_all(cluster: &Cluster, objects: &[Watched]) -> Vec<(State, String)> {
    futures::stream::iter(objects)
        .map(|w| check(cluster, w))
        .buffered(8)
        .collect()
        .await
}

/// Poll until every object is settled or `timeout` passes; `progress` hears each round.
pub async fn wait(
    cluster: &Cluster,
    objects: &[Watched],
    timeout: Duration,
    interval: Duration,
    progress: &mut dyn FnMut(&[Readiness]),
) -> (Vec<(State, String)>, bool) {
    let start = Instant::now();
    loop {
        let states = check_all(cluster, objects).await;
        progress(&states);
        if states.iter().all(|(s, _)| s.settled()) {
            return (states, true);
        }
        if start.elapsed() >= timeout {
            return (states, false);
        }
        tokio::time::sleep(interval.min(timeout.saturating_sub(start.elapsed()))).await;
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
