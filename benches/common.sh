# Shared by the benchmark scripts (sourced, not run): the jrsonnet CLI, the synthetic
# app, and measurements of one command (wall time, instructions, peak memory).
#
# Expects KF (the kf binary) and WORK (a temp folder) to be set by the script.

JRSONNET_VERSION=0.5.0-pre98
TOOLS=${TOOLS:-$PWD/target/bench-tools}

# The jrsonnet CLI of the version kf embeds (Cargo.toml pins jrsonnet-evaluator to it),
# installed from crates.io into target/bench-tools the first time (about 5 minutes on
# 2 cores): cargo install jrsonnet --version =0.5.0-pre98 --root target/bench-tools
install_jrsonnet() {
  if [ ! -x "$TOOLS/bin/jrsonnet" ]; then
    echo "installing the jrsonnet CLI $JRSONNET_VERSION into $TOOLS (once)" >&2
    cargo install --quiet jrsonnet --version "=$JRSONNET_VERSION" --root "$TOOLS"
  fi
  JRSONNET=$TOOLS/bin/jrsonnet
}

# make_synthetic_app DIR N: N Jsonnet components, each a Deployment reading its params
# and the env destination, and prod overrides for the first 50 (kf param set).
make_synthetic_app() {
  local root=$1 n=$2
  "$KF" init "$root" --env prod >/dev/null
  {
    echo "{"
    echo "  global: {},"
    echo "  components: {"
    for i in $(seq 1 "$n"); do
      echo "    \"c$i\": { name: \"c$i\", image: \"registry.example.com/model:$i\", replicas: 1, port: 8500 },"
    done
    echo "  },"
    echo "}"
  } >"$root/components/params.libsonnet"
  for i in $(seq 1 "$n"); do
    cat >"$root/components/c$i.jsonnet" <<JSONNET
local env = std.extVar("__ksonnet/environments");
local params = std.extVar("__ksonnet/params").components["c$i"];
{
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: params.name, namespace: env.namespace, labels: { app: params.name } },
  spec: {
    replicas: params.replicas,
    selector: { matchLabels: { app: params.name } },
    template: {
      metadata: { labels: { app: params.name } },
      spec: { containers: [{ name: "main", image: params.image, ports: [{ containerPort: params.port }] }] },
    },
  },
}
JSONNET
  done
  for i in $(seq 1 50); do "$KF" --dir "$root" param set "c$i" replicas 3 --env prod; done
}

# wall_ms CMD...: best wall time of RUNS runs (after a warm-up), in milliseconds.
wall_ms() {
  "$@" >/dev/null
  local best=999999999
  for _ in $(seq "${RUNS:-10}"); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null
    end=$(date +%s%N)
    local ms=$(((end - start) / 1000))
    [ "$ms" -lt "$best" ] && best=$ms
  done
  echo "scale=1; $best / 1000" | bc
}

# instructions CMD...: instructions the command executes (callgrind), "-" without valgrind.
instructions() {
  if ! command -v valgrind >/dev/null; then
    echo "-"
    return
  fi
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
    awk '/Collected/ {print $4}'
}

# peak_kib CMD...: the largest resident set of RUNS runs, in KiB (GNU time's %M).
peak_kib() {
  local peak=0
  for _ in $(seq "${MEM_RUNS:-3}"); do
    local kb
    kb=$({ /usr/bin/time -f '%M' "$@" >/dev/null; } 2>&1 | tail -1)
    [ "$kb" -gt "$peak" ] && peak=$kb
  done
  echo "$peak"
}

# millions N: N / 1e6 with one decimal.
millions() {
  if [ "$1" = "-" ]; then echo "-"; else echo "scale=1; $1 / 1000000" | bc; fi
}

# ratio A B: A / B with two decimals ("-" when either is missing).
ratio() {
  if [ "$1" = "-" ] || [ "$2" = "-" ]; then echo "-"; else echo "scale=2; $1 / $2" | bc; fi
}

# make_ml_app DIR: an app of ten ML workloads from the built-in kubeflow registry, with
# env prod (namespace ml-prod) and 4 GPUs per tf-job worker there.
make_ml_app() {
  local root=$1
  "$KF" init "$root" >/dev/null
  "$KF" --dir "$root" env add prod --namespace ml-prod >/dev/null
  for p in tf-job pytorch-job mpi-job seldon-serve train-job jupyterhub argo-workflow; do
    "$KF" --dir "$root" generate "$p" "$p" >/dev/null
  done
  "$KF" --dir "$root" generate tf-serving tf-serving --modelBasePath=gs://b/m >/dev/null
  "$KF" --dir "$root" generate kserve kserve --storageUri=gs://b/m >/dev/null
  "$KF" --dir "$root" generate tensorboard tensorboard --logDir=gs://b/l >/dev/null
  "$KF" --dir "$root" param set tf-job workerGpus 4 --env prod
}

# add_ml_operators DIR: the training-operator and argo packages (about 3 MB of CRDs).
add_ml_operators() {
  "$KF" --dir "$1" generate training-operator training-operator >/dev/null
  "$KF" --dir "$1" generate argo argo >/dev/null
}
