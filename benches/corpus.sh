#!/usr/bin/env bash
# kf on real ksonnet apps: wall time, peak memory and (with valgrind) instructions of
# `kf show` for the corpus' Kubeflow v0.5 scenario app (23 components, show-all-prod)
# and for the mnist app of kubeflow/examples, both without lib/ (kf's generated,
# lazily loaded ksonnet-lib).
#
#   bash benches/corpus.sh [CORPUS_DIR]     # default ../shared/ksonnet-corpus
#   KF_BASE=/path/to/older/kf bash benches/corpus.sh   # the same figures for a second binary
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/ksonnet-corpus}
RUNS=${RUNS:-10}
cargo build --release --quiet
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache

cp -r "$CORPUS/reference/scenario-app" "$WORK/scenario"
cp -r "$CORPUS/apps/mnist_ks_app" "$WORK/mnist"
chmod -R u+w "$WORK"
KF=$PWD/target/release/kf
(cd "$WORK/mnist" && "$KF" env add default --server https://127.0.0.1:6443 --namespace kubeflow >/dev/null && rm -rf lib)

measure() { # measure NAME DIR ENV BINARY
  local name=$1 dir=$2 env=$3 bin=$4
  (cd "$dir" && "$bin" show "$env" >/dev/null)   # warm-up (and the ksonnet-lib cache)
  local best=999999 mem=0
  for _ in $(seq "$RUNS"); do
    local out
    out=$(cd "$dir" && { /usr/bin/time -f '%e %M' "$bin" show "$env" >/dev/null; } 2>&1 | tail -1)
    local ms kb
    ms=$(awk '{printf "%d", $1*1000}' <<<"$out"); kb=$(awk '{print $2}' <<<"$out")
    [ "$ms" -lt "$best" ] && best=$ms
    [ "$kb" -gt "$mem" ] && mem=$kb
  done
  local ins="-"
  if command -v valgrind >/dev/null; then
    ins=$(cd "$dir" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" show "$env" 2>&1 >/dev/null \
      | awk '/Collected/ {printf "%.0fM", $4/1e6}')
  fi
  printf '| %s | %s | %d ms | %d MiB | %s |\n' "$name" "$(basename "$bin")" "$best" "$((mem / 1024))" "$ins"
}

echo "| app | binary | best of $RUNS | peak memory | instructions |"
echo "|---|---|---|---|---|"
for bin in "$KF" ${KF_BASE:+"$KF_BASE"}; do
  measure "Kubeflow v0.5 scenario, show prod" "$WORK/scenario" prod "$bin"
  measure "mnist_ks_app, show default" "$WORK/mnist" default "$bin"
done
