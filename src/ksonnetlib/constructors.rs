//! The constructors ksonnet-lib gives some kinds and types instead of a bare `new()`
//! (facts from ksonnet/ksonnet-lib ksonnet-gen/ksonnet/custom_constructor.go): their
//! names, parameters, defaults, and the setter each parameter is passed to. Apps call
//! them positionally (`deployment.new(name, 1, containers, labels)`) and by name.

/// The first Kubernetes version whose library kf makes in today's form: 1.16 removed the
/// extensions/v1beta1 and apps/v1beta* workloads, leaving apps/v1, and ksonnet 0.13 never
/// generated a library for it.
pub const TODAY_SINCE: (u64, u64, u64) = (1, 16, 0);

/// A parameter's default, as ksonnet-lib writes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Default {
    /// `''`: ksonnet-lib's default for a parameter it gives no default.
    Empty,
    Int(i64),
    Bool(bool),
    Str(&'static str),
    /// `{ app: 'name' }`
    AppName,
    /// `{}`
    EmptyObject,
}

impl Default {
    pub fn jsonnet(self) -> String {
        match self {
            Default::Empty => "''".into(),
            Default::Int(i) => i.to_string(),
            Default::Bool(b) => b.to_string(),
            Default::Str(s) => format!("'{s}'"),
            Default::AppName => "{ app: 'name' }".into(),
            Default::EmptyObject => "{}".into(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    /// The setter the argument goes to, from the object itself: `mixin.spec.withReplicas`.
    pub setter: &'static str,
    pub default: Default,
    /// A second setter the argument also goes to.
    pub also: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
pub struct Constructor {
    pub name: &'static str,
    pub params: &'static [Param],
}

const fn p(name: &'static str, setter: &'static str) -> Param {
    Param {
        name,
        setter,
        default: Default::Empty,
        also: None,
    }
}

const fn pd(name: &'static str, setter: &'static str, default: Default) -> Param {
    Param {
        name,
        setter,
        default,
        also: None,
    }
}

/// The pod labels of an apps/v1 workload, which that API also requires as the selector.
const SELECTED_POD_LABELS: Param = Param {
    name: "podLabels",
    setter: "mixin.spec.template.metadata.withLabels",
    default: Default::AppName,
    also: Some("mixin.spec.selector.withMatchLabels"),
};

const fn new(params: &'static [Param]) -> Constructor {
    Constructor {
        name: "new",
        params,
    }
}

const DEPLOYMENT: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    pd("replicas", "mixin.spec.withReplicas", Default::Int(1)),
    p("containers", "mixin.spec.template.spec.withContainers"),
    pd(
        "podLabels",
        "mixin.spec.template.metadata.withLabels",
        Default::AppName,
    ),
])];
const STATEFUL_SET: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    pd("replicas", "mixin.spec.withReplicas", Default::Int(1)),
    p("containers", "mixin.spec.template.spec.withContainers"),
    p("volumeClaims", "mixin.spec.withVolumeClaimTemplates"),
    pd(
        "podLabels",
        "mixin.spec.template.metadata.withLabels",
        Default::AppName,
    ),
])];
/// apps/v1 refuses a Deployment or StatefulSet without `spec.selector` (ksonnet-lib's
/// constructors, written for extensions/v1beta1, never set one): in the libraries kf
/// generates for APIs ksonnet never did, `podLabels` is the selector too.
const DEPLOYMENT_SELECTING: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    pd("replicas", "mixin.spec.withReplicas", Default::Int(1)),
    p("containers", "mixin.spec.template.spec.withContainers"),
    SELECTED_POD_LABELS,
])];
const STATEFUL_SET_SELECTING: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    pd("replicas", "mixin.spec.withReplicas", Default::Int(1)),
    p("containers", "mixin.spec.template.spec.withContainers"),
    p("volumeClaims", "mixin.spec.withVolumeClaimTemplates"),
    SELECTED_POD_LABELS,
])];
const DEPLOYMENT_ROLLBACK: &[Constructor] = &[new(&[p("name", "withName")])];
const SCALE: &[Constructor] = &[new(&[pd(
    "replicas",
    "mixin.spec.withReplicas",
    Default::Int(1),
)])];
const OBJECT_LIST: &[Constructor] = &[new(&[p("items", "withItems")])];
const NAMED: &[Constructor] = &[new(&[p("name", "mixin.metadata.withName")])];

const TOKEN_REVIEW: &[Constructor] = &[new(&[p("token", "mixin.spec.withToken")])];
const CONFIG_MAP: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    p("data", "withData"),
])];
const CONTAINER: &[Constructor] = &[new(&[p("name", "withName"), p("image", "withImage")])];
const CONTAINER_PORT: &[Constructor] = &[
    new(&[p("containerPort", "withContainerPort")]),
    Constructor {
        name: "newNamed",
        params: &[
            p("containerPort", "withContainerPort"),
            p("name", "withName"),
        ],
    },
];
const ENV_VAR: &[Constructor] = &[
    new(&[p("name", "withName"), p("value", "withValue")]),
    Constructor {
        name: "fromSecretRef",
        params: &[
            p("name", "withName"),
            p("secretRefName", "mixin.valueFrom.secretKeyRef.withName"),
            p("secretRefKey", "mixin.valueFrom.secretKeyRef.withKey"),
        ],
    },
    Constructor {
        name: "fromFieldPath",
        params: &[
            p("name", "withName"),
            p("fieldPath", "mixin.valueFrom.fieldRef.withFieldPath"),
        ],
    },
];
const KEY_TO_PATH: &[Constructor] = &[new(&[p("key", "withKey"), p("path", "withPath")])];
const SECRET: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    p("data", "withData"),
    pd("type", "withType", Default::Str("Opaque")),
])];
const SERVICE: &[Constructor] = &[new(&[
    p("name", "mixin.metadata.withName"),
    p("selector", "mixin.spec.withSelector"),
    p("ports", "mixin.spec.withPorts"),
])];
const SERVICE_PORT: &[Constructor] = &[
    new(&[p("port", "withPort"), p("targetPort", "withTargetPort")]),
    Constructor {
        name: "newNamed",
        params: &[
            p("name", "withName"),
            p("port", "withPort"),
            p("targetPort", "withTargetPort"),
        ],
    },
];
const VOLUME: &[Constructor] = &[
    Constructor {
        name: "fromConfigMap",
        params: &[
            p("name", "withName"),
            p("configMapName", "mixin.configMap.withName"),
            p("configMapItems", "mixin.configMap.withItems"),
        ],
    },
    Constructor {
        name: "fromEmptyDir",
        params: &[
            p("name", "withName"),
            pd(
                "emptyDir",
                "mixin.emptyDir.mixinInstance",
                Default::EmptyObject,
            ),
        ],
    },
    // ksonnet-lib names this parameter `emptyDir`; apps pass it by position.
    Constructor {
        name: "fromPersistentVolumeClaim",
        params: &[
            p("name", "withName"),
            p("emptyDir", "mixin.persistentVolumeClaim.withClaimName"),
        ],
    },
    Constructor {
        name: "fromHostPath",
        params: &[
            p("name", "withName"),
            p("hostPath", "mixin.hostPath.withPath"),
        ],
    },
    Constructor {
        name: "fromSecret",
        params: &[
            p("name", "withName"),
            p("secretName", "mixin.secret.withSecretName"),
        ],
    },
];
const VOLUME_MOUNT: &[Constructor] = &[new(&[
    p("name", "withName"),
    p("mountPath", "withMountPath"),
    pd("readOnly", "withReadOnly", Default::Bool(false)),
])];

/// The constructors of the type `kind` in `group` (`core` for the core group) and
/// `version` of `codebase` (`api` unless the definition name says otherwise), if it has
/// its own. `today`: the library is for an API newer than any ksonnet generated one for
/// (see [`TODAY_SINCE`]), where apps/v1's workloads select their pod labels.
pub fn custom(
    codebase: &str,
    group: &str,
    version: &str,
    kind: &str,
    today: bool,
) -> Option<&'static [Constructor]> {
    if codebase != "api" {
        return None;
    }
    Some(match (group, kind) {
        ("apps", "Deployment") if today && version == "v1" => DEPLOYMENT_SELECTING,
        ("apps", "StatefulSet") if today && version == "v1" => STATEFUL_SET_SELECTING,
        ("apps" | "extensions", "Deployment") => DEPLOYMENT,
        ("apps" | "extensions", "DeploymentRollback") => DEPLOYMENT_ROLLBACK,
        ("apps" | "extensions" | "autoscaling", "Scale") => SCALE,
        ("apps" | "extensions", "StatefulSet") => STATEFUL_SET,
        ("apps" | "extensions", "DeploymentList" | "StatefulSetList")
        | ("autoscaling", "HorizontalPodAutoscalerList")
        | ("batch", "JobList" | "CronJobList")
        | ("certificates", "CertificateSigningRequestList")
        | (
            "core",
            "ConfigMapList"
            | "EndpointsList"
            | "EventList"
            | "LimitRangeList"
            | "NamespaceList"
            | "NodeList"
            | "PersistentVolumeClaimList"
            | "PersistentVolumeList"
            | "PodList"
            | "PodTemplateList"
            | "ReplicationControllerList"
            | "ResourceQuotaList"
            | "SecretList"
            | "ServiceAccountList"
            | "ServiceList",
        ) => OBJECT_LIST,
        ("authentication", "TokenReview") => TOKEN_REVIEW,
        ("core", "ConfigMap") => CONFIG_MAP,
        ("core", "Container") => CONTAINER,
        ("core", "ContainerPort") => CONTAINER_PORT,
        ("core", "EnvVar") => ENV_VAR,
        ("core", "KeyToPath") => KEY_TO_PATH,
        ("core", "Namespace" | "ServiceAccount") => NAMED,
        // ksonnet-lib declares a second `new` (stringData) that its generator drops.
        ("core", "Secret") => SECRET,
        ("core", "Service") => SERVICE,
        ("core", "ServicePort") => SERVICE_PORT,
        ("core", "Volume") => VOLUME,
        ("core", "VolumeMount") => VOLUME_MOUNT,
        _ => return None,
    })
}
