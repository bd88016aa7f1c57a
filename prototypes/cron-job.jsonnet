// @apiVersion 0.0.1
// @name io.ksonnet.pkg.cron-job
// @description Runs container 'image' on a cron 'schedule' as a batch/v1 CronJob. A run still going when the next one is due is left to finish (concurrencyPolicy Forbid), a failed run is retried 'backoffLimit' times, and the last 3 successful and 1 failed Jobs are kept for their logs.
// @shortDescription A CronJob that runs one container on a schedule
// @param name string Name of the CronJob and its container
// @param image string Container image to run
// @param schedule string When to run, in cron syntax, e.g. "0 3 * * *" (every day at 03:00)
// @optionalParam command array null Command and arguments to run (null: the image's entrypoint)
// @optionalParam timeZone string null IANA time zone of the schedule, e.g. Europe/Berlin (Kubernetes 1.27 or newer; null: the controller's, usually UTC)
// @optionalParam concurrencyPolicy string Forbid What to do when a run is still going at the next one: Allow, Forbid or Replace
// @optionalParam backoffLimit number 2 Retries of a failed run before its Job fails
// @optionalParam namespace string null Namespace of the objects (default: the environment's namespace)
// @kubernetes v1.21.0 batch/v1 CronJob
local name = import 'param://name';
local command = import 'param://command';
local timeZone = import 'param://timeZone';
// Every namespaced object names its namespace, so that `kf show <env> | kubectl
// apply -f -` puts it where `kf apply --env <env>` does.
local namespace = if std.objectHas(params, 'namespace') && params.namespace != null then params.namespace else env.namespace;

{
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: name, namespace: namespace },
  spec: {
    schedule: import 'param://schedule',
    [if timeZone != null then 'timeZone']: timeZone,
    concurrencyPolicy: import 'param://concurrencyPolicy',
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: {
      spec: {
        backoffLimit: import 'param://backoffLimit',
        template: {
          metadata: { labels: { app: name } },
          spec: {
            // A Job's pods may not restart Always; OnFailure retries in place.
            restartPolicy: 'OnFailure',
            containers: [
              {
                name: name,
                image: import 'param://image',
                [if command != null then 'command']: command,
              },
            ],
          },
        },
      },
    },
  },
}
