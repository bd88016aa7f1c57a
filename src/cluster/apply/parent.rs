//! The ApplySet parent: the group kinds and namespaces of an apply's members, written
//! before the members (widened) and after a complete apply (narrowed).

use std::collections::BTreeSet;

use super::ApplyOptions;
use super::send::send_apply;
use crate::cluster::applyset::{self, ApplySet};
use crate::cluster::client::Cluster;
use crate::cluster::client::Failure;
use crate::cluster::item::{Item, str_at};
use http::StatusCode;

/// What an ApplySet parent lists: the members' group kinds and namespaces.
pub struct SetMembers {
    pub group_kinds: BTreeSet<String>,
    pub namespaces: BTreeSet<String>,
}

impl SetMembers {
    pub fn of<'a>(items: impl IntoIterator<Item = &'a Item>, env_namespace: &str) -> SetMembers {
        let mut members = SetMembers {
            group_kinds: BTreeSet::new(),
            namespaces: BTreeSet::from([env_namespace.to_string()]),
        };
        for i in items {
            members
                .group_kinds
                .insert(applyset::group_kind(&i.api_version, &i.kind));
            if let Some(ns) = str_at(&i.object, &["metadata", "namespace"]) {
                members.namespaces.insert(ns.to_string());
            }
        }
        members
    }
}

/// How the parent's lists change.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ParentUpdate {
    /// Before members are applied: add to what the live parent lists, so a kind whose
    /// objects are still to be pruned stays visible.
    Widen,
    /// After a complete prune: list only what the set now holds (KEP-3659).
    Exact,
}

/// Once a full render is applied and every prune candidate is gone, the parent lists only
/// the kinds the set still has, as kubectl does after its prune. Apply with `-c`, or a
/// prune that did not finish, keeps the wider list.
pub async fn narrow_parent(
    cluster: &Cluster,
    members: &SetMembers,
    options: &ApplyOptions,
) -> Result<(), String> {
    let Some(set) = &options.applyset else {
        return Ok(());
    };
    apply_parent(cluster, set, members, options, ParentUpdate::Exact).await
}

/// Apply the ApplySet's parent Secret.
pub(super) async fn apply_parent(
    cluster: &Cluster,
    set: &ApplySet,
    members: &SetMembers,
    options: &ApplyOptions,
    update: ParentUpdate,
) -> Result<(), String> {
    let path = format!("/api/v1/namespaces/{}/secrets/{}", set.namespace, set.name);
    let mut kinds = members.group_kinds.clone();
    match cluster.get(&path).await {
        Ok(live) => {
            if live.body["metadata"]["labels"][applyset::ID] != set.id().as_str() {
                return Err(format!(
                    "a Secret of that name exists and is not this ApplySet's parent (no {} label {}); rename or remove it",
                    applyset::ID,
                    set.id()
                ));
            }
            let listed = live.body["metadata"]["annotations"][applyset::CONTAINS_GROUP_KINDS]
                .as_str()
                .unwrap_or_default();
            if update == ParentUpdate::Exact && listed == join(&kinds) {
                return Ok(());
            }
            if update == ParentUpdate::Widen {
                kinds.extend(
                    listed
                        .split(',')
                        .filter(|k| !k.is_empty())
                        .map(str::to_string),
                );
            }
        }
        Err(Failure::Status(r)) if r.status == StatusCode::NOT_FOUND => {}
        Err(e) => return Err(e.to_string()),
    }
    let body = serde_json::to_vec(&set.parent(&kinds, &members.namespaces)).unwrap_or_default();
    send_apply(cluster, &path, body, &options.sending())
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

pub(super) fn join(kinds: &BTreeSet<String>) -> String {
    kinds
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(",")
}
