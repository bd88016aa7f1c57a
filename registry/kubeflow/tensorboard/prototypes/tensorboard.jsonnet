// @apiVersion 0.1
// @name io.ksonnet.pkg.tensorboard
// @description TensorBoard showing one log directory (gs://, s3:// or a PVC via pvc://claim/path or pvcName): a Deployment and a Service. TensorBoard needs no GPU. s3:// logs are copied into the pod by an aws-cli init container and a sidecar that syncs every s3SyncSeconds (TensorFlow 2.6+ reads S3 only with tensorflow-io; s3Mode=native for an image that has it).
// @shortDescription TensorBoard Deployment + Service for a log directory.
// @requires For gs:// or s3:// log directories: the credential Secret named by gcpCredentialSecretName or s3SecretName
// @param name string Name of the Deployment and Service
// @param logDir string Log directory: gs://..., s3://..., pvc://claim/path or a path (on pvcName)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string tensorflow/tensorflow:2.18.0 Image holding tensorboard
// @optionalParam port integer 6006 Port TensorBoard listens on
// @optionalParam servicePort integer 80 Port of the Service
// @optionalParam serviceType string ClusterIP Service type: ClusterIP, NodePort or LoadBalancer
// @optionalParam pathPrefix string null URL prefix TensorBoard serves under (e.g. /tensorboard/tb/ behind a route that keeps the prefix)
// @optionalParam resources object {} Container resources
// @optionalParam serviceAccountName string null Service account of the pod
// @optionalParam pvcName string null A PVC mounted at /mnt/logs; a relative logDir lies on it
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

local tensorboard = import 'kubeflow/tensorboard/tensorboard.libsonnet';

tensorboard.all(params, env)
