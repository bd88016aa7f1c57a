// @apiVersion 0.1
// @name io.ksonnet.pkg.tf-serving
// @description TensorFlow Serving for one model: a Deployment (<name>-<versionName>, running tensorflow_model_server with gRPC and REST ports) and the Service <name> in front of every version. The model is read from gs:// (optional GCP key Secret), s3:// (TF Serving 2.7+ cannot read S3 itself: an aws-cli init container and sidecar copy each version into the pod, whole; s3Mode=native passes the path to an image that can) or a PVC (pvc://claim/path, or pvcName + a path on it). With numGpus > 0 the pod gets gpuImage, the GPU limit, gpuNodeSelector and gpuTolerations. Optional Prometheus metrics (monitoring), Ambassador Mapping and Istio VirtualService.
// @shortDescription TensorFlow Serving Deployment + Service, with GPUs.
// @requires For gs:// or s3:// model paths: the credential Secret named by gcpCredentialSecretName or s3SecretName
// @checkedAgainst TensorFlow Serving 2.18.0 (tensorflow/serving and its -gpu build): the container `tf-serving` runs tensorflow_model_server with --port, --rest_api_port, --model_name and --model_base_path
// @param name string Name of the model's Service and prefix of its objects
// @param modelBasePath string Where the model's numbered versions are: gs://..., s3://..., pvc://claim/path or a path (on pvcName)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam modelName string null Model name served and used in URLs (default: name)
// @optionalParam versionName string v1 Version label of this Deployment (null: the Deployment is named after name alone)
// @optionalParam image string tensorflow/serving:2.18.0 Image without GPUs
// @optionalParam gpuImage string tensorflow/serving:2.18.0-gpu Image used when numGpus > 0
// @optionalParam numGpus integer 0 GPUs per replica
// @optionalParam gpuResource string nvidia.com/gpu Extended resource name of the GPUs (e.g. amd.com/gpu)
// @optionalParam gpuNodeSelector object {} Node selector when numGpus > 0 (object or "k=v,k2=v2")
// @optionalParam gpuTolerations array null Tolerations when numGpus > 0 (default: tolerate the gpuResource NoSchedule taint)
// @optionalParam replicas integer 1 Number of replicas
// @optionalParam minAvailable string null Replicas a PodDisruptionBudget (policy/v1) keeps serving through node drains and upgrades: a number, or a percentage such as 50% (null: no budget)
// @optionalParam resources object {} Container resources, e.g. {"requests":{"cpu":"1","memory":"2Gi"}}
// @optionalParam grpcPort integer 8500 gRPC port
// @optionalParam restPort integer 8501 REST (HTTP) port
// @optionalParam createService boolean true Also make the Service and routes (false for a further version behind an existing Service)
// @optionalParam serviceType string ClusterIP Service type: ClusterIP, NodePort or LoadBalancer
// @optionalParam extraArgs array null More tensorflow_model_server flags (array, or a space-separated string)
// @optionalParam envVars object {} More environment variables (object, or "K=v,K2=v2")
// @optionalParam serviceAccountName string null Service account of the pods (e.g. one bound to a cloud identity)
// @optionalParam pvcName string null A PVC mounted at /mnt/models; a relative modelBasePath lies on it
// @optionalParam gcpCredentialSecretName string null Secret holding a GCP service-account key, for gs:// paths
// @optionalParam gcpCredentialKey string key.json Key of the GCP key file in that Secret
// @optionalParam s3SecretName string null Secret holding the AWS access key id and secret key, for s3:// paths
// @optionalParam s3AccessKeyIdKey string AWS_ACCESS_KEY_ID Key of the access key id in s3SecretName
// @optionalParam s3SecretAccessKeyKey string AWS_SECRET_ACCESS_KEY Key of the secret access key in s3SecretName
// @optionalParam s3Endpoint string null S3 endpoint host:port (e.g. minio-service.kubeflow:9000; default: AWS)
// @optionalParam s3Region string us-east-1 S3 region
// @optionalParam s3UseHttps boolean true Use HTTPS to reach S3
// @optionalParam s3VerifySsl boolean true Verify the S3 endpoint's certificate
// @optionalParam s3Mode string sync How s3:// is read: sync (an aws-cli init container and sidecar copy it into the pod) or native (the image reads S3 itself)
// @optionalParam s3SyncSeconds integer 60 Seconds between the sidecar's syncs (new versions / log files)
// @optionalParam s3SyncImage string amazon/aws-cli:2.17.0 Image of the S3 sync containers
// @optionalParam monitoring boolean false Export Prometheus metrics (a --monitoring_config_file ConfigMap and prometheus.io scrape annotations)
// @optionalParam ambassadorRoute boolean false Also make an Ambassador Mapping /tfserving/models/<model> → the REST API
// @optionalParam istioRoute boolean false Also make an Istio VirtualService /tfserving/models/<model> → the REST API
// @optionalParam istioGateway string kubeflow/kubeflow-gateway Istio Gateway (namespace/name) of the VirtualService
// @optionalParam trafficRule string null Canary split between versions, version:percent,... by their version label (e.g. v1:90,v2:10; with istioRoute): a weighted VirtualService and a DestinationRule with one subset per version
// @optionalParam queueName string null Kueue LocalQueue (label kueue.x-k8s.io/queue-name on the Deployment, which Kueue's deployment webhook copies to its pods)
// @optionalParam workloadPriorityClass string null Kueue WorkloadPriorityClass (label kueue.x-k8s.io/priority-class on the Deployment, which Kueue's deployment webhook copies to its pods)

local tfServing = import 'kubeflow/tf-serving/tf-serving.libsonnet';

tfServing.all(params, env)
