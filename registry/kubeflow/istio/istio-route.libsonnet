// An Istio route (networking.istio.io/v1) to a serving component's Service:
// a VirtualService on a Gateway, and that Gateway itself when asked.
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name);
    local service = if util.isNone(util.get(params, 'service')) then error 'service: required (the Service to route to)' else params.service;
    local svcNs = util.get(params, 'serviceNamespace', ns);
    local hosts = util.toArray(util.get(params, 'hosts', '*'), 'hosts');
    local create = util.toBool(util.get(params, 'createGateway', false), 'createGateway');
    local gateway = if create then name + '-gateway' else util.get(params, 'gateway', 'kubeflow/kubeflow-gateway');
    util.list([
      if create then k8s.routes.gateway(name + '-gateway', ns, labels, hosts,
                                        k8s.asObject(util.get(params, 'gatewaySelector', { istio: 'ingressgateway' }), 'gatewaySelector'),
                                        util.get(params, 'tlsSecret')),
      k8s.routes.virtualService(
        name, ns, labels, hosts, [gateway],
        util.get(params, 'prefix', '/%s/' % name),
        '%s.%s.svc.cluster.local' % [service, svcNs],
        util.get(params, 'port', 8501),
        rewrite=util.get(params, 'rewrite'),
        timeout=util.get(params, 'timeout'),
      ),
    ]),
}
