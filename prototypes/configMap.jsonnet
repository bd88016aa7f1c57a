// @apiVersion 0.0.1
// @name io.ksonnet.pkg.configMap
// @description A ConfigMap whose data entries are taken from the optional 'data' object.
// @shortDescription A ConfigMap with optional data entries
// @param name string Name of the ConfigMap
// @optionalParam data object {} Key/value entries stored in the ConfigMap
{
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: import 'param://name' },
  data: import 'param://data',
}
