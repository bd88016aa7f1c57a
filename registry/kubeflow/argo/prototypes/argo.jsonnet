// @apiVersion 0.1
// @name io.ksonnet.pkg.argo
// @description Argo Workflows (v4.1) installed cluster-wide: the Workflow CRD (full schema) and the other argoproj.io CRDs, the workflow-controller Deployment with its ConfigMap (executor image), the argo-server Deployment and Service (API and UI on port 2746), their ServiceAccounts, ClusterRoles and ClusterRoleBindings, and a ServiceAccount + Role for workflow pods (executorServiceAccount, used by argo-workflow). Apply the CRDs with server-side apply: the Workflow CRD is too large for a last-applied annotation.
// @shortDescription Argo Workflows: controller, server/UI and CRDs.
// @requires Nothing: it installs its own CRDs (installCRD=true)
// @param name string Name prefix of the objects (e.g. argo)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam controllerImage string quay.io/argoproj/workflow-controller:v4.1.2 workflow-controller image
// @optionalParam executorImage string quay.io/argoproj/argoexec:v4.1.2 Executor image run in every workflow pod
// @optionalParam serverImage string quay.io/argoproj/argocli:v4.1.2 argo-server image
// @optionalParam installCRD boolean true Also install the argoproj.io CRDs
// @optionalParam server boolean true Also run the argo-server (API and UI)
// @optionalParam authMode array ["client"] argo-server auth modes: client, server and/or sso (JSON array, or separated by spaces)
// @optionalParam secure boolean false Serve the UI over HTTPS (self-signed) instead of HTTP
// @optionalParam baseHref string / URL path the UI is served under (e.g. /argo/ behind a route that keeps the prefix)
// @optionalParam serviceType string ClusterIP Type of the argo-server Service: ClusterIP, NodePort or LoadBalancer
// @optionalParam parallelism integer null Most workflows running at once (default: no limit)
// @optionalParam executorServiceAccount string argo-workflow ServiceAccount (with a Role) for workflow pods in the namespace

local argo = import 'kubeflow/argo/argo.libsonnet';

argo.all(params, env)
