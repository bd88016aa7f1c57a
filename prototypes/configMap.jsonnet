// @apiVersion 0.0.1
// @name io.ksonnet.pkg.configMap
// @description A ConfigMap whose data entries are taken from the optional 'data' object.
// @shortDescription A ConfigMap with optional data entries
// @param name string Name of the ConfigMap
// @optionalParam data object {} Key/value entries stored in the ConfigMap
// @optionalParam namespace string null Namespace of the objects (default: the environment's namespace)

// Every namespaced object names its namespace, so that `kf show <env> | kubectl
// apply -f -` puts it where `kf apply --env <env>` does.
// A params block written without `namespace` (by hand, by an older kf) still renders.
local namespace = if std.objectHas(params, 'namespace') && params.namespace != null then params.namespace else env.namespace;

{
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: import 'param://name', namespace: namespace },
  data: import 'param://data',
}
