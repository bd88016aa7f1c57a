//! A check across objects: a workload queued in Kueue (label `kueue.x-k8s.io/queue-name`)
//! whose pods select nodes by a label that every flavor of its queue sets to another
//! value. Kueue admits a workload only to a flavor whose `nodeLabels` its pods' node
//! selector allows, and then adds those labels to the selector; with every flavor in
//! conflict, the workload waits forever. The check follows the render's own LocalQueue →
//! ClusterQueue → ResourceFlavor objects, and says nothing when any of them is not in
//! the render (defined elsewhere, kf cannot know).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

fn is_kueue(o: &Map<String, Value>, kind: &str) -> bool {
    o.get("kind").and_then(Value::as_str) == Some(kind)
        && o.get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|a| a.starts_with("kueue.x-k8s.io/"))
}

fn name(o: &Map<String, Value>) -> &str {
    o.get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn namespace(o: &Map<String, Value>) -> &str {
    o.get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The first queue-name label anywhere in `v` (the job's, a Deployment's, a KServe
/// predictor's `labels`, an Argo template's metadata).
fn queue_of(v: &Value) -> Option<&str> {
    match v {
        Value::Object(o) => o
            .get("labels")
            .and_then(|l| l.get(QUEUE_LABEL))
            .and_then(Value::as_str)
            .or_else(|| o.values().find_map(queue_of)),
        Value::Array(a) => a.iter().find_map(queue_of),
        _ => None,
    }
}

/// Every `nodeSelector` map in `v` (pod specs, at any depth).
fn node_selectors<'a>(v: &'a Value, out: &mut Vec<&'a Map<String, Value>>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Object(sel)) = o.get("nodeSelector") {
                out.push(sel);
            }
            o.values().for_each(|c| node_selectors(c, out));
        }
        Value::Array(a) => a.iter().for_each(|c| node_selectors(c, out)),
        _ => {}
    }
}

/// (index of the object, message) for each queued workload no flavor of its queue admits.
pub fn flavor_conflicts(objects: &[&Map<String, Value>]) -> Vec<(usize, String)> {
    let no_labels = Map::new();
    let flavors: BTreeMap<&str, &Map<String, Value>> = objects
        .iter()
        .filter(|o| is_kueue(o, "ResourceFlavor"))
        .map(|o| {
            let labels = o
                .get("spec")
                .and_then(|s| s.get("nodeLabels"))
                .and_then(Value::as_object);
            (name(o), labels.unwrap_or(&no_labels))
        })
        .collect();
    let cluster_queues: BTreeMap<&str, Vec<&str>> = objects
        .iter()
        .filter(|o| is_kueue(o, "ClusterQueue"))
        .map(|o| {
            let names = o
                .get("spec")
                .and_then(|s| s.get("resourceGroups"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|g| g.get("flavors").and_then(Value::as_array))
                .flatten()
                .filter_map(|f| f.get("name").and_then(Value::as_str))
                .collect();
            (name(o), names)
        })
        .collect();
    let local_queues: BTreeMap<(&str, &str), &str> = objects
        .iter()
        .filter(|o| is_kueue(o, "LocalQueue"))
        .filter_map(|o| {
            let cq = o.get("spec")?.get("clusterQueue")?.as_str()?;
            Some(((namespace(o), name(o)), cq))
        })
        .collect();
    let mut found = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        if o.get("apiVersion")
            .and_then(Value::as_str)
            .is_some_and(|a| a.starts_with("kueue.x-k8s.io/"))
        {
            continue;
        }
        // An object's own top level holds no labels or node selector: its fields do.
        let Some(queue) = o.values().find_map(queue_of) else {
            continue;
        };
        let Some(cq) = local_queues.get(&(namespace(o), queue)) else {
            continue;
        };
        let Some(names) = cluster_queues.get(cq) else {
            continue;
        };
        let Some(labels) = names
            .iter()
            .map(|n| flavors.get(n).map(|l| (*n, *l)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let mut selectors = Vec::new();
        o.values().for_each(|v| node_selectors(v, &mut selectors));
        // The first flavor-selector clash of each flavor; none may admit the pods.
        let clashes: Vec<String> = labels
            .iter()
            .filter_map(|(flavor, nl)| {
                selectors.iter().find_map(|sel| {
                    sel.iter().find_map(|(k, v)| match nl.get(k) {
                        Some(f) if f != v => Some(format!(
                            "flavor {flavor} sets {k}={}, the pods select {k}={}",
                            f.as_str().unwrap_or_default(),
                            v.as_str().unwrap_or_default()
                        )),
                        _ => None,
                    })
                })
            })
            .collect();
        if !labels.is_empty() && clashes.len() == labels.len() {
            found.push((
                i,
                format!(
                    "queue {queue} (ClusterQueue {cq}) can never admit it: {}. Kueue admits a workload only to a flavor its node selector allows, and adds the flavor's nodeLabels to it; give the flavor and the environment's gpuNodeSelector the same value, or clear gpuNodeSelector where jobs queue",
                    clashes.join("; ")
                ),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn a_job_whose_selector_no_flavor_allows_is_found_and_others_are_not() {
        let flavor = |name: &str, value: &str| {
            obj(
                json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
                "spec": {"nodeLabels": {"accelerator": value}}}),
            )
        };
        let cq = obj(
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "team"},
            "spec": {"resourceGroups": [{"flavors": [{"name": "l4"}, {"name": "a100"}]}]}}),
        );
        let lq = obj(
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "prod"},
            "spec": {"clusterQueue": "team"}}),
        );
        let job = |selector: &str| {
            obj(
                json!({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                "metadata": {"name": "j", "namespace": "prod", "labels": {QUEUE_LABEL: "q"}},
                "spec": {"pytorchReplicaSpecs": {"Worker": {"template": {"spec": {"nodeSelector": {"accelerator": selector}}}}}}}),
            )
        };
        let (l4, a100) = (flavor("l4", "nvidia-l4"), flavor("a100", "nvidia-a100"));
        let t4 = job("nvidia-t4");
        let found = flavor_conflicts(&[&l4, &a100, &cq, &lq, &t4]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].1.contains(
                "flavor l4 sets accelerator=nvidia-l4, the pods select accelerator=nvidia-t4"
            ),
            "{}",
            found[0].1
        );
        // One flavor that allows it is enough.
        let on_l4 = job("nvidia-l4");
        assert!(flavor_conflicts(&[&l4, &a100, &cq, &lq, &on_l4]).is_empty());
        // A flavor not in the render: kf cannot know, and says nothing.
        assert!(flavor_conflicts(&[&l4, &cq, &lq, &t4]).is_empty());
    }
}
