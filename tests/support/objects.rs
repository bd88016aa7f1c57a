//! Looking into rendered objects: `kf show -o json` items, objects by kind and name, and
//! RBAC rules by what they grant.

use serde_json::Value;

use super::{TempApp, ok};

/// The objects `kf show ENV -c COMPONENT` renders.
pub fn rendered(app: &TempApp, env: &str, component: &str) -> Vec<Value> {
    let out = ok(&app.root, &["show", env, "-c", component, "-o", "json"]);
    let list: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    list["items"].as_array().expect("a List").clone()
}

/// The object of `kind` named `name`; the failure lists what there is.
pub fn find<'a>(objs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objs.iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind}/{name} in {:#?}", names(objs)))
}

/// `kind/name` of each object.
pub fn names(objs: &[Value]) -> Vec<String> {
    objs.iter()
        .map(|o| {
            format!(
                "{}/{}",
                o["kind"].as_str().unwrap_or("?"),
                o["metadata"]["name"].as_str().unwrap_or("?")
            )
        })
        .collect()
}

/// The strings of a JSON array (none when `v` is not one).
pub fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The verbs a Role or ClusterRole grants on `group`/`resource`, all its rules together.
pub fn verbs<'a>(role: &'a Value, group: &str, resource: &str) -> Vec<&'a str> {
    let mut out: Vec<&str> = role["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| {
            strings(&r["apiGroups"]).contains(&group)
                && strings(&r["resources"]).contains(&resource)
        })
        .flat_map(|r| strings(&r["verbs"]))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `role` grants every verb of `wanted` on `group`/`resource`.
pub fn assert_can(role: &Value, group: &str, resource: &str, wanted: &[&str]) {
    let have = verbs(role, group, resource);
    for verb in wanted {
        assert!(
            have.contains(verb),
            "{} may not {verb} {group}/{resource} (has {have:?})",
            role["metadata"]["name"]
        );
    }
}
