//! `kf validate`: every rendered object checked offline (Kubernetes' types, CRD schemas)
//! and, with `--server`, by the env's cluster with a server-side dry-run apply. An object
//! is counted once however many checks reject it.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::{Connection, Target};
use crate::app::Environment;
use crate::cluster::apply::{self, ApplyOptions};
use crate::cluster::events::{Reporter, Silent};
use crate::cluster::outcome::{Action, DryRun};
use crate::cluster::resources::Resources;
use crate::render::RenderedObject;
use crate::validate::{Finding, Validator};

/// One thing a check said of an object.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// `Deployment/web -n prod`, or the server's `deployment.apps/web`.
    pub object: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// error, warning (not checked: no schema) or skipped (the server could not check it).
    pub level: &'static str,
    /// offline, server, or render (the component failed to render).
    pub check: &'static str,
    pub message: String,
}

impl Problem {
    /// The line kf prints for it.
    pub fn line(&self) -> String {
        match (self.check, &self.component) {
            ("server", _) => format!(
                "{}: {} (server dry run): {}",
                if self.level == "skipped" {
                    "skipped"
                } else {
                    "error"
                },
                self.object,
                self.message
            ),
            (_, Some(c)) => format!(
                "{}: {} (component {c}): {}",
                self.level, self.object, self.message
            ),
            (_, None) => format!("{}: {}: {}", self.level, self.object, self.message),
        }
    }
}

/// What `kf validate` found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidateReport {
    pub environment: String,
    /// Objects rendered.
    pub objects: usize,
    /// Objects with at least one error, from either check.
    pub invalid: usize,
    /// Objects no schema is known for.
    pub unchecked: usize,
    /// Objects the server check could not check (their CRD is in the render only).
    pub skipped: usize,
    /// Components that failed to render (after `kf env set --api-spec`, say, a call to a
    /// kind the new library lacks); their objects are not among `objects`.
    pub unrendered: usize,
    /// Problems of the environment's own entry (a namespace or server the API server
    /// would refuse).
    pub misconfigured: usize,
    pub problems: Vec<Problem>,
}

impl ValidateReport {
    pub fn failure(&self) -> Option<String> {
        let unrendered = (self.unrendered > 0).then(|| {
            format!(
                "{} of environment '{}' failed to render",
                crate::message::counted(self.unrendered, "component"),
                self.environment
            )
        });
        let invalid = (self.invalid > 0).then(|| {
            format!(
                "{} of {} objects in environment '{}' are invalid",
                self.invalid, self.objects, self.environment
            )
        });
        let misconfigured = (self.misconfigured > 0).then(|| {
            format!(
                "environment '{}' sets a destination the API server would refuse",
                self.environment
            )
        });
        let parts: Vec<String> = [misconfigured, unrendered, invalid]
            .into_iter()
            .flatten()
            .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// Put `problems` of the environment's entry ([`destination_problems`]) first.
    pub fn add_destination_problems(&mut self, problems: Vec<Problem>) {
        self.misconfigured += problems.len();
        self.problems.splice(0..0, problems);
    }

    /// Count each component that failed to render as an error of the report: what a
    /// change of the env's library broke is reported whole, with the objects of the
    /// components that still render checked.
    pub fn add_render_failures(&mut self, failed: &[crate::render::ComponentError]) {
        let at = self.unrendered;
        self.problems.splice(
            at..at,
            failed.iter().map(|f| Problem {
                object: format!("component {}", f.component),
                component: None,
                level: "error",
                check: "render",
                message: f.message.clone(),
            }),
        );
        self.unrendered += failed.len();
    }

    /// `12 objects in environment 'prod' are valid (1 not checked: no schema)`.
    pub fn summary(&self) -> String {
        let total = self.objects;
        let valid = total - self.unchecked - self.skipped.min(total - self.unchecked);
        format!(
            "{} in environment '{}' {} valid{}{}",
            crate::message::counted(valid, "object"),
            self.environment,
            if valid == 1 { "is" } else { "are" },
            if self.unchecked > 0 {
                format!(" ({} not checked: no schema)", self.unchecked)
            } else {
                String::new()
            },
            if self.skipped > 0 {
                format!(
                    "; {} skipped by the server check (their CRD is in this render and not on the cluster yet)",
                    self.skipped
                )
            } else {
                String::new()
            }
        )
    }
}

/// What the env's entry sets that the API server would refuse: its namespace and server,
/// at the line of the app file (`app_file`, its `text`) that sets them.
pub fn destination_problems(env: &Environment, app_file: &Path, text: &str) -> Vec<Problem> {
    let found = [
        (
            "namespace",
            &env.namespace,
            crate::app::namespace_problem(&env.namespace),
        ),
        (
            "server",
            &env.server,
            crate::app::server_problem(&env.server),
        ),
    ];
    let mut problems = Vec::new();
    for (key, value, problem) in found {
        let Some(message) = problem else { continue };
        let line = text
            .lines()
            .position(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("{key}:")) && l.contains(value.as_str())
            })
            .map(|i| format!(":{}", i + 1))
            .unwrap_or_default();
        problems.push(Problem {
            object: format!("{}{line}", app_file.display()),
            component: None,
            level: "error",
            check: "environment",
            message: format!(
                "{message}; fix it with `kf env set {} --{key} <value>`",
                env.name
            ),
        });
    }
    problems
}

/// The lowercase kind and name an object is counted by, in both checks' spellings
/// (`Deployment` and `deployment.apps/web`).
fn counted(kind: &str, name: &str) -> (String, String) {
    (kind.to_ascii_lowercase(), name.to_string())
}

/// Check `objects` offline, for Kubernetes `k8s_version` (the env's k8sVersion).
pub fn validate_offline(
    environment: &str,
    objects: &[RenderedObject],
    k8s_version: &str,
) -> (ValidateReport, BTreeSet<(String, String)>) {
    let validator = Validator::with_builtin_crds().for_k8s_version(k8s_version);
    check_offline(environment, objects, validator)
}

fn check_offline(
    environment: &str,
    objects: &[RenderedObject],
    mut validator: Validator,
) -> (ValidateReport, BTreeSet<(String, String)>) {
    for o in objects {
        validator.add_crds(&Value::Object(o.object.clone()));
    }
    let mut report = ValidateReport {
        environment: environment.to_string(),
        objects: objects.len(),
        invalid: 0,
        unchecked: 0,
        skipped: 0,
        unrendered: 0,
        misconfigured: 0,
        problems: Vec::new(),
    };
    let mut invalid = BTreeSet::new();
    for o in objects {
        let name = crate::validate::object_name(&o.object);
        let kind = o.object.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        let (level, message) = match validator.validate(&o.object) {
            None => continue,
            Some(Finding::Error(e)) => {
                let plain = o.object["metadata"]["name"].as_str().unwrap_or_default();
                invalid.insert(counted(kind, plain));
                ("error", e)
            }
            Some(Finding::Unchecked(w)) => {
                report.unchecked += 1;
                ("warning", w)
            }
        };
        report.problems.push(Problem {
            object: format!("{kind}/{name}"),
            component: Some(o.component.clone()),
            level,
            check: "offline",
            message,
        });
    }
    // Across objects: a queued workload that no flavor of its queue admits.
    let all: Vec<&serde_json::Map<String, Value>> = objects.iter().map(|o| &o.object).collect();
    for (i, message) in crate::validate::kueue::flavor_conflicts(&all) {
        let o = &objects[i];
        let kind = o.object.get("kind").and_then(|k| k.as_str()).unwrap_or("");
        let plain = o.object["metadata"]["name"].as_str().unwrap_or_default();
        invalid.insert(counted(kind, plain));
        report.problems.push(Problem {
            object: format!("{kind}/{}", crate::validate::object_name(&o.object)),
            component: Some(o.component.clone()),
            level: "error",
            check: "offline",
            message,
        });
    }
    // kf exits after this: freeing the compiled CRD schemas one node at a time costs
    // about a third of what compiling them did, for memory the exit returns anyway.
    std::mem::forget(validator);
    report.invalid = invalid.len();
    (report, invalid)
}

/// Check `objects` against the env's cluster: offline for the Kubernetes the server says
/// it runs (`k8s_version`, the env's, when it does not say), then by a server-side dry
/// run of every object. Objects whose CRD is in the render and not on the cluster are
/// skipped by the server check, never counted valid.
pub async fn validate_on_server(
    target: Target,
    objects: &[RenderedObject],
    k8s_version: &str,
    connection: &Connection,
    reporter: &mut dyn Reporter,
) -> anyhow::Result<ValidateReport> {
    let cluster = super::connect(&target.env, connection, reporter).await?;
    let validator = match cluster.version() {
        Some(v) => Validator::with_builtin_crds()
            .for_server_version(&format!("v{}.{}.0", v.major, v.minor)),
        None => Validator::with_builtin_crds().for_k8s_version(k8s_version),
    };
    let (mut report, mut invalid) = check_offline(&target.env.name, objects, validator);
    let resources = Resources::discover(&cluster).await?;
    let options = ApplyOptions {
        dry_run: DryRun::Server,
        force_conflicts: true,
        concurrency: 8,
        crd_wait: super::crd_wait(connection.timeout),
        terminating_wait: super::terminating_wait(connection.timeout),
        deletion_said: Default::default(),
        owner: target.owner.clone(),
        // Checking objects, not recording a set.
        applyset: None,
        fields: Default::default(),
    };
    let outcomes = apply::apply(
        &cluster,
        resources,
        target.items,
        &target.env.namespace,
        &options,
        &mut Silent,
    )
    .await?;
    for o in &outcomes {
        let (level, message) = match &o.result {
            Err(e) => {
                let kind = o.id.split(['.', '/']).next().unwrap_or_default();
                invalid.insert(counted(kind, &o.name));
                ("error", e.clone())
            }
            Ok(Action::Skipped(why)) => {
                report.skipped += 1;
                ("skipped", why.clone())
            }
            Ok(_) => continue,
        };
        report.problems.push(Problem {
            object: o.id.clone(),
            component: None,
            level,
            check: "server",
            message,
        });
    }
    report.invalid = invalid.len();
    Ok(report)
}
