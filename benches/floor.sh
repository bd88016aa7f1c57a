#!/usr/bin/env bash
# kf against its floor: for each app, one Jsonnet file doing what `kf show` does (module
# params with `global`, the env's params.libsonnet over them, the env's main.jsonnet over
# every component, arrays and Lists flattened, each object labelled ksonnet.io/component,
# objects sorted by namespace, kind, apiVersion and name, `std.manifestYamlStream`),
# evaluated by the bare jrsonnet CLI of the version kf embeds. Prints kf, floor and
# kf/floor for wall time (best of RUNS), instructions (callgrind, when valgrind is
# installed; `perf stat -e instructions` is not supported on the project's VMs) and
# peak memory (GNU time's maximum resident set).
#
#   bash benches/floor.sh [CORPUS_DIR]      # default ../shared/ksonnet-corpus
#   RUNS=20 N=2000 bash benches/floor.sh    # more runs; size of the synthetic app
#   KF=/path/to/kf bash benches/floor.sh    # another kf binary (default: a release build)
#   KS=/path/to/ks bash benches/floor.sh    # adds ksonnet 0.13.1 on the Kubeflow scenario
#                                           # (KS_RUNS=3 timed runs of ~4 s each, and
#                                           # about 3 minutes under callgrind)
#
# Apps: the corpus' Kubeflow v0.5 registry scenario (`show prod`, 23 components; skipped
# with a message when the corpus is absent), the ML app of benches/ml.sh with the
# training-operator and argo packages (their CRDs, ~3 MB of JSON), and a synthetic app of
# N (default 500) Deployments. The jrsonnet CLI is installed once into target/bench-tools
# (`cargo install jrsonnet --version =0.5.0-pre98 --root target/bench-tools`).
set -euo pipefail
# KS as given, from the caller's folder: a name on PATH or a path.
if [ -n "${KS:-}" ]; then
  KS=$(command -v "$KS" || echo "$KS")
  case $KS in /*) ;; *) KS=$PWD/$KS ;; esac
fi
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/ksonnet-corpus}
RUNS=${RUNS:-10}
N=${N:-500}
if [ -z "${KF:-}" ]; then
  cargo build --release --quiet
  KF=$PWD/target/release/kf
fi
. benches/common.sh
last_kf_ms="" last_kf_ins="" last_kf_kib=""
install_jrsonnet
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache

# make_floor APP ENV: APP/.floor/ holds the floor's files; prints the jrsonnet command
# line (one argument per line) that evaluates it.
make_floor() {
  local app=$1 env=$2
  local floor=$app/.floor envdir=$app/environments/$env
  mkdir -p "$floor"
  # Module params, `global` merge-patched into each component (global wins).
  cat >"$floor/module-params.libsonnet" <<JSONNET
local p = import "$app/components/params.libsonnet";
local global = std.get(p, "global", {});
{ components: { [c]: std.mergePatch(p.components[c], global) for c in std.objectFields(p.components) } }
JSONNET
  # The env's params.libsonnet, reading those module params instead of the ext var
  # (components read the env's params under the same name).
  sed -E "s#std\.extVar\(['\"]__ksonnet/params['\"]\)#(import \"$floor/module-params.libsonnet\")#" \
    "$envdir/params.libsonnet" >"$envdir/.floor-params.libsonnet"
  {
    echo "{"
    for f in "$app"/components/*.jsonnet; do
      echo "  \"$(basename "$f" .jsonnet)\": import \"$f\","
    done
    echo "}"
  } >"$floor/components.libsonnet"
  cat >"$floor/floor.jsonnet" <<JSONNET
local components = import "$floor/components.libsonnet";
local main = import "$envdir/main.jsonnet";
local kinds = ["Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
  "PodDisruptionBudget", "ServiceAccount", "Secret", "ConfigMap", "StorageClass", "PersistentVolume",
  "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding", "Role",
  "RoleBinding", "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
  "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "Ingress", "APIService"];
local rank = { [kinds[i]]: i for i in std.range(0, std.length(kinds) - 1) };
local items(v) =
  if std.isArray(v) then v
  else if std.get(v, "kind") == "List" then std.get(v, "items", [])
  else [v];
local labelled(name, o) = o + { metadata+: { labels+: { "ksonnet.io/component": name } } };
local objects = [
  labelled(name, o)
  for name in std.objectFields(components)
  if std.objectHas(main, name)
  for o in items(main[name])
];
local meta(o, f) = std.get(std.get(o, "metadata", {}), f, "");
local key(o) = std.join("\u0000", [
  meta(o, "namespace"), "%03d" % std.get(rank, o.kind, 99), o.kind, o.apiVersion, meta(o, "name"),
]);
std.manifestYamlStream(std.sort(objects, key), false, false)
JSONNET
  local dest
  dest=$(cd "$app" && "$KF" env describe "$env" 2>/dev/null | awk '/^ *namespace:/ {ns=$2} /^ *server:/ {s=$2} END {printf "{ server: \"%s\", namespace: \"%s\" }", s, ns}')
  local klib
  klib=$(find "$XDG_CACHE_HOME/kf/ksonnet-lib" -mindepth 1 -maxdepth 1 -type d | head -1)
  printf '%s\n' "$JRSONNET" -S \
    -J "$app/environments" -J "$envdir" -J "$app/vendor" -J "$app/lib" -J "$klib" -J "$app/components" \
    --ext-code "__ksonnet/params=import \"$envdir/.floor-params.libsonnet\"" \
    --ext-code "__ksonnet/components=import \"$floor/components.libsonnet\"" \
    --ext-code "__ksonnet/environments=$dest" \
    "$floor/floor.jsonnet"
}


echo "kf: $KF ($("$KF" version 2>/dev/null | head -1)); floor: jrsonnet $JRSONNET_VERSION"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); wall: best of $RUNS"
echo
echo "| app | | wall ms | instructions | peak memory |"
echo "|---|---|---|---|---|"

# compare NAME APP ENV: kf show ENV and its floor, three rows.
compare() {
  local name=$1 app=$2 env=$3
  (cd "$app" && "$KF" show "$env" >/dev/null) # the ksonnet-lib cache, before make_floor looks for it
  local -a floor
  mapfile -t floor < <(make_floor "$app" "$env")
  if ! "${floor[@]}" >"$WORK/floor.yaml" 2>"$WORK/floor.err"; then
    echo "| $name | floor fails: $(head -1 "$WORK/floor.err") | | | |"
    return
  fi
  local kf_ms floor_ms kf_ins floor_ins kf_kib floor_kib
  kf_ms=$(wall_ms "$KF" --dir "$app" show "$env")
  floor_ms=$(wall_ms "${floor[@]}")
  kf_ins=$(instructions "$KF" --dir "$app" show "$env")
  floor_ins=$(instructions "${floor[@]}")
  kf_kib=$(peak_kib "$KF" --dir "$app" show "$env")
  floor_kib=$(peak_kib "${floor[@]}")
  echo "| $name | kf | $kf_ms | $(millions "$kf_ins")M | $((kf_kib / 1024)) MiB |"
  echo "| | floor | $floor_ms | $(millions "$floor_ins")M | $((floor_kib / 1024)) MiB |"
  echo "| | kf / floor | $(ratio "$kf_ms" "$floor_ms") | $(ratio "$kf_ins" "$floor_ins") | $(ratio "$kf_kib" "$floor_kib") |"
  last_kf_ms=$kf_ms last_kf_ins=$kf_ins last_kf_kib=$kf_kib
}

# against_ksonnet APP ENV: ksonnet 0.13.1 (KS) renders APP's ENV, with the corpus'
# ksonnet-lib placed in lib/ as the corpus' reference run did; two rows, the second
# ksonnet / kf (run right after compare for the same app). Instructions need valgrind;
# Go's preemption signals are turned off under it (callgrind aborts on them otherwise).
against_ksonnet() {
  local app=$1 env=$2 ks_app=$WORK/ksonnet-app
  cp -r "$app" "$ks_app"
  mkdir -p "$ks_app/lib/ksonnet-lib"
  cp -r "$CORPUS/ksonnet-lib/v1.10.3" "$ks_app/lib/ksonnet-lib/"
  rm -rf "$ks_app/.floor" "$ks_app"/environments/*/.floor-params.libsonnet
  if [ -z "$last_kf_ms" ]; then
    echo "| ksonnet | skipped: kf's row above has no figures | | | |"
    return
  fi
  if ! (cd "$ks_app" && "$KS" show "$env" >/dev/null 2>&1); then
    echo "| ksonnet | fails: $KS show $env | | | |"
    return
  fi
  local ks_ms ks_ins ks_kib
  ks_ms=$(cd "$ks_app" && RUNS=${KS_RUNS:-3} wall_ms "$KS" show "$env")
  ks_ins=$(cd "$ks_app" && GODEBUG=asyncpreemptoff=1 instructions "$KS" show "$env")
  ks_kib=$(cd "$ks_app" && MEM_RUNS=1 peak_kib "$KS" show "$env")
  echo "| | ksonnet 0.13.1 | $ks_ms | $(millions "$ks_ins")M | $((ks_kib / 1024)) MiB |"
  echo "| | ksonnet / kf | $(ratio "$ks_ms" "$last_kf_ms") | $(ratio "$ks_ins" "$last_kf_ins") | $(ratio "$ks_kib" "$last_kf_kib") |"
}

if [ -d "$CORPUS/reference/scenario-app" ]; then
  cp -r "$CORPUS/reference/scenario-app" "$WORK/scenario"
  chmod -R u+w "$WORK/scenario"
  compare "Kubeflow v0.5 scenario, show prod" "$WORK/scenario" prod
  if [ -n "${KS:-}" ]; then
    against_ksonnet "$WORK/scenario" prod
  fi
else
  echo "| Kubeflow v0.5 scenario | skipped: no corpus at $CORPUS (pass its folder as the first argument) | | | |"
fi
make_ml_app "$WORK/ml"
add_ml_operators "$WORK/ml"
compare "ML app + training-operator, argo (CRDs), show prod" "$WORK/ml" prod
make_synthetic_app "$WORK/synthetic" "$N"
compare "synthetic, $N Deployments, show prod" "$WORK/synthetic" prod
