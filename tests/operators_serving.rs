//! The operators behind kf's serving prototypes (kf issue 11): `emissary-crds` (the
//! getambassador.io CRDs and emissary-apiext, emissary-ingress/emissary@v3.9.1:
//! manifests/emissary/emissary-crds.yaml.in), `kserve-controller` and `kserve-runtimes`
//! (kserve/kserve@v0.20.0: config/default, config/runtimes) and `seldon-operator`
//! (SeldonIO/seldon-core@v1.17.1: operator/config/default). Each test renders the
//! operator with its CR prototype and checks what makes the pair work on an empty
//! cluster: the containers, the webhook configuration pointing at the Service rendered
//! (name, namespace, port, path), the RBAC over what the controller watches, the CRDs,
//! and `kf validate` on the app.

mod support;

use serde_json::Value;
use support::objects::*;
use support::*;

fn container<'a>(deployment: &'a Value, name: &str) -> &'a Value {
    deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

/// The Service a webhook clientConfig names exists, in that namespace, with a port
/// (`port`, 443 when unset, as Kubernetes defaults it) whose target is a container port
/// of the Deployment, by name or number.
fn assert_service_serves(objs: &[Value], client: &Value, deployment: &Value, container_port: u64) {
    let svc = &client["service"];
    let name = svc["name"].as_str().unwrap();
    let service = find(objs, "Service", name);
    assert_eq!(service["metadata"]["namespace"], svc["namespace"], "{name}");
    let port = svc["port"].as_u64().unwrap_or(443);
    let target = service["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["port"] == port)
        .unwrap_or_else(|| panic!("{name} has no port {port}"))["targetPort"]
        .clone();
    let served = deployment["spec"]["template"]["spec"]["containers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["ports"].as_array().cloned().unwrap_or_default())
        .any(|p| {
            p["containerPort"] == container_port
                && (p["name"] == target || p["containerPort"] == target)
        });
    assert!(
        served,
        "{name}:{port} → {target} is not container port {container_port}"
    );
    // The Service selects the Deployment's pods.
    let pod_labels = &deployment["spec"]["template"]["metadata"]["labels"];
    for (k, v) in service["spec"]["selector"].as_object().unwrap() {
        assert_eq!(&pod_labels[k], v, "{name} selects {k}={v}");
    }
}

fn assert_validates(app: &TempApp, env: &str) {
    let run = kf_in(&app.root, &["validate", env]);
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    for line in run.stderr.lines() {
        // cert-manager is a prerequisite, not a registry package: kf has no CRD for it.
        assert!(line.contains("cert-manager.io/v1"), "unexpected: {line}");
    }
}

/// emissary-ingress/emissary@v3.9.1: the CRDs' conversion webhook
/// (/webhooks/crd-convert on 443) is the emissary-apiext Service rendered with them,
/// in the namespace they are rendered in; apiext serves https on 8443.
#[test]
fn emissary_crds_convert_through_the_apiext_they_render() {
    let app = new_app();
    ok(
        &app.root,
        &["env", "add", "emissary", "--namespace", "emissary-system"],
    );
    ok(&app.root, &["generate", "emissary-crds", "emissary-apiext"]);
    ok(
        &app.root,
        &[
            "generate",
            "ambassador",
            "ambassador",
            "--serviceType=ClusterIP",
        ],
    );
    ok(
        &app.root,
        &[
            "generate",
            "ambassador-route",
            "mnist-gw",
            "--service=mnist",
            "--port=8501",
        ],
    );
    let objs = rendered(&app, "emissary", "emissary-apiext");

    let crds: Vec<&Value> = objs
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
        .collect();
    assert_eq!(crds.len(), 14, "{:?}", names(&objs));
    for kind in [
        "Mapping",
        "Host",
        "Listener",
        "Module",
        "TLSContext",
        "TCPMapping",
    ] {
        assert!(
            crds.iter().any(|c| c["spec"]["names"]["kind"] == kind),
            "{kind}"
        );
    }

    let deployment = find(&objs, "Deployment", "emissary-apiext");
    assert_eq!(deployment["metadata"]["namespace"], "emissary-system");
    let apiext = container(deployment, "emissary-apiext");
    assert_eq!(apiext["image"], "docker.io/emissaryingress/emissary:3.9.1");
    // The first argument of apiext is the Service it writes into the CRDs.
    assert_eq!(strings(&apiext["command"]), ["apiext", "emissary-apiext"]);
    assert_eq!(apiext["readinessProbe"]["httpGet"]["path"], "/probes/ready");

    let mut converted = 0;
    for crd in &crds {
        let Some(client) = crd["spec"].pointer("/conversion/webhook/clientConfig") else {
            continue;
        };
        converted += 1;
        assert_eq!(client["service"]["name"], "emissary-apiext");
        assert_eq!(client["service"]["namespace"], "emissary-system");
        assert_eq!(client["service"]["path"], "/webhooks/crd-convert");
        assert_eq!(client["service"]["port"], 443);
        assert_service_serves(&objs, client, deployment, 8443);
    }
    // Every multi-version kind converts; Listener is v3alpha1 only.
    assert_eq!(converted, 13);

    // It lists and watches CRDs, and updates only the getambassador.io ones.
    let role = find(&objs, "ClusterRole", "emissary-apiext");
    assert_can(
        role,
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        &["list", "watch", "update"],
    );
    let update = role["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| strings(&r["verbs"]) == ["update"])
        .unwrap();
    let crd_names: Vec<&str> = crds
        .iter()
        .map(|c| c["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(strings(&update["resourceNames"]), crd_names);
    // Its CA Secret, in its own namespace.
    let ca = find(&objs, "Role", "emissary-apiext");
    assert_eq!(ca["metadata"]["namespace"], "emissary-system");
    assert!(
        serde_json::to_string(ca)
            .unwrap()
            .contains("emissary-ingress-webhook-ca")
    );

    assert_validates(&app, "emissary");
}

/// Rendered elsewhere, the conversion follows: the CRDs never name a namespace that has
/// no apiext.
#[test]
fn emissary_crds_in_another_namespace_point_their_conversion_there() {
    let app = new_app();
    ok(&app.root, &["generate", "emissary-crds", "gw-apiext"]);
    let objs = rendered(&app, "prod", "gw-apiext");
    let deployment = find(&objs, "Deployment", "gw-apiext");
    assert_eq!(deployment["metadata"]["namespace"], "ml-prod");
    assert_eq!(
        strings(&container(deployment, "emissary-apiext")["command"]),
        ["apiext", "gw-apiext"]
    );
    for crd in objs
        .iter()
        .filter(|o| o["kind"] == "CustomResourceDefinition")
    {
        if let Some(svc) = crd["spec"].pointer("/conversion/webhook/clientConfig/service") {
            assert_eq!(svc["name"], "gw-apiext");
            assert_eq!(svc["namespace"], "ml-prod");
        }
    }
}

#[test]
fn ambassador_requires_the_emissary_crds_prototype() {
    let app = new_app();
    let described = ok(&app.root, &["prototype", "describe", "ambassador"]);
    assert!(described.contains("emissary-crds prototype"), "{described}");
}

/// kserve/kserve@v0.20.0:config/default: the manager, its webhooks behind
/// kserve-webhook-server-service:443 → webhook-server 9443, a cert-manager Certificate
/// for that Service injected into each webhook configuration and the CRD, and the
/// ConfigMap the manager will not start without.
#[test]
fn kserve_controller_serves_its_webhooks_and_inference_services() {
    let app = new_app();
    ok(
        &app.root,
        &["env", "add", "kserve", "--namespace", "kserve"],
    );
    ok(
        &app.root,
        &["generate", "kserve-controller", "kserve-controller-manager"],
    );
    ok(
        &app.root,
        &["generate", "kserve-runtimes", "kserve-runtimes"],
    );
    ok(
        &app.root,
        &[
            "generate",
            "kserve",
            "iris",
            "--framework=sklearn",
            "--storageUri=gs://kfserving-examples/models/sklearn/1.0/model",
        ],
    );
    let objs = rendered(&app, "kserve", "kserve-controller-manager");

    let deployment = find(&objs, "Deployment", "kserve-controller-manager");
    let manager = container(deployment, "manager");
    assert_eq!(manager["image"], "kserve/kserve-controller:v0.20.0");
    assert_eq!(strings(&manager["command"]), ["/manager"]);
    assert_eq!(
        strings(&manager["args"]),
        ["--metrics-addr=127.0.0.1:8080", "--leader-elect"]
    );
    assert_eq!(manager["livenessProbe"]["httpGet"]["port"], 8081);
    assert_eq!(
        manager["volumeMounts"][0]["mountPath"],
        "/tmp/k8s-webhook-server/serving-certs"
    );
    let env = serde_json::to_string(&manager["env"]).unwrap();
    assert!(
        env.contains("POD_NAMESPACE") && env.contains("kserve-webhook-server-cert"),
        "{env}"
    );
    let proxy = container(deployment, "kube-rbac-proxy");
    assert!(strings(&proxy["args"]).contains(&"--upstream=http://127.0.0.1:8080/"));

    // The certificate: the Secret the manager mounts, for the Service the webhooks call.
    let cert = find(&objs, "Certificate", "serving-cert");
    assert_eq!(cert["spec"]["secretName"], "kserve-webhook-server-cert");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"],
        "kserve-webhook-server-cert"
    );
    assert_eq!(
        strings(&cert["spec"]["dnsNames"]),
        ["kserve-webhook-server-service.kserve.svc"]
    );
    assert_eq!(cert["spec"]["issuerRef"]["name"], "selfsigned-issuer");
    find(&objs, "Issuer", "selfsigned-issuer");

    let mut paths = Vec::new();
    for kind in [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        for config in objs.iter().filter(|o| o["kind"] == kind) {
            assert_eq!(
                config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
                "kserve/serving-cert"
            );
            for hook in config["webhooks"].as_array().unwrap() {
                let client = &hook["clientConfig"];
                assert_eq!(client["service"]["name"], "kserve-webhook-server-service");
                assert_eq!(client["service"]["namespace"], "kserve");
                assert_service_serves(&objs, client, deployment, 9443);
                paths.push(client["service"]["path"].as_str().unwrap().to_string());
            }
        }
    }
    paths.sort();
    assert_eq!(
        paths,
        [
            "/mutate-pods",
            "/mutate-serving-kserve-io-v1beta1-inferenceservice",
            "/validate-serving-kserve-io-v1alpha1-clusterservingruntime",
            "/validate-serving-kserve-io-v1alpha1-inferencegraph",
            "/validate-serving-kserve-io-v1alpha1-servingruntime",
            "/validate-serving-kserve-io-v1alpha1-trainedmodel",
            "/validate-serving-kserve-io-v1beta1-inferenceservice",
        ]
    );

    // The CRDs of every kind the manager watches or reads.
    for crd in [
        "inferenceservices",
        "servingruntimes",
        "clusterservingruntimes",
        "trainedmodels",
        "inferencegraphs",
        "clusterstoragecontainers",
    ] {
        find(
            &objs,
            "CustomResourceDefinition",
            &format!("{crd}.serving.kserve.io"),
        );
    }
    let isvc = find(
        &objs,
        "CustomResourceDefinition",
        "inferenceservices.serving.kserve.io",
    );
    assert_eq!(
        isvc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "kserve/serving-cert"
    );
    let csr = find(
        &objs,
        "CustomResourceDefinition",
        "clusterservingruntimes.serving.kserve.io",
    );
    assert_eq!(csr["spec"]["scope"], "Cluster");

    // RBAC over what the InferenceService controller watches and owns (config/rbac/role.yaml).
    let role = find(
        &objs,
        "ClusterRole",
        "kserve-controller-manager-manager-role",
    );
    let all = [
        "create", "delete", "get", "list", "patch", "update", "watch",
    ];
    for resource in [
        "inferenceservices",
        "trainedmodels",
        "inferencegraphs",
        "servingruntimes",
        "clusterservingruntimes",
    ] {
        assert_can(role, "serving.kserve.io", resource, &all);
    }
    assert_can(
        role,
        "serving.kserve.io",
        "inferenceservices/status",
        &["get", "patch", "update"],
    );
    assert_can(role, "apps", "deployments", &all);
    assert_can(role, "", "services", &all);
    assert_can(role, "autoscaling", "horizontalpodautoscalers", &all);
    assert_can(role, "networking.k8s.io", "ingresses", &all);
    assert_can(role, "serving.knative.dev", "services", &all);
    assert_can(role, "", "configmaps", &["get"]);
    let binding = find(
        &objs,
        "ClusterRoleBinding",
        "kserve-controller-manager-manager-rolebinding",
    );
    assert_eq!(binding["subjects"][0]["name"], "kserve-controller-manager");
    assert_eq!(binding["subjects"][0]["namespace"], "kserve");

    // inferenceservice-config: the keys configmap.go checks at start-up hold valid values.
    let config = find(&objs, "ConfigMap", "inferenceservice-config");
    assert_eq!(config["metadata"]["namespace"], "kserve");
    let key = |k: &str| -> Value {
        serde_json::from_str(
            config["data"][k]
                .as_str()
                .unwrap_or_else(|| panic!("no key {k}")),
        )
        .unwrap()
    };
    assert_eq!(key("deploy")["defaultDeploymentMode"], "Standard");
    assert!(
        key("ingress")["ingressGateway"]
            .as_str()
            .is_some_and(|g| g.contains('/'))
    );
    assert_eq!(
        key("storageInitializer")["image"],
        "kserve/storage-initializer:v0.20.0"
    );
    for k in [
        "agent",
        "logger",
        "batcher",
        "router",
        "credentials",
        "explainers",
        "inferenceService",
        "security",
    ] {
        key(k);
    }

    // kserve-runtimes: the sklearn InferenceService finds an auto-selected runtime.
    let runtimes = rendered(&app, "kserve", "kserve-runtimes");
    let sklearn = find(&runtimes, "ClusterServingRuntime", "kserve-sklearnserver");
    assert_eq!(
        sklearn["spec"]["supportedModelFormats"][0]["name"],
        "sklearn"
    );
    assert_eq!(
        sklearn["spec"]["supportedModelFormats"][0]["autoSelect"],
        true
    );
    assert_eq!(
        sklearn["spec"]["containers"][0]["image"],
        "kserve/sklearnserver:v0.20.0"
    );
    let tf = find(
        &runtimes,
        "ClusterServingRuntime",
        "kserve-tensorflow-serving",
    );
    assert_eq!(
        tf["spec"]["containers"][0]["image"],
        "tensorflow/serving:2.6.2"
    );
    assert!(strings(&tf["spec"]["containers"][0]["args"]).contains(&"--rest_api_port=8080"));
    let torch = find(&runtimes, "ClusterServingRuntime", "kserve-torchserve");
    assert_eq!(
        torch["spec"]["containers"][0]["image"],
        "pytorch/torchserve-kfs:0.9.0"
    );

    assert_validates(&app, "kserve");
}

#[test]
fn kserve_runtimes_refuses_a_framework_it_has_no_runtime_for() {
    let app = new_app();
    ok(
        &app.root,
        &[
            "generate",
            "kserve-runtimes",
            "runtimes",
            "--frameworks=sklearn onnx",
        ],
    );
    let err = fails(&app.root, &["show", "default", "-c", "runtimes"]);
    assert!(err.contains("unknown onnx"), "{err}");
}

/// SeldonIO/seldon-core@v1.17.1:operator/config/default with cert-manager: the
/// validating webhook calls seldon-webhook-service:443 → webhook-server 4443, whose
/// certificate cert-manager writes into the Secret the manager mounts.
#[test]
fn seldon_operator_validates_and_runs_seldon_deployments() {
    let app = new_app();
    ok(
        &app.root,
        &["env", "add", "seldon", "--namespace", "seldon-system"],
    );
    ok(
        &app.root,
        &[
            "generate",
            "seldon-operator",
            "seldon-controller-manager",
            "--ambassador=true",
        ],
    );
    ok(
        &app.root,
        &[
            "generate",
            "seldon-serve",
            "iris",
            "--modelUri=gs://seldon-models/v1.17.1/sklearn/iris",
        ],
    );
    let objs = rendered(&app, "seldon", "seldon-controller-manager");

    let deployment = find(&objs, "Deployment", "seldon-controller-manager");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["serviceAccountName"],
        "seldon-manager"
    );
    let manager = container(deployment, "manager");
    assert_eq!(
        manager["image"],
        "docker.io/seldonio/seldon-core-operator:1.17.1"
    );
    assert_eq!(strings(&manager["command"]), ["/manager"]);
    let args = strings(&manager["args"]);
    assert!(
        args.contains(&"--webhook-port=4443") && args.contains(&"--enable-leader-election"),
        "{args:?}"
    );
    let env = |name: &str| -> Value {
        manager["env"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no env {name}"))
            .clone()
    };
    // Every $(VAR) of the args is set.
    for arg in &args {
        if let Some(var) = arg.split("$(").nth(1).and_then(|v| v.strip_suffix(')')) {
            env(var);
        }
    }
    assert_eq!(env("MANAGER_CREATE_RESOURCES")["value"], "false");
    assert_eq!(env("AMBASSADOR_ENABLED")["value"], "true");
    assert_eq!(
        env("EXECUTOR_CONTAINER_IMAGE_AND_VERSION")["value"],
        "docker.io/seldonio/seldon-core-executor:1.17.1"
    );
    assert_eq!(
        env("POD_NAMESPACE")["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.namespace"
    );

    let webhook = find(
        &objs,
        "ValidatingWebhookConfiguration",
        "seldon-validating-webhook-configuration-seldon-system",
    );
    assert_eq!(
        webhook["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "seldon-system/seldon-serving-cert"
    );
    let hook = &webhook["webhooks"][0];
    assert_eq!(
        hook["clientConfig"]["service"]["path"],
        "/validate-machinelearning-seldon-io-v1-seldondeployment"
    );
    assert_eq!(
        hook["clientConfig"]["service"]["namespace"],
        "seldon-system"
    );
    assert_eq!(
        strings(&hook["rules"][0]["resources"]),
        ["seldondeployments"]
    );
    assert_service_serves(&objs, &hook["clientConfig"], deployment, 4443);

    let cert = find(&objs, "Certificate", "seldon-serving-cert");
    assert_eq!(cert["spec"]["secretName"], "seldon-webhook-server-cert");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["volumes"][0]["secret"]["secretName"],
        "seldon-webhook-server-cert"
    );
    assert!(
        strings(&cert["spec"]["dnsNames"]).contains(&"seldon-webhook-service.seldon-system.svc")
    );

    let crd = find(
        &objs,
        "CustomResourceDefinition",
        "seldondeployments.machinelearning.seldon.io",
    );
    // Not upstream's unresolved $(CERTIFICATE_NAMESPACE)/$(CERTIFICATE_NAME).
    assert_eq!(
        crd["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "seldon-system/seldon-serving-cert"
    );

    let role = find(&objs, "ClusterRole", "seldon-manager-role-seldon-system");
    let all = [
        "create", "delete", "get", "list", "patch", "update", "watch",
    ];
    assert_can(role, "machinelearning.seldon.io", "seldondeployments", &all);
    assert_can(
        role,
        "machinelearning.seldon.io",
        "seldondeployments/status",
        &["get", "patch", "update"],
    );
    assert_can(role, "apps", "deployments", &all);
    assert_can(role, "", "services", &all);
    assert_can(role, "autoscaling", "horizontalpodautoscalers", &all);
    assert_can(role, "policy", "poddisruptionbudgets", &all);
    assert_can(role, "getambassador.io", "mappings", &all);
    assert_can(role, "networking.istio.io", "virtualservices", &all);
    let sas = find(
        &objs,
        "ClusterRole",
        "seldon-manager-sas-role-seldon-system",
    );
    assert_can(sas, "", "secrets", &["get", "list", "watch"]);

    // seldon-config: the prepackaged server the iris SeldonDeployment names has an image.
    let config = find(&objs, "ConfigMap", "seldon-config");
    let servers: Value =
        serde_json::from_str(config["data"]["predictor_servers"].as_str().unwrap()).unwrap();
    assert_eq!(
        servers["SKLEARN_SERVER"]["protocols"]["seldon"]["image"],
        "seldonio/sklearnserver"
    );
    for k in ["storageInitializer", "credentials", "explainer"] {
        let _: Value = serde_json::from_str(config["data"][k].as_str().unwrap()).unwrap();
    }
    let iris = rendered(&app, "seldon", "iris");
    let predictor = &iris[0]["spec"]["predictors"][0]["graph"];
    assert!(
        servers
            .get(predictor["implementation"].as_str().unwrap())
            .is_some(),
        "{predictor}"
    );

    assert_validates(&app, "seldon");
}
