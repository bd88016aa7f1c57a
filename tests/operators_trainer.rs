//! The Kubeflow Trainer v2.3.0 controller (`trainer-controller`) and the JobSet v0.12.0
//! controller it runs on (`jobset`), checked against the upstream facts they encode:
//! kubeflow/trainer@v2.3.0 manifests/base/{manager,rbac,webhook}, cmd/trainer-controller-manager
//! and pkg/util/cert; kubernetes-sigs/jobset@v0.12.0 config/{default,components} and
//! pkg/util/cert. Each webhook configuration must carry the fixed name the controller's
//! cert rotator injects its CA into, and point at the Service and path the controller
//! serves; the certificate Secret and Service must be the ones its Configuration names.

mod support;

use serde_json::Value;
use support::objects::*;
use support::*;

/// An app with the four components a TrainJob needs on an empty cluster.
fn trainer_app() -> TempApp {
    let app = new_app();
    ok(&app.root, &["generate", "jobset", "jobset"]);
    ok(
        &app.root,
        &["generate", "trainer-controller", "kubeflow-trainer"],
    );
    ok(&app.root, &["generate", "training-runtimes", "runtimes"]);
    ok(
        &app.root,
        &[
            "generate",
            "train-job",
            "mnist",
            "--image=pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
            "--command=torchrun /workspace/mnist.py",
        ],
    );
    app
}

/// The controller's Configuration, parsed from the ConfigMap it is given with --config.
fn configuration(objs: &[Value], deploy: &Value) -> Value {
    let pod = &deploy["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let arg = strings(&container["args"])
        .into_iter()
        .find_map(|a| a.strip_prefix("--config="))
        .expect("--config");
    let mount = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mountPath"] == arg)
        .unwrap_or_else(|| panic!("nothing mounted at {arg}"));
    let volume = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == mount["name"])
        .unwrap();
    let cm = find(
        objs,
        "ConfigMap",
        volume["configMap"]["name"].as_str().unwrap(),
    );
    let text = cm["data"][mount["subPath"].as_str().unwrap()]
        .as_str()
        .unwrap();
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Every webhook of `config` calls `service` in `ns` on a port it exposes (443 → the
/// container's webhook port); the paths are returned by webhook name.
fn webhook_paths(
    config: &Value,
    service: &Value,
    deploy: &Value,
    ns: &str,
) -> Vec<(String, String)> {
    let svc_name = service["metadata"]["name"].as_str().unwrap();
    let port443 = service["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["port"] == 443)
        .expect("the webhook Service listens on 443 (the clientConfig's default port)");
    let container = &deploy["spec"]["template"]["spec"]["containers"][0];
    let target = &port443["targetPort"];
    assert!(
        container["ports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["containerPort"] == 9443
                && (p["name"] == *target || p["containerPort"] == *target)),
        "443 reaches the container's webhook port 9443: {target}"
    );
    let selector = service["spec"]["selector"].as_object().unwrap();
    let pod_labels = &deploy["spec"]["template"]["metadata"]["labels"];
    for (k, v) in selector {
        assert_eq!(
            &pod_labels[k], v,
            "the Service selects the controller's pods"
        );
    }
    config["webhooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            let s = &w["clientConfig"]["service"];
            assert_eq!(s["name"], svc_name, "{w}");
            assert_eq!(s["namespace"], ns, "{w}");
            assert!(s.get("port").is_none() || s["port"] == 443, "{w}");
            assert_eq!(w["failurePolicy"], "Fail");
            assert_eq!(w["sideEffects"], "None");
            (
                w["name"].as_str().unwrap().to_string(),
                s["path"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The namespace rule: namespaced objects in `ns`, cluster-scoped ones in none.
/// The pod volume mounted in container `c` where controller-runtime's webhook server
/// reads its certificate (/tmp/k8s-webhook-server/serving-certs, its default CertDir).
fn serving_cert_volume<'a>(pod: &'a Value, c: &Value) -> &'a Value {
    let mount = c["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["mountPath"] == "/tmp/k8s-webhook-server/serving-certs")
        .expect("the serving certificate is mounted");
    pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == mount["name"])
        .expect("the mounted volume exists")
}

/// The cert rotator of both controllers (open-policy-agent/cert-controller) writes the CA
/// bundle into the validating and mutating webhook configurations.
fn assert_can_rotate_webhook_ca(role: &Value) {
    for kind in [
        "validatingwebhookconfigurations",
        "mutatingwebhookconfigurations",
    ] {
        assert_can(
            role,
            "admissionregistration.k8s.io",
            kind,
            &["get", "list", "watch", "update"],
        );
    }
}

fn assert_namespaces(objs: &[Value], ns: &str) {
    const CLUSTER: &[&str] = &[
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ];
    for o in objs {
        let kind = o["kind"].as_str().unwrap();
        let got = o["metadata"].get("namespace");
        if CLUSTER.contains(&kind) {
            assert!(got.is_none(), "{kind} is cluster-scoped: {got:?}");
        } else {
            assert_eq!(got, Some(&Value::from(ns)), "{}", o["metadata"]["name"]);
        }
    }
}

/// kubeflow/trainer@v2.3.0: manifests/base/manager/manager.yaml (+ manager_config_patch.yaml),
/// manifests/overlays/manager/kustomization.yaml (image tag, Secret, public ConfigMap) and
/// manifests/base/manager/controller_manager_config.yaml.
#[test]
fn trainer_controller_runs_upstreams_manager_with_its_configuration() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "kubeflow-trainer");
    let deploy = find(&objs, "Deployment", "kubeflow-trainer-controller-manager");
    let pod = &deploy["spec"]["template"]["spec"];
    assert_eq!(
        pod["serviceAccountName"],
        "kubeflow-trainer-controller-manager"
    );
    find(
        &objs,
        "ServiceAccount",
        "kubeflow-trainer-controller-manager",
    );
    let containers = pod["containers"].as_array().unwrap();
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    assert_eq!(c["name"], "manager");
    assert_eq!(
        c["image"],
        "ghcr.io/kubeflow/trainer/trainer-controller-manager:v2.3.0"
    );
    assert_eq!(
        strings(&c["args"]),
        [
            "--config=/controller_manager_config.yaml",
            "--zap-log-level=2"
        ]
    );
    let ports: Vec<(&str, i64)> = c["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["containerPort"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ports,
        [
            ("health", 8081),
            ("metrics", 8443),
            ("webhook", 9443),
            ("status-server", 10443)
        ]
    );
    assert_eq!(c["livenessProbe"]["httpGet"]["path"], "/healthz");
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    assert_eq!(c["livenessProbe"]["httpGet"]["port"], "health");

    // The certificate the controller writes is mounted where controller-runtime's
    // webhook server reads it (pkg/util/cert/cert.go certDir).
    assert_eq!(
        serving_cert_volume(pod, c)["secret"]["secretName"],
        "kubeflow-trainer-webhook-cert"
    );
    let secret = find(&objs, "Secret", "kubeflow-trainer-webhook-cert");
    assert!(secret.get("data").is_none(), "the controller fills it");

    let config = configuration(&objs, deploy);
    assert_eq!(config["apiVersion"], "config.trainer.kubeflow.org/v1alpha1");
    assert_eq!(config["kind"], "Configuration");
    assert_eq!(config["certManagement"]["enable"], true);
    assert_eq!(
        config["certManagement"]["webhookServiceName"],
        "kubeflow-trainer-controller-manager"
    );
    assert_eq!(
        config["certManagement"]["webhookSecretName"],
        "kubeflow-trainer-webhook-cert"
    );
    assert_eq!(config["webhook"]["port"], 9443);
    assert_eq!(config["health"]["healthProbeBindAddress"], ":8081");
    assert_eq!(config["metrics"]["bindAddress"], ":8443");
    assert_eq!(config["statusServer"]["port"], 10443);
    assert_eq!(
        config["leaderElection"]["resourceName"],
        "trainer.kubeflow.org"
    );
    assert_eq!(
        config["controller"]["groupKindConcurrency"]["TrainJob.trainer.kubeflow.org"],
        5
    );

    let public = find(&objs, "ConfigMap", "kubeflow-trainer-public");
    assert_eq!(public["data"]["kubeflow_trainer_version"], "v2.3.0");
    let binding = find(&objs, "RoleBinding", "kubeflow-trainer-public");
    assert_eq!(binding["subjects"][0]["name"], "system:authenticated");

    assert_namespaces(&objs, "ml-dev");
    let prod = rendered(&app, "prod", "kubeflow-trainer");
    assert_namespaces(&prod, "ml-prod");
    ok(
        &app.root,
        &[
            "param",
            "set",
            "kubeflow-trainer",
            "namespace",
            "kubeflow-system",
        ],
    );
    let moved = rendered(&app, "prod", "kubeflow-trainer");
    assert_namespaces(&moved, "kubeflow-system");
    let crb = find(
        &moved,
        "ClusterRoleBinding",
        "kubeflow-trainer-controller-manager",
    );
    assert_eq!(crb["subjects"][0]["namespace"], "kubeflow-system");
}

/// cmd/trainer-controller-manager/main.go@v2.3.0 names the webhook configurations the cert
/// rotator patches; the webhooks are the +kubebuilder:webhook markers of pkg/webhooks/ with
/// manifests/base/webhook/patch_validating.yaml's objectSelector on the runtimes.
#[test]
fn trainer_webhooks_point_at_the_controllers_service_under_the_fixed_names() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "kubeflow-trainer");
    let deploy = find(&objs, "Deployment", "kubeflow-trainer-controller-manager");
    let config = configuration(&objs, deploy);
    let service = find(
        &objs,
        "Service",
        config["certManagement"]["webhookServiceName"]
            .as_str()
            .unwrap(),
    );
    let validating = find(
        &objs,
        "ValidatingWebhookConfiguration",
        "validator.trainer.kubeflow.org",
    );
    let mutating = find(
        &objs,
        "MutatingWebhookConfiguration",
        "defaulter.trainer.kubeflow.org",
    );
    assert_eq!(
        webhook_paths(mutating, service, deploy, "ml-dev"),
        [(
            "defaulter.trainjob.trainer.kubeflow.org".to_string(),
            "/mutate-trainer-kubeflow-org-v1alpha1-trainjob".to_string()
        )]
    );
    let got = webhook_paths(validating, service, deploy, "ml-dev");
    let want = [
        (
            "validator.clustertrainingruntime.trainer.kubeflow.org",
            "/validate-trainer-kubeflow-org-v1alpha1-clustertrainingruntime",
        ),
        (
            "validator.trainingruntime.trainer.kubeflow.org",
            "/validate-trainer-kubeflow-org-v1alpha1-trainingruntime",
        ),
        (
            "validator.trainjob.trainer.kubeflow.org",
            "/validate-trainer-kubeflow-org-v1alpha1-trainjob",
        ),
    ];
    assert_eq!(got.len(), want.len());
    for ((gn, gp), (wn, wp)) in got.iter().zip(want) {
        assert_eq!((gn.as_str(), gp.as_str()), (wn, wp));
    }
    for w in validating["webhooks"].as_array().unwrap() {
        let plural = w["rules"][0]["resources"][0].as_str().unwrap();
        assert_eq!(w["rules"][0]["apiGroups"][0], "trainer.kubeflow.org");
        assert_eq!(w["rules"][0]["apiVersions"][0], "v1alpha1");
        assert_eq!(strings(&w["rules"][0]["operations"]), ["CREATE", "UPDATE"]);
        let skippable = w.get("objectSelector").is_some();
        assert_eq!(skippable, plural != "trainjobs", "{w}");
    }
    // The rotator writes the CA bundle itself: kf must not own it.
    for cfg in [validating, mutating] {
        for w in cfg["webhooks"].as_array().unwrap() {
            assert!(w["clientConfig"].get("caBundle").is_none());
        }
    }
    let ports: Vec<(&str, i64)> = service["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["port"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        ports,
        [
            ("monitoring-port", 8443),
            ("webhook-server", 443),
            ("status-server", 10443)
        ]
    );
}

/// manifests/base/rbac/role.yaml@v2.3.0 (generated from the +kubebuilder:rbac markers).
#[test]
fn trainer_cluster_role_covers_the_trainer_kinds_and_jobsets() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "kubeflow-trainer");
    let binding = find(
        &objs,
        "ClusterRoleBinding",
        "kubeflow-trainer-controller-manager",
    );
    assert_eq!(binding["subjects"][0]["kind"], "ServiceAccount");
    assert_eq!(
        binding["subjects"][0]["name"],
        "kubeflow-trainer-controller-manager"
    );
    assert_eq!(binding["subjects"][0]["namespace"], "ml-dev");
    let role = find(
        &objs,
        "ClusterRole",
        binding["roleRef"]["name"].as_str().unwrap(),
    );
    let g = "trainer.kubeflow.org";
    for kind in ["trainjobs", "trainingruntimes", "clustertrainingruntimes"] {
        assert_can(role, g, kind, &["get", "list", "watch", "update", "patch"]);
        assert_can(role, g, &format!("{kind}/finalizers"), &["update"]);
    }
    // Only TrainJobs have a status the controller writes (the runtimes have no status
    // rule upstream).
    assert_can(role, g, "trainjobs/status", &["get", "patch", "update"]);
    assert_eq!(
        verbs(role, "jobset.x-k8s.io", "jobsets"),
        [
            "create", "delete", "get", "list", "patch", "update", "watch"
        ]
    );
    // The cert rotator: its Secret and the two webhook configurations.
    assert_can(role, "", "secrets", &["get", "list", "watch", "update"]);
    assert_can_rotate_webhook_ca(role);
    assert_can(
        role,
        "coordination.k8s.io",
        "leases",
        &["create", "get", "update"],
    );
    for group in ["scheduling.volcano.sh", "scheduling.x-k8s.io"] {
        assert_can(role, group, "podgroups", &["create", "get", "update"]);
    }
}

#[test]
fn trainer_crds_are_upstreams_and_install_crds_turns_them_off() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "kubeflow-trainer");
    for (name, kind, scope) in [
        ("trainjobs.trainer.kubeflow.org", "TrainJob", "Namespaced"),
        (
            "trainingruntimes.trainer.kubeflow.org",
            "TrainingRuntime",
            "Namespaced",
        ),
        (
            "clustertrainingruntimes.trainer.kubeflow.org",
            "ClusterTrainingRuntime",
            "Cluster",
        ),
    ] {
        let crd = find(&objs, "CustomResourceDefinition", name);
        assert_eq!(crd["spec"]["names"]["kind"], kind);
        assert_eq!(crd["spec"]["scope"], scope);
        assert_eq!(crd["spec"]["versions"][0]["name"], "v1alpha1");
        let file = format!(
            "{}/registry/kubeflow/trainer/crds/trainer.kubeflow.org_{}.json",
            env!("CARGO_MANIFEST_DIR"),
            name.split('.').next().unwrap()
        );
        let embedded: Value = serde_json::from_str(&read(&file)).unwrap();
        assert_eq!(crd["spec"], embedded["spec"], "{name} is the embedded copy");
    }
    ok(
        &app.root,
        &["param", "set", "kubeflow-trainer", "installCRDs", "false"],
    );
    let without = rendered(&app, "default", "kubeflow-trainer");
    assert!(
        !without
            .iter()
            .any(|o| o["kind"] == "CustomResourceDefinition")
    );
}

#[test]
fn trainer_feature_gates_and_log_level_reach_the_args() {
    let app = trainer_app();
    ok(
        &app.root,
        &[
            "param",
            "set",
            "kubeflow-trainer",
            "featureGates",
            "TrainJobStatus=true",
            "--env",
            "prod",
        ],
    );
    ok(
        &app.root,
        &[
            "param",
            "set",
            "kubeflow-trainer",
            "logLevel",
            "4",
            "--env",
            "prod",
        ],
    );
    let objs = rendered(&app, "prod", "kubeflow-trainer");
    let deploy = find(&objs, "Deployment", "kubeflow-trainer-controller-manager");
    assert_eq!(
        strings(&deploy["spec"]["template"]["spec"]["containers"][0]["args"]),
        [
            "--config=/controller_manager_config.yaml",
            "--zap-log-level=4",
            "--feature-gates=TrainJobStatus=true"
        ]
    );
}

/// kubernetes-sigs/jobset@v0.12.0: config/default (namePrefix jobset-, the manager, webhook,
/// metrics and config patches), config/components/manager and internalcert.
#[test]
fn jobset_controller_runs_v0_12_0_with_its_configuration() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "jobset");
    let deploy = find(&objs, "Deployment", "jobset-controller-manager");
    let pod = &deploy["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], "jobset-controller-manager");
    find(&objs, "ServiceAccount", "jobset-controller-manager");
    let c = &pod["containers"][0];
    assert_eq!(c["name"], "manager");
    assert_eq!(c["image"], "registry.k8s.io/jobset/jobset:v0.12.0");
    assert_eq!(strings(&c["command"]), ["/manager"]);
    assert_eq!(
        strings(&c["args"]),
        [
            "--config=/controller_manager_config.yaml",
            "--zap-log-level=2"
        ]
    );
    assert_eq!(c["livenessProbe"]["httpGet"]["port"], 8081);
    assert_eq!(c["readinessProbe"]["httpGet"]["path"], "/readyz");
    let config = configuration(&objs, deploy);
    assert_eq!(config["apiVersion"], "config.jobset.x-k8s.io/v1alpha1");
    assert_eq!(config["leaderElection"]["leaderElect"], true);
    let certs = &config["internalCertManagement"];
    assert_eq!(certs["enable"], true);
    assert_eq!(certs["webhookServiceName"], "jobset-webhook-service");
    assert_eq!(certs["webhookSecretName"], "jobset-webhook-server-cert");
    assert_eq!(
        serving_cert_volume(pod, c)["secret"]["secretName"],
        "jobset-webhook-server-cert"
    );
    find(&objs, "Secret", "jobset-webhook-server-cert");
    let metrics = find(
        &objs,
        "Service",
        "jobset-controller-manager-metrics-service",
    );
    assert_eq!(metrics["spec"]["ports"][0]["port"], 8443);
    assert_namespaces(&objs, "ml-dev");
    assert_namespaces(&rendered(&app, "prod", "jobset"), "ml-prod");

    let crd = find(&objs, "CustomResourceDefinition", "jobsets.jobset.x-k8s.io");
    assert_eq!(crd["spec"]["versions"][0]["name"], "v1alpha2");
    let embedded: Value = serde_json::from_str(&read(format!(
        "{}/registry/kubeflow/jobset/crds/jobset.x-k8s.io_jobsets.json",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap();
    assert_eq!(crd["spec"], embedded["spec"]);
    ok(
        &app.root,
        &["param", "set", "jobset", "installCRD", "false"],
    );
    assert!(
        !rendered(&app, "default", "jobset")
            .iter()
            .any(|o| o["kind"] == "CustomResourceDefinition")
    );
}

/// pkg/util/cert/cert.go@v0.12.0 (validateWebhookConfName, mutatingWebhookConfName);
/// config/components/webhook/{manifests.yaml,service.yaml,patches/}.
#[test]
fn jobset_webhooks_point_at_the_webhook_service_under_the_fixed_names() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "jobset");
    let deploy = find(&objs, "Deployment", "jobset-controller-manager");
    let service = find(&objs, "Service", "jobset-webhook-service");
    let mutating = find(
        &objs,
        "MutatingWebhookConfiguration",
        "jobset-mutating-webhook-configuration",
    );
    let validating = find(
        &objs,
        "ValidatingWebhookConfiguration",
        "jobset-validating-webhook-configuration",
    );
    let pairs = |v: Vec<(String, String)>| -> Vec<String> {
        v.into_iter().map(|(n, p)| format!("{n} {p}")).collect()
    };
    assert_eq!(
        pairs(webhook_paths(mutating, service, deploy, "ml-dev")),
        [
            "mjobset.kb.io /mutate-jobset-x-k8s-io-v1alpha2-jobset",
            "mpod.kb.io /mutate--v1-pod"
        ]
    );
    assert_eq!(
        pairs(webhook_paths(validating, service, deploy, "ml-dev")),
        [
            "vjobset.kb.io /validate-jobset-x-k8s-io-v1alpha2-jobset",
            "vpod.kb.io /validate--v1-pod"
        ]
    );
    // The pod webhooks only see JobSet pods (config/components/webhook/patches).
    for cfg in [mutating, validating] {
        for w in cfg["webhooks"].as_array().unwrap() {
            let pods = w["rules"][0]["resources"][0] == "pods";
            let selector = &w["objectSelector"]["matchExpressions"][0];
            if pods {
                assert_eq!(selector["key"], "jobset.sigs.k8s.io/jobset-name");
                assert_eq!(selector["operator"], "Exists");
            } else {
                assert!(w.get("objectSelector").is_none());
                assert_eq!(w["rules"][0]["apiVersions"][0], "v1alpha2");
            }
        }
    }
}

/// config/components/rbac/{role,leader_election_role,manager_secrets_role,auth_proxy_role}.yaml@v0.12.0.
#[test]
fn jobset_roles_cover_jobsets_jobs_pods_and_its_certificate() {
    let app = trainer_app();
    let objs = rendered(&app, "default", "jobset");
    let binding = find(&objs, "ClusterRoleBinding", "jobset-manager-rolebinding");
    assert_eq!(binding["subjects"][0]["name"], "jobset-controller-manager");
    assert_eq!(binding["subjects"][0]["namespace"], "ml-dev");
    let role = find(
        &objs,
        "ClusterRole",
        binding["roleRef"]["name"].as_str().unwrap(),
    );
    let j = "jobset.x-k8s.io";
    assert_eq!(
        verbs(role, j, "jobsets"),
        [
            "create", "delete", "get", "list", "patch", "update", "watch"
        ]
    );
    assert_eq!(verbs(role, j, "jobsets/status"), ["get", "patch", "update"]);
    assert_eq!(verbs(role, j, "jobsets/finalizers"), ["update"]);
    assert_can(
        role,
        "batch",
        "jobs",
        &["create", "delete", "get", "list", "watch"],
    );
    assert_can(role, "", "pods", &["get", "list", "watch", "patch"]);
    assert_can_rotate_webhook_ca(role);
    let secrets = find(&objs, "Role", "jobset-manager-secrets-role");
    assert_can(secrets, "", "secrets", &["get", "list", "watch", "update"]);
    let election = find(&objs, "Role", "jobset-leader-election-role");
    assert_can(
        election,
        "coordination.k8s.io",
        "leases",
        &["create", "get", "update"],
    );
    for (b, r) in [
        ("RoleBinding", "jobset-manager-secrets-role"),
        ("RoleBinding", "jobset-leader-election-role"),
        ("ClusterRoleBinding", "jobset-proxy-role"),
    ] {
        assert!(
            objs.iter().any(|o| o["kind"] == b
                && o["roleRef"]["name"] == r
                && o["subjects"][0]["name"] == "jobset-controller-manager"),
            "{r} is bound to the controller"
        );
    }
}

/// The four components validate together: the TrainJob and the ClusterTrainingRuntimes
/// against the CRDs trainer-controller renders, the JobSet templates inside the runtimes
/// as part of them, and every built-in object against Kubernetes' schema.
#[test]
fn controller_jobset_runtimes_and_train_job_validate_together() {
    let app = trainer_app();
    for env in ["default", "prod"] {
        let run = kf_in(&app.root, &["validate", env]);
        assert_eq!(run.status, 0, "{}", run.stderr);
        assert!(!run.stderr.contains("not checked"), "{}", run.stderr);
    }
    // The TrainJob names a runtime the app installs, which the controller's CRDs define.
    let job = rendered(&app, "default", "mnist");
    let runtimes = rendered(&app, "default", "runtimes");
    let runtime = &job[0]["spec"]["runtimeRef"]["name"];
    assert!(
        runtimes
            .iter()
            .any(|r| r["kind"] == "ClusterTrainingRuntime" && r["metadata"]["name"] == *runtime),
        "{runtime}"
    );
}

/// Trainer v2.3.0 pins JobSet v0.12.0 (manifests/third-party/jobset/kustomization.yaml,
/// go.mod); the prototypes say so and require each other.
#[test]
fn trainer_prototypes_require_the_controller_and_jobset() {
    let app = new_app();
    let controller = ok(&app.root, &["prototype", "describe", "trainer-controller"]);
    assert!(controller.contains("JobSet v0.12.0"), "{controller}");
    for proto in ["train-job", "training-runtimes"] {
        let described = ok(&app.root, &["prototype", "describe", proto]);
        assert!(
            described.contains("trainer-controller prototype"),
            "{described}"
        );
        assert!(described.contains("jobset prototype"), "{described}");
    }
    let jobset = ok(&app.root, &["prototype", "describe", "jobset"]);
    assert!(jobset.contains("v0.12.0"), "{jobset}");
    assert!(!jobset.to_lowercase().contains("cert-manager"), "{jobset}");
    assert!(
        !controller.to_lowercase().contains("cert-manager"),
        "{controller}"
    );
}
