// Building blocks for the Kubeflow training-job custom resources (TFJob,
// PyTorchJob, MPIJob, MXJob, XGBoostJob, PaddleJob, JAXJob, ...): one
// runPolicy, one restartPolicy check and one replica description for all.
//
// Params read here (all optional):
//   restartPolicy            Always | OnFailure | ExitCode | Never
//   cleanPodPolicy           Running | All | None           } spec.runPolicy,
//   backoffLimit             whole number                   } each omitted
//   activeDeadlineSeconds    whole number                   } when not set
//   ttlSecondsAfterFinished  whole number                   }
//   image, gpuImage, command, args, envVars (or an older component's env) and the GPU params (see gpu.libsonnet)
//
// What every replica's pod also gets (all optional, all per environment like GPUs):
//   cpu, memory              request = limit of each replica (e.g. "4", "16Gi")
//   resources                a full {requests, limits} object, under cpu/memory and the GPU limit
//   <type>Resources          the same for one replica type (workerResources, psResources, ...)
//   pvcName, pvcMountPath    a PVC for data and checkpoints, mounted in every replica
//   shmSize                  /dev/shm as a memory emptyDir of that size (NCCL and PyTorch
//                            DataLoader workers need more than the runtime's 64 MiB)
//   serviceAccountName, imagePullSecrets (names), priorityClassName, schedulerName
//   gangScheduler            volcano or a scheduler-plugins scheduler's name: runPolicy.schedulingPolicy
//                            (gangMinAvailable, default every pod; gangQueue, gangPriorityClass,
//                            gangScheduleTimeoutSeconds) and the pods' schedulerName
//   queueName                the Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the job,
//                            which Kueue's job integrations read)
//   workloadPriorityClass    the Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class)
local gpu = import 'kubeflow/common/gpu.libsonnet';
local k8s = import 'kubeflow/common/k8s.libsonnet';
local kueue = import 'kubeflow/common/kueue.libsonnet';
local replicas = import 'kubeflow/common/replicas.libsonnet';
local util = import 'kubeflow/common/util.libsonnet';

{
  restartPolicies:: ['Always', 'OnFailure', 'ExitCode', 'Never'],
  cleanPodPolicies:: ['Running', 'All', 'None'],

  // The replica restartPolicy from params.restartPolicy (or `default`).
  restartPolicy(params, default='OnFailure', allowed=$.restartPolicies)::
    util.oneOf(util.get(params, 'restartPolicy', default), allowed, 'restartPolicy'),

  // spec.runPolicy of a Kubeflow job, or null when no field is set; `pods` is how many
  // pods the job runs, the gang's default size.
  runPolicy(params, pods=null)::
    local rp = util.prune({
      cleanPodPolicy: util.oneOf(util.get(params, 'cleanPodPolicy'), $.cleanPodPolicies, 'cleanPodPolicy'),
      backoffLimit: util.optInt(util.get(params, 'backoffLimit'), 'backoffLimit'),
      activeDeadlineSeconds: util.optInt(util.get(params, 'activeDeadlineSeconds'), 'activeDeadlineSeconds'),
      ttlSecondsAfterFinished: util.optInt(util.get(params, 'ttlSecondsAfterFinished'), 'ttlSecondsAfterFinished'),
      schedulingPolicy: $.schedulingPolicy(params, pods),
    });
    if rp == {} then null else rp,

  // Gang scheduling. With gangScheduler set (volcano, or the name a scheduler-plugins
  // coscheduling scheduler runs under, e.g. scheduler-plugins-scheduler), the job gets
  // runPolicy.schedulingPolicy, which training-operator v1.9 and mpi-operator v0.8 turn
  // into a PodGroup when they run with that gang scheduler (SchedulingPolicy in
  // pkg/apis/kubeflow.org/v1/common_types.go and pkg/apis/kubeflow/v2beta1/types.go), and
  // its pods that schedulerName (the operators set it too; pkg/controller.v1/common/pod.go).
  // minAvailable defaults to every pod of the job: all start together, or none.
  gangScheduler(params)::
    local g = util.get(params, 'gangScheduler');
    local own = util.get(params, 'schedulerName');
    if util.isNone(g) then null
    else if !util.isNone(own) && own != g then
      error 'schedulerName %s and gangScheduler %s differ: the gang scheduler must schedule the pods (the operator leaves another one in place, and the gang never forms); unset schedulerName' % [std.manifestJson(own), std.manifestJson(g)]
    else std.toString(g),

  schedulingPolicy(params, pods)::
    if $.gangScheduler(params) == null then null
    else
      local min = util.optInt(util.get(params, 'gangMinAvailable'), 'gangMinAvailable');
      util.prune({
        minAvailable: if min != null then min else pods,
        queue: util.toStringOrNull(util.get(params, 'gangQueue')),
        priorityClass: util.toStringOrNull(util.get(params, 'gangPriorityClass')),
        scheduleTimeoutSeconds: util.optInt(util.get(params, 'gangScheduleTimeoutSeconds'), 'gangScheduleTimeoutSeconds'),
      }),

  // A replica count param (`key`, default `default`) as a whole number >= 0.
  count(params, key, default=0)::
    local n = util.toInt(util.get(params, key, default), key);
    if n < 0 then error '%s: %d is negative' % [key, n] else n,

  // A replica count limited to 0 or 1 (chief, master, launcher, ...).
  zeroOrOne(params, key, default=0)::
    local n = $.count(params, key, default);
    if n > 1 then error '%s: %d is not 0 or 1 (at most one replica of this type)' % [key, n] else n,

  // A replica description for replicas.spec: the job's image, command, args,
  // envVars and the GPU settings read with `gpuPrefix` (e.g. 'worker' reads
  // workerGpus, falling back to numGpus). `extra` overrides any field.
  replica(params, containerName, count, gpuPrefix=null, extra={}):: {
    local storage = $.volumes(params),
    containerName: containerName,
    image: util.get(params, 'image'),
    command: $.command(params),
    args: util.get(params, 'args'),
    env: util.envParam(params),
    gpu: gpu.settings(params, gpuPrefix),
    replicas: count,
    restartPolicy: $.restartPolicy(params),
    resources: $.resources(params, gpuPrefix),
    volumes: storage.volumes,
    volumeMounts: storage.volumeMounts,
    serviceAccountName: util.get(params, 'serviceAccountName'),
    imagePullSecrets: util.get(params, 'imagePullSecrets'),
    priorityClassName: util.get(params, 'priorityClassName'),
    schedulerName: if $.gangScheduler(params) != null then $.gangScheduler(params) else util.get(params, 'schedulerName'),
  } + extra,

  // Resources of a replica: `resources`, then `<prefix>Resources`, then cpu/memory as
  // request and limit (the GPU limit is added by replicas.container).
  resources(params, prefix=null)::
    local obj(v, what) = if std.isObject(v) then v else error '%s: expected an object like {"requests": {"cpu": "2"}}, got %s' % [what, std.type(v)];
    local base = obj(util.get(params, 'resources', {}), 'resources');
    local own = if prefix == null then {} else obj(util.get(params, prefix + 'Resources', {}), prefix + 'Resources');
    local quantities = util.prune({
      cpu: util.toStringOrNull(util.get(params, 'cpu')),
      memory: util.toStringOrNull(util.get(params, 'memory')),
    });
    local merged = std.mergePatch(base, own);
    if quantities == {} then merged
    else merged {
      requests: util.get(merged, 'requests', {}) + quantities,
      limits: util.get(merged, 'limits', {}) + quantities,
    },

  // The data PVC and /dev/shm of every replica.
  volumes(params)::
    local pvc = util.get(params, 'pvcName');
    local shm = util.get(params, 'shmSize');
    {
      volumes: (if pvc == null then [] else [{ name: 'data', persistentVolumeClaim: { claimName: pvc } }])
               + (if shm == null then [] else [{ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: std.toString(shm) } }]),
      volumeMounts: (if pvc == null then [] else [{ name: 'data', mountPath: util.get(params, 'pvcMountPath', '/mnt/data') }])
                    + (if shm == null then [] else [{ name: 'dshm', mountPath: '/dev/shm' }]),
    },

  // Labels of the job object: the app label and Kueue's queue and priority.
  jobLabels(params):: util.labels(params.name) + kueue.labels(params),

  // GPUs of a replica type, for docs and checks ("psGpus" → its count).
  gpus(params, gpuPrefix=null):: gpu.settings(params, gpuPrefix).count,

  // kf's example training scripts (tf-job, pytorch-job, jax-job and xgboost-job run one by default):
  // mounted from a ConfigMap <name>-example when the job's command or args name the script.
  example:: { dir: '/opt/kf-example', script: '/opt/kf-example/train.py', volume: 'kf-example' },
  // The stock images the examples are written for (tf-job, pytorch-job, jax-job, xgboost-job).
  exampleImages:: [
    'tensorflow/tensorflow:2.16.1',
    'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
    'docker.io/kubeflow/jaxjob-simple:latest',
    'ghcr.io/kubeflow/trainer/xgboost-runtime:v2.3.0',
  ],

  // The container command. The default, kf's example command, belongs to kf's stock
  // image: a component given its own image or its own args runs that image's entrypoint
  // with those args instead (`--args='["python","/opt/mnist.py"]'` ran as arguments of
  // kf's example script, and the user's program never ran).
  command(params)::
    $.exampleCommand(util.get(params, 'command'),
                     !util.isNone(util.get(params, 'args'))
                     || !std.member($.exampleImages, util.get(params, 'image'))),

  runsExample(params):: $.namesExample($.command(params), util.get(params, 'args')),

  // The rule behind every component that runs kf's example (the job kinds here,
  // argo-workflow's train step, train-job): `command` when it is the user's, nothing when
  // it is kf's example command and the user brought a program of their own (`own`).
  exampleCommand(command, own)::
    if std.member(util.toArgs(command), $.example.script) && own then null else command,
  // Whether `command` and `args` run kf's example script.
  namesExample(command, args):: std.member(util.toArgs(command) + util.toArgs(args), $.example.script),
  // Whether the user brought a program of their own: a command, args, or an image other
  // than kf's `stockImage` (caffe2-job, chainer-job).
  ownProgram(params, stockImage)::
    !util.isNone(util.get(params, 'command')) || !util.isNone(util.get(params, 'args'))
    || util.get(params, 'image', stockImage) != stockImage,
  // The example's ConfigMap <name>-example, its volume and its read-only mount.
  exampleConfigMap(params, env, script)::
    k8s.configMap(params.name + '-example', util.namespace(params, env), util.labels(params.name), { 'train.py': script }),
  exampleVolume(params):: { name: $.example.volume, configMap: { name: params.name + '-example' } },
  exampleMount:: { name: $.example.volume, mountPath: $.example.dir, readOnly: true },

  // `job` alone, or, when it runs the example, a List of the script's ConfigMap and the
  // job with the script mounted read-only in every replica's containers.
  withExample(params, env, script, job)::
    if !$.runsExample(params) then job
    else
      local field = [f for f in std.objectFields(job.spec) if std.endsWith(f, 'ReplicaSpecs')][0];
      local mounted(spec) = spec {
        template+: { spec+: {
          volumes+: [$.exampleVolume(params)],
          containers: [c { volumeMounts+: [$.exampleMount] } for c in spec.template.spec.containers],
        } },
      };
      util.list([
        $.exampleConfigMap(params, env, script),
        job { spec+: { [field]: { [t]: mounted(job.spec[field][t]) for t in std.objectFields(job.spec[field]) } } },
      ]),

  // The custom resource itself.
  resource(params, env, apiVersion, kind, spec):: {
    local name = params.name,
    apiVersion: apiVersion,
    kind: kind,
    metadata: {
      name: name,
      namespace: util.namespace(params, env),
      labels: $.jobLabels(params),
    },
    spec: util.prune(spec),
  },

  // A Kubeflow v1-style job: {<field>: replicas.specs(types), runPolicy}
  // merged with `extraSpec`. Fails when no replica type has a replica.
  // The operators refuse a job whose name is not a DNS-1035 label: training-operator
  // v1.9's webhooks (pkg/webhooks/*/…_webhook.go, NameIsDNS1035Label), mpi-operator
  // v0.8's validation and Trainer's CEL rule on TrainJob. kf says so before a cluster does.
  checkName(kind, name)::
    local problem = util.dns1035Problem(name);
    if problem == null then name
    else error '%s %s: the name is not a DNS-1035 label (%s), and the operator refuses such a %s; give the component or its name param lower-case letters, digits and -, starting with a letter, at most 63 characters' % [kind, std.manifestJson(name), problem, kind],

  job(params, env, apiVersion, kind, replicaField, types, extraSpec={})::
    local specs = replicas.specs(types);
    assert $.checkName(kind, params.name) == params.name;
    if specs == {} then error '%s %s: every replica count is 0; nothing to run' % [kind, params.name]
    else $.resource(params, env, apiVersion, kind, {
      [replicaField]: specs,
      runPolicy: $.runPolicy(params, std.foldl(function(n, t) n + util.get(specs[t], 'replicas', 0), std.objectFields(specs), 0)),
    } + extraSpec),
}
