// @apiVersion 0.1
// @name io.ksonnet.pkg.tensorboard
// @description TensorBoard showing one log directory (gs://, s3:// or a PVC via pvc://claim/path or pvcName): a Deployment and a Service. TensorBoard needs no GPU. For s3:// use an image with tensorflow-io (TensorFlow 2.6+ moved S3 support there).
// @shortDescription TensorBoard Deployment + Service for a log directory.
// @requires For gs:// or s3:// log directories: the credential Secret named by gcpCredentialSecretName or s3SecretName
// @param name string Name of the Deployment and Service
// @param logDir string Log directory: gs://..., s3://..., pvc://claim/path or a path (on pvcName)
// @optionalParam namespace string null Namespace (default: the environment's namespace)
// @optionalParam image string tensorflow/tensorflow:2.18.0 Image holding tensorboard
// @optionalParam port number 6006 Port TensorBoard listens on
// @optionalParam servicePort number 80 Port of the Service
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

local tensorboard = import 'kubeflow/tensorboard/tensorboard.libsonnet';

tensorboard.all(params, env)
