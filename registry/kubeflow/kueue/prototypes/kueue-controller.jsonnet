// @apiVersion 0.1
// @name io.ksonnet.pkg.kueue-controller
// @description Kueue's controller, webhooks and CRDs from its upstream Helm chart (vendored with kf chart add kueue/kueue@0.19.2), rendered by the user's helm, with the manager's Configuration written by kf so that frameworks, the job kinds Kueue queues, is a param: by default the chart's own list plus the training-operator's PyTorchJob, TFJob, XGBoostJob, PaddleJob and JAXJob, which the chart leaves out and kf's jobs use. values sets any other chart value per environment.
// @shortDescription Kueue from its Helm chart, queueing every job kind kf renders.
// @requires helm (v3 or v4) where kf renders, and Kueue's chart vendored in the app (kf chart add kueue/kueue@0.19.2)
// @checkedAgainst Kueue v0.19.2's chart: values.yaml (managerConfig.controllerManagerConfigYaml and its defaults), templates/manager/manager-config.yaml (the ConfigMap it becomes)
// @kubernetes v1.29.0 Kueue v0.19 supports Kubernetes 1.29 and newer
// @param name string Release name the chart's templates see (kueue for upstream's object names)
// @optionalParam chart string charts/kueue Folder of the vendored chart, relative to the app
// @optionalParam namespace string kueue-system Namespace of the controller
// @optionalParam frameworks array null Job kinds Kueue queues (null: the chart's list plus the training-operator's v1 kinds)
// @optionalParam manageJobsWithoutQueueName boolean false Queue jobs that name no queue too
// @optionalParam values object {} More chart values, nested as in its values.yaml

local kueue = import 'kubeflow/kueue/kueue-controller.libsonnet';
// The chart is named from the app's folder; helmTemplate reads it from this file's.
local up = std.join('', ['../' for _ in std.findSubstr('/', std.thisFile)]);

kueue.controller(params, env, up + std.toString(if params.chart == null then 'charts/kueue' else params.chart), std.thisFile)
