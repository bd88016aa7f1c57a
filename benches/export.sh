#!/usr/bin/env bash
# `kf export` against the `kf show` runs it replaces (docs/benchmarks.md, "kf export"):
# every environment of each corpus app, and of a synthetic app of 5000 components with
# two environments. Median of RUNS runs, after one warm-up; `kf export` renders the
# environments in parallel (--parallel, default 4) on the machine's cores.
#
#   bash benches/export.sh [CORPUS_DIR]      # default ../shared/ksonnet-corpus
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$(cd "${1:-../shared/ksonnet-corpus}" && pwd)
RUNS=${RUNS:-5}
cargo build --release --quiet
KF=$PWD/target/release/kf
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state
source benches/common.sh

# median_ms SCRIPT: the median wall time of RUNS runs of `bash -c SCRIPT`, in ms.
median_ms() {
  bash -c "$1" >/dev/null 2>&1
  local times=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s%N)
    bash -c "$1" >/dev/null 2>&1
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

row() { # row NAME DIR
  local name=$1 dir=$2 envs shows
  envs=$(cd "$dir" && "$KF" env list -o json | python3 -c 'import json,sys; print(" ".join(r["name"] for r in json.load(sys.stdin)["data"]))')
  shows=""
  for env in $envs; do shows+="$KF show $env >/dev/null; "; done
  local n
  n=$(echo "$envs" | wc -w)
  local show_ms export_ms
  show_ms=$(median_ms "cd '$dir' && $shows")
  export_ms=$(median_ms "cd '$dir' && rm -rf '$WORK/out' && $KF export '$WORK/out'")
  local objects
  objects=$(python3 -c "import json; print(len(json.load(open('$WORK/out/manifest.json'))['files']))")
  echo "| $name | $n | $objects | $show_ms | $export_ms | $(awk -v a="$show_ms" -v b="$export_ms" 'BEGIN {printf "%.2f", b / a}') |"
}

echo "| app | envs | objects | kf show of each env, ms | kf export, ms | export / shows |"
echo "|---|---|---|---|---|---|"
for src in "$CORPUS"/apps/*/; do
  name=$(basename "$src")
  cp -r "$src" "$WORK/$name"
  chmod -R u+w "$WORK/$name"
  if ! (cd "$WORK/$name" && "$KF" export "$WORK/probe" >/dev/null 2>&1); then
    rm -rf "$WORK/probe"
    continue # an app with no env, or one kf cannot render
  fi
  rm -rf "$WORK/probe"
  row "$name" "$WORK/$name"
done
make_synthetic_app "$WORK/synthetic" 5000
"$KF" --dir "$WORK/synthetic" env add staging --namespace staging >/dev/null
row "synthetic, 5000 Deployments" "$WORK/synthetic"
