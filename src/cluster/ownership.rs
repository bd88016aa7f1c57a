//! Whose object a live object is. One check, used by apply (never take over another kf
//! app's or environment's object), prune and delete (never remove what kf did not apply).
//!
//! kf never trusts the server to have filtered for it: a proxy or an old server may ignore
//! `labelSelector`, so every object kf would delete is checked here, on the client, against
//! three marks that only an apply by this app and environment leaves together:
//! - kf's labels (`app.kubernetes.io/managed-by=kf`, `kf.dev/app`, `kf.dev/environment`);
//! - kf's field manager for this app and environment in `metadata.managedFields` (an
//!   `Apply` entry: server-side apply records the manager of every apply there);
//! - a UID, which the deletion then carries as its precondition, so an object deleted and
//!   recreated meanwhile by someone else is left alone.

use serde_json::Value;

use super::labels;

/// The app and environment kf acts for, and the field manager it applies with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    pub app: String,
    /// The app's id (app.yaml `id`), if it has one.
    pub app_id: Option<String>,
    pub env: String,
    pub field_manager: String,
}

/// What a live object is to an [`Owner`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Labelled for this app and environment.
    Ours,
    /// No kf labels: another tool's object, or kf's before it was labelled.
    Unlabelled,
    /// Labelled by kf for another app or environment (label values as found).
    OtherKf { app: String, env: String },
    /// Labelled for this app's name and environment, but by another app of that name:
    /// one with another id (or with an id, when this app has none).
    OtherApp { app: String, id: String },
}

/// Kubernetes caps `fieldManager` at 128 characters.
const FIELD_MANAGER_MAX: usize = 128;

impl Owner {
    /// The owner for `app` and `env`, applying as `field_manager` or, by default,
    /// `kf-<app>-<env>` (label-safe spellings), so two environments' applies of the same
    /// object conflict instead of silently sharing it.
    pub fn new(app: &str, app_id: Option<&str>, env: &str, field_manager: Option<&str>) -> Owner {
        let field_manager = match field_manager {
            Some(m) if !m.trim().is_empty() => m.trim().to_string(),
            _ => {
                let m = format!(
                    "kf-{}-{}",
                    labels::label_value(app),
                    labels::label_value(env)
                );
                m.chars().take(FIELD_MANAGER_MAX).collect()
            }
        };
        Owner {
            app: app.to_string(),
            app_id: app_id.map(str::to_string),
            env: env.to_string(),
            field_manager,
        }
    }

    /// How `live` is labelled, relative to this owner.
    pub fn claim(&self, live: &Value) -> Claim {
        let l = &live["metadata"]["labels"];
        if l[labels::MANAGED_BY] != "kf" {
            return Claim::Unlabelled;
        }
        let app = l[labels::APP].as_str().unwrap_or_default();
        let env = l[labels::ENVIRONMENT].as_str().unwrap_or_default();
        if app == labels::label_value(&self.app) && env == labels::label_value(&self.env) {
            // An object without an id was applied before this app had one (or by a kf
            // older than ids): it is this app's, and the next apply labels it so.
            match l[labels::APP_ID].as_str() {
                Some(id)
                    if Some(id) != self.app_id.as_deref().map(labels::label_value).as_deref() =>
                {
                    Claim::OtherApp {
                        app: app.to_string(),
                        id: id.to_string(),
                    }
                }
                _ => Claim::Ours,
            }
        } else {
            Claim::OtherKf {
                app: app.to_string(),
                env: env.to_string(),
            }
        }
    }

    /// Why an object of another app of the same name is not this one's.
    pub fn other_app(&self, app: &str, id: &str) -> String {
        match &self.app_id {
            Some(ours) => format!(
                "it belongs to another kf app named '{app}' (app id {id}; this app's is {ours})"
            ),
            None => format!(
                "it belongs to a kf app named '{app}' with app id {id}, and this app has none (run `kf upgrade` to give it one, or pull the app.yaml that records {id})"
            ),
        }
    }

    /// Whether `live` has an Apply entry by this owner's field manager.
    pub fn applied(&self, live: &Value) -> bool {
        live["metadata"]["managedFields"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|e| e["manager"] == self.field_manager.as_str() && e["operation"] == "Apply")
    }

    /// `Ok(uid)` when kf applied `live` for this app and environment and may delete it
    /// (with that UID as the precondition); else why not.
    pub fn deletable(&self, live: &Value) -> Result<String, NotDeletable> {
        match self.claim(live) {
            Claim::Ours => {}
            Claim::Unlabelled => {
                return Err(NotDeletable::Unlabelled {
                    app: self.app.clone(),
                    env: self.env.clone(),
                });
            }
            Claim::OtherKf { app, env } => {
                return Err(NotDeletable::OtherKf {
                    app,
                    env,
                    our_app: self.app.clone(),
                    our_env: self.env.clone(),
                });
            }
            Claim::OtherApp { app, id } => {
                return Err(NotDeletable::OtherApp(self.other_app(&app, &id)));
            }
        }
        if !self.applied(live) {
            return Err(NotDeletable::NeverApplied {
                field_manager: self.field_manager.clone(),
            });
        }
        match live["metadata"]["uid"].as_str() {
            Some(uid) if !uid.is_empty() => Ok(uid.to_string()),
            _ => Err(NotDeletable::NoUid),
        }
    }
}

/// Why kf leaves a live object alone instead of deleting it, in a few words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NotDeletable {
    #[error("not applied by kf for app '{app}', environment '{env}' (no kf labels)")]
    Unlabelled { app: String, env: String },
    #[error(
        "it belongs to kf app '{app}', environment '{env}', not app '{our_app}', environment '{our_env}'"
    )]
    OtherKf {
        app: String,
        env: String,
        our_app: String,
        our_env: String,
    },
    /// Another app of the same name ([`Owner::other_app`] says which).
    #[error("{0}")]
    OtherApp(String),
    #[error(
        "kf's field manager '{field_manager}' never applied it (managedFields); apply it once with this kf, or pass the --field-manager it was applied with"
    )]
    NeverApplied { field_manager: String },
    #[error("the server gave no UID to make the deletion conditional on")]
    NoUid,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn owner() -> Owner {
        Owner::new("app", None, "prod", None)
    }

    fn live(labels: Value, manager: &str) -> Value {
        json!({"metadata": {"name": "x", "uid": "u-1", "labels": labels,
            "managedFields": [{"manager": manager, "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {}}]}})
    }

    #[test]
    fn the_default_field_manager_names_app_and_env() {
        assert_eq!(owner().field_manager, "kf-app-prod");
        assert_eq!(
            Owner::new("a", None, "us/west", None).field_manager.len(),
            21
        );
        assert_eq!(Owner::new("a", None, "b", Some("ci")).field_manager, "ci");
        assert!(
            Owner::new(&"a".repeat(200), None, "b", None)
                .field_manager
                .len()
                <= 128
        );
    }

    #[test]
    fn only_an_object_with_all_three_marks_may_be_deleted() {
        let ours = json!({"app.kubernetes.io/managed-by": "kf", "kf.dev/app": "app", "kf.dev/environment": "prod"});
        assert_eq!(
            owner().deletable(&live(ours.clone(), "kf-app-prod")),
            Ok("u-1".into())
        );
        assert!(
            owner()
                .deletable(&live(ours.clone(), "kubectl"))
                .unwrap_err()
                .to_string()
                .contains("never applied it")
        );
        assert!(
            owner()
                .deletable(&live(json!({}), "kf-app-prod"))
                .unwrap_err()
                .to_string()
                .contains("no kf labels")
        );
        let other = json!({"app.kubernetes.io/managed-by": "kf", "kf.dev/app": "app", "kf.dev/environment": "dev"});
        assert_eq!(
            owner().claim(&live(other.clone(), "kf-app-prod")),
            Claim::OtherKf {
                app: "app".into(),
                env: "dev".into()
            }
        );
        assert!(matches!(
            owner().deletable(&live(other, "kf-app-prod")),
            Err(NotDeletable::OtherKf { .. })
        ));
        let mut no_uid = live(ours, "kf-app-prod");
        no_uid["metadata"].as_object_mut().map(|m| m.remove("uid"));
        assert_eq!(owner().deletable(&no_uid), Err(NotDeletable::NoUid));
    }

    #[test]
    fn two_apps_of_one_name_never_own_each_others_objects() {
        let labels = |id: Option<&str>| {
            let mut l = json!({"app.kubernetes.io/managed-by": "kf", "kf.dev/app": "ks_app", "kf.dev/environment": "default"});
            if let Some(id) = id {
                l["kf.dev/app-id"] = id.into();
            }
            l
        };
        let a = Owner::new("ks_app", Some("aaaaaaaa11111111"), "default", None);
        let b = Owner::new("ks_app", Some("bbbbbbbb22222222"), "default", None);
        let legacy = Owner::new("ks_app", None, "default", None);
        let of_a = live(labels(Some("aaaaaaaa11111111")), "kf-ks_app-default");
        assert_eq!(a.claim(&of_a), Claim::Ours);
        assert!(a.deletable(&of_a).is_ok());
        assert!(matches!(b.claim(&of_a), Claim::OtherApp { .. }));
        assert!(
            b.deletable(&of_a)
                .unwrap_err()
                .to_string()
                .contains("another kf app named 'ks_app'")
        );
        assert!(
            legacy
                .deletable(&of_a)
                .unwrap_err()
                .to_string()
                .contains("kf upgrade")
        );
        // Objects applied before ids are the app's, whichever id it has now.
        let old = live(labels(None), "kf-ks_app-default");
        assert_eq!(a.claim(&old), Claim::Ours);
        assert_eq!(legacy.claim(&old), Claim::Ours);
    }
}
