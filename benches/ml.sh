#!/usr/bin/env bash
# Render times of an app made from the built-in kubeflow registry: ten ML workloads,
# then the same app with the training-operator and argo packages (about 3 MB of CRDs).
# Usage: bash benches/ml.sh   (RUNS=20 for more runs)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
KF="$PWD/target/release/kf"
RUNS="${RUNS:-10}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
. benches/common.sh
make_ml_app "$work/ml"
cd "$work/ml"
mean_ms() {
  local start end
  "$@" >/dev/null # warm-up
  start=$(date +%s%N)
  for _ in $(seq "$RUNS"); do "$@" >/dev/null; done
  end=$(date +%s%N)
  echo $(( (end - start) / RUNS / 1000000 ))
}
echo "| measurement | mean ms |"
echo "|---|---|"
echo "| kf show prod, 10 ML components | $(mean_ms "$KF" show prod) |"
echo "| kf show prod -c tf-job | $(mean_ms "$KF" show prod -c tf-job) |"
echo "| kf validate prod (offline) | $(mean_ms "$KF" validate prod) |"
add_ml_operators .
echo "| kf show prod, plus training-operator and argo (their CRDs) | $(mean_ms "$KF" show prod) |"
echo "| kf show prod -c tf-job, same app | $(mean_ms "$KF" show prod -c tf-job) |"
