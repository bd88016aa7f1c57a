#!/usr/bin/env bash
# Benchmark of `kf show` and `kf param set` against the bare jrsonnet CLI on the same Jsonnet.
#
#   bash benches/render.sh            # prints a table of mean wall times (ms)
#   RUNS=50 bash benches/render.sh    # more runs per measurement
#
# It builds kf in release mode, installs the jrsonnet CLI of the same version kf embeds
# (into target/bench-tools) if it is not there, generates two apps in a temp folder:
#   - "large": 500 jsonnet components (a Deployment each, with params and env overrides)
#   - "small": 20 components made from kf's generic prototypes
# and times each command RUNS times (default 20), after one warm-up run.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-20}

cargo build --release --quiet
KF=$PWD/target/release/kf
. benches/common.sh
install_jrsonnet

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# mean_ms CMD... : mean wall time of RUNS runs, in milliseconds (one warm-up run first).
mean_ms() {
  "$@" >/dev/null
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$RUNS"); do "$@" >/dev/null; done
  end=$(date +%s%N)
  echo "scale=2; ($end - $start) / $RUNS / 1000000" | bc
}

make_small_app() {
  local root=$WORK/small
  "$KF" init "$root" --env prod >/dev/null
  for i in $(seq 1 4); do
    "$KF" --dir "$root" generate deployed-service "web$i" --image=nginx:1.27 >/dev/null
    "$KF" --dir "$root" generate single-port-deployment "worker$i" --image=busybox >/dev/null
    "$KF" --dir "$root" generate single-port-service "svc$i" "--targetLabelSelector={\"app\":\"worker$i\"}" >/dev/null
    "$KF" --dir "$root" generate configMap "cm$i" '--data={"a":"b"}' >/dev/null
    "$KF" --dir "$root" generate namespace "ns$i" >/dev/null
    "$KF" --dir "$root" param set "web$i" replicas 3 --env prod
  done
}

# The same Jsonnet for the bare CLI: every component evaluated with the env params kf
# computed, and manifested (jrsonnet prints JSON; kf prints YAML after its pipeline).
make_bare() {
  local root=$1
  {
    echo "{"
    for f in "$root"/components/*.jsonnet; do
      local n; n=$(basename "$f" .jsonnet)
      echo "  \"$n\": import \"components/$n.jsonnet\","
    done
    echo "}"
  } > "$root/bare.jsonnet"
}

bare_eval() {
  local root=$1
  (cd "$root" && "$JRSONNET" \
    --ext-code '__ksonnet/params=local p = import "components/params.libsonnet"; { components: p.components }' \
    --ext-code '__ksonnet/environments={ server: "https://kubernetes.default.svc", namespace: "default" }' \
    bare.jsonnet)
}

make_synthetic_app "$WORK/large" 500
make_small_app
make_bare "$WORK/large"
make_bare "$WORK/small"

large_kf=$(mean_ms "$KF" --dir "$WORK/large" show prod)
large_bare=$(mean_ms bare_eval "$WORK/large")
small_kf=$(mean_ms "$KF" --dir "$WORK/small" show prod)
small_bare=$(mean_ms bare_eval "$WORK/small")
one_kf=$(mean_ms "$KF" --dir "$WORK/large" show prod -c c250)
set_ms=$(mean_ms "$KF" --dir "$WORK/large" param set c250 replicas 5)
set_env_ms=$(mean_ms "$KF" --dir "$WORK/large" param set c250 replicas 7 --env prod)

echo "runs per figure: $RUNS   machine: $(nproc) cores, $(uname -m)"
echo "| measurement | mean ms |"
echo "|---|---|"
echo "| kf show prod, 500 components | $large_kf |"
echo "| bare jrsonnet, same 500 components | $large_bare |"
echo "| ratio kf / bare (500) | $(echo "scale=2; $large_kf / $large_bare" | bc) |"
echo "| kf show prod -c c250 (1 of 500) | $one_kf |"
echo "| kf show prod, 20 components | $small_kf |"
echo "| bare jrsonnet, same 20 components | $small_bare |"
echo "| kf param set on the 500-component params file | $set_ms |"
echo "| kf param set --env prod (500 components) | $set_env_ms |"
