// TrainJob (trainer.kubeflow.org/v1alpha1) of Kubeflow Trainer v2. The
// runtime (a ClusterTrainingRuntime or TrainingRuntime) holds the JobSet
// template; the TrainJob only overrides the trainer: image, command, args,
// env, numNodes, numProcPerNode and resourcesPerNode (where the GPU limit
// goes). GPU node selector and tolerations go to a runtimePatches entry (the
// Trainer v2.3 API; podSpecOverrides is gone), owned by manager `kf.dev/kf`
// and aimed at the runtime's trainer job (targetJob, "node" in the Kubeflow
// runtimes): trainer.kubeflow.org_trainjobs.yaml of kubeflow/trainer v2.3.0.
local gpu = import 'kubeflow/common/gpu.libsonnet';
local jobs = import 'kubeflow/common/jobs.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  runtimeKinds:: ['ClusterTrainingRuntime', 'TrainingRuntime'],

  // numProcPerNode: a whole number of at least 1. Trainer v2.3's field is an int32
  // (trainjob_types.go; the v1 PyTorchJob's auto/cpu/gpu strings are gone); left unset,
  // the torch plugin passes `auto` to torchrun (one process per GPU), or, with no GPU in
  // resourcesPerNode, the CPUs per node (pkg/runtime/framework/plugins/torch/torch.go).
  numProcPerNode(v)::
    if util.isNone(v) then null
    else if std.isString(v) && std.member(['auto', 'cpu', 'gpu'], v) then
      error 'numProcPerNode: "%s" is the v1 PyTorchJob\'s value; Trainer v2.3 takes a whole number (leave it unset to let the torch runtime choose one process per GPU)' % v
    else
      local n = util.toInt(v, 'numProcPerNode');
      if n < 1 then error 'numProcPerNode: %d is less than 1' % n else n,

  // What a TrainJob with defaults trains: kf's pytorch-job example under torchrun, which
  // reads the PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR and
  // PET_MASTER_PORT the torch plugin gives the trainer container
  // (pkg/runtime/framework/plugins/torch/torch.go; the runtime itself runs no command).
  // It goes with the torch-distributed runtime and its image only: a command of its own
  // for any other runtime, image or args.
  exampleRuntime:: 'torch-distributed',
  command(params)::
    jobs.exampleCommand(util.get(params, 'command'),
                        !util.isNone(util.get(params, 'args')) || !util.isNone(util.get(params, 'image'))
                        || util.get(params, 'runtimeRef', $.exampleRuntime) != $.exampleRuntime),
  runsExample(params):: jobs.namesExample($.command(params), util.get(params, 'args')),

  // The trainer's container in the Kubeflow runtimes (torch_distributed.yaml and the
  // others of Trainer v2.3: replicated job `node`, container `node`).
  trainerContainer:: 'node',

  // What the TrainJob's trainer section cannot say, as one runtimePatches pod patch
  // (Trainer v2.3's PodSpecPatch takes volumes, containers' volumeMounts and env,
  // serviceAccountName, imagePullSecrets, nodeSelector and tolerations): the job basics
  // every v1 job kind has, and the GPU placement.
  podPatch(params, g)::
    local storage = jobs.volumes(params);
    local example = $.runsExample(params);
    local volumes = storage.volumes + (if example then [jobs.exampleVolume(params)] else []);
    local mounts = storage.volumeMounts + (if example then [jobs.exampleMount] else []);
    util.prune({
      serviceAccountName: util.get(params, 'serviceAccountName'),
      imagePullSecrets: [{ name: s } for s in util.toArray(util.get(params, 'imagePullSecrets'))],
      volumes: volumes,
      containers: if mounts == [] then []
      else [{ name: $.trainerContainer, volumeMounts: mounts }],
    }) + gpu.podSpec(g.count, g.resource, g.nodeSelector, g.tolerations),

  // The TrainJob, and before it, when it runs kf's example, the example's ConfigMap.
  trainJob(params, env)::
    if !$.runsExample(params) then $.job(params, env)
    else util.list([
      jobs.exampleConfigMap(params, env, importstr 'kubeflow/pytorch-job/example/train.py'),
      $.job(params, env),
    ]),

  job(params, env)::
    local g = gpu.settings(params);
    local base = util.get(params, 'resourcesPerNode', {});
    local perNode = jobs.resources(params + { resources: if std.isObject(base) then base
                                             else error 'resourcesPerNode: expected an object, got %s' % std.type(base) });
    local res = gpu.resources(g.count, g.resource, perNode);
    local overrides = $.podPatch(params, g);
    local numNodes = util.get(params, 'numNodes');
    {
      apiVersion: 'trainer.kubeflow.org/v1alpha1',
      kind: 'TrainJob',
      metadata: {
        name: jobs.checkName('TrainJob', params.name),
        namespace: util.namespace(params, env),
        labels: util.labels(params.name) + kueue.labels(params),
      },
      spec: util.prune({
        runtimeRef: {
          name: util.get(params, 'runtimeRef', 'torch-distributed'),
          apiGroup: 'trainer.kubeflow.org',
          kind: util.oneOf(util.get(params, 'runtimeKind', 'ClusterTrainingRuntime'), $.runtimeKinds, 'runtimeKind'),
        },
        trainer: util.prune({
          image: util.toStringOrNull(gpu.image(g.count, util.get(params, 'image'), g.image)),
          command: util.toArgs($.command(params)),
          args: util.toArgs(util.get(params, 'args')),
          env: util.envVars(util.envParam(params)),
          numNodes: if numNodes == null then null else util.toInt(numNodes, 'numNodes'),
          numProcPerNode: $.numProcPerNode(util.get(params, 'numProcPerNode')),
          resourcesPerNode: res,
        }),
        runtimePatches:
          if overrides == {} then []
          else [{
            manager: 'kf.dev/kf',
            trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{
              name: util.get(params, 'targetJob', 'node'),
              template: { spec: { template: { spec: overrides } } },
            }] } } },
          }],
      }),
    },
}
