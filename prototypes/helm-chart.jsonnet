// @apiVersion 0.0.1
// @name io.ksonnet.pkg.helm-chart
// @description Renders a Helm chart kept in the app (charts/<chart>; vendor one with `kf chart add REPO/NAME@VERSION`) with the user's helm, v3 or v4, as `helm template` would, CRDs included. Its values are this component's 'values' param, so one value is set per environment as any param is: `kf param set <component> values.controllerManager.replicas 2 --env prod`. The chart's own values.yaml fills in the rest.
// @shortDescription A Helm chart in the app, its values set per environment
// @param name string Release name the chart's templates see as .Release.Name
// @param chart string Folder of the chart, relative to the app (e.g. charts/kueue)
// @optionalParam values object {} Values that override the chart's values.yaml, nested as there (e.g. {controllerManager: {replicas: 2}})
// @optionalParam namespace string null Namespace the chart is rendered for, .Release.Namespace (default: the environment's namespace)
// @optionalParam includeCrds boolean true Whether the objects of the chart's crds/ folder are rendered too
// @optionalParam kubeVersion string null Kubernetes version the templates see as .Capabilities.KubeVersion (null: helm's own)
// @kubernetes v1.15.0 Helm 3.0 or newer renders the chart, and supports no older Kubernetes
local namespace = if params.namespace != null then params.namespace else env.namespace;
// The chart is named from the app's folder; helmTemplate reads it from this file's.
local up = std.join('', ['../' for _ in std.findSubstr('/', std.thisFile)]);

std.native('helmTemplate')(import 'param://name', up + params.chart, {
  calledFrom: std.thisFile,
  values: params.values,
  namespace: namespace,
  includeCrds: params.includeCrds,
  [if params.kubeVersion != null then 'kubeVersion']: params.kubeVersion,
})
