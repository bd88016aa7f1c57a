// @apiVersion 0.1
// @name io.ksonnet.pkg.flux
// @description Flux v2 GitOps for the manifests kf renders: a GitRepository (source.toolkit.fluxcd.io/v1) watching url at a branch, tag, semver range or commit, and a Kustomization (kustomize.toolkit.fluxcd.io/v1) applying path of it every interval, pruning what was removed when prune is true. The Flux controllers are installed with `flux install`.
// @shortDescription Flux GitRepository + Kustomization for rendered manifests.
// @requires The Flux v2 controllers and CRDs (`flux install`)
// @requires For a private repository: the Git credential Secret named by secretName
// @param name string Name of the GitRepository and Kustomization
// @param url string Git repository holding the rendered manifests (https:// or ssh://)
// @optionalParam namespace string null Namespace (default: the environment's namespace; Flux's own is flux-system)
// @optionalParam branch string main Branch to follow (ignored when tag, semver or commit is set)
// @optionalParam tag string null Tag to follow
// @optionalParam semver string null Semver range of tags to follow (e.g. >=1.0.0)
// @optionalParam commit string null Commit to pin
// @optionalParam path string ./ Directory of the manifests in the repository (e.g. ./environments/prod)
// @optionalParam interval string 5m How often the manifests are reconciled (and the repository fetched)
// @optionalParam sourceInterval string null How often the repository is fetched (default: interval)
// @optionalParam prune boolean true Delete objects that were removed from the manifests
// @optionalParam wait boolean false Wait for the applied objects to become ready
// @optionalParam timeout string null Timeout of apply and health checks (e.g. 5m)
// @optionalParam targetNamespace string null Namespace set on every applied object
// @optionalParam secretName string null Secret with the Git credentials (username/password or identity)
// @optionalParam serviceAccountName string null ServiceAccount the Kustomization applies as

local flux = import 'kubeflow/flux/flux.libsonnet';

flux.all(params, env)
