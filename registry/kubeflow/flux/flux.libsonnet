// Flux v2 GitOps for an app's rendered manifests: a GitRepository
// (source.toolkit.fluxcd.io/v1) and a Kustomization
// (kustomize.toolkit.fluxcd.io/v1) applying one path of it.
local k8s = import 'kubeflow/common/k8s.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  // The Git reference: commit, tag, semver or branch (the first one set).
  ref(params)::
    local pick = [
      [k, util.get(params, k)]
      for k in ['commit', 'tag', 'semver', 'branch']
      if !util.isNone(util.get(params, k))
    ];
    if pick == [] then { branch: 'main' } else { [pick[0][0]]: pick[0][1] },

  all(params, env)::
    local name = params.name;
    local ns = util.namespace(params, env);
    local labels = util.labels(name);
    local secret = util.get(params, 'secretName');
    local url = if util.isNone(util.get(params, 'url')) then error 'url: required (the Git repository holding the rendered manifests)' else params.url;
    util.list([
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: k8s.metadata(name, ns, labels),
        spec: {
          url: url,
          interval: util.get(params, 'sourceInterval', util.get(params, 'interval', '5m')),
          ref: $.ref(params),
        } + (if util.isNone(secret) then {} else { secretRef: { name: secret } }),
      },
      {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: k8s.metadata(name, ns, labels),
        spec: util.prune({
          interval: util.get(params, 'interval', '5m'),
          path: util.get(params, 'path', './'),
          prune: util.toBool(util.get(params, 'prune', true), 'prune'),
          sourceRef: { kind: 'GitRepository', name: name },
          targetNamespace: util.get(params, 'targetNamespace'),
          timeout: util.get(params, 'timeout'),
          wait: if util.toBool(util.get(params, 'wait', false), 'wait') then true else null,
          serviceAccountName: util.get(params, 'serviceAccountName'),
        }),
      },
    ]),
}
