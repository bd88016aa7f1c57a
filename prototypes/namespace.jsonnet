// @apiVersion 0.0.1
// @name io.ksonnet.pkg.namespace
// @description A Namespace that also carries its own name as the label name=<name>.
// @shortDescription A Namespace labelled with its own name
// @param name string Name of the Namespace
local name = import 'param://name';

{
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: name,
    labels: { name: name },
  },
}
