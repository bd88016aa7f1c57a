#!/usr/bin/env bash
# The fixed cost of a kf process (docs/benchmarks.md, "The fixed cost of a process"):
#
# 1. `kf version`, `kf --help`, a completion call and `kf show` of an app whose one
#    component is `{}`: median wall time. With GOJSONNET=/path/to/jsonnet (go-jsonnet's
#    command) and JSONNET=/path/to/jsonnet (C++), their `jsonnet -e '{}'` too: the start-up
#    of the engines kf is compared with.
# 2. `kf show` of the corpus' smallest real app (code_search_ks-web-app: two components
#    and a vendored package): system calls (strace -c) and minor page faults (GNU time).
# 3. With KS=/path/to/ks (ksonnet 0.13.1), `kf show` against `ks show` of every env of
#    every corpus app, paired: the two run one after the other, RUNS times, and the ratio
#    is of the medians. ksonnet gets the corpus' ksonnet-lib pre-placed in lib/ for an env
#    that lacks one (as the reference run did); kf renders the app as committed (its own
#    generated ksonnet-lib).
#
#   bash benches/fixed-cost.sh [CORPUS_DIR]          # default ../shared/ksonnet-corpus
#   KS=/tmp/ks RUNS=7 bash benches/fixed-cost.sh
#   KF_BIN=/path/to/kf bash benches/fixed-cost.sh    # another kf binary (before/after)
#   GOJSONNET=/tmp/go-jsonnet/jsonnet JSONNET=/usr/bin/jsonnet bash benches/fixed-cost.sh
#   SWAGGER=/path/to/swagger-v1.10.3.json              # default ../shared/schemas/k8s's
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=$(cd "${1:-../shared/ksonnet-corpus}" && pwd)
RUNS=${RUNS:-7}
if [ -z "${KF_BIN:-}" ]; then
  cargo build --release --quiet
  KF_BIN=$PWD/target/release/kf
fi
KF=$KF_BIN
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache XDG_STATE_HOME=$WORK/state

# median_ms CMD...: the median wall time of RUNS runs (after one warm-up), in ms, read from
# $EPOCHREALTIME: `$(date +%s%N)` timed a `date` process with every command (2-3 ms here).
median_ms() {
  "$@" >/dev/null 2>&1 || true
  local times=() t0 t1
  for _ in $(seq "$RUNS"); do
    t0=${EPOCHREALTIME/./}
    "$@" >/dev/null 2>&1 || true
    t1=${EPOCHREALTIME/./}
    times+=($((10#$t1 - 10#$t0)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

echo "## Start-up (median of $RUNS runs, ms)"
echo
echo "| command | ms |"
echo "|---|---|"
cp -r "$CORPUS/apps/code_search_ks-web-app" "$WORK/small"
chmod -R u+w "$WORK/small"
echo "| /bin/true (what starting any process costs here) | $(median_ms /bin/true) |"
echo "| kf version | $(median_ms "$KF" version) |"
echo "| kf --help | $(median_ms "$KF" --help) |"
echo "| kf __complete (environments of the small app) | $(cd "$WORK/small" && median_ms "$KF" __complete 2 kf show '') |"
"$KF" init "$WORK/empty" >/dev/null
echo '{}' >"$WORK/empty/components/empty.jsonnet"
echo "| kf show of an app whose one component is \`{}\` | $(cd "$WORK/empty" && median_ms "$KF" show default) |"
[ -z "${GOJSONNET:-}" ] || echo "| go-jsonnet: $("$GOJSONNET" --version | sed 's/.* v/v/') -e '{}' | $(median_ms "$GOJSONNET" -e '{}') |"
[ -z "${JSONNET:-}" ] || echo "| C++ jsonnet: $("$JSONNET" --version | sed 's/.* v/v/') -e '{}' | $(median_ms "$JSONNET" -e '{}') |"
echo

echo "## kf show of code_search_ks-web-app (cs_demo): system calls and page faults"
echo
(cd "$WORK/small" && "$KF" show cs_demo >/dev/null)
calls=$(cd "$WORK/small" && strace -f -c -o "$WORK/strace" "$KF" show cs_demo >/dev/null && awk '$NF == "total" {print $4}' "$WORK/strace")
faults=$(cd "$WORK/small" && { /usr/bin/time -f '%R' "$KF" show cs_demo >/dev/null; } 2>&1 | tail -1)
echo "| system calls | minor page faults |"
echo "|---|---|"
echo "| $calls | $faults |"
echo
echo "Most frequent calls:"
echo
sort -k4 -n -r "$WORK/strace" | awk '$4 ~ /^[0-9]+$/ && $NF != "total" {print "- " $NF ": " $4}' | head -6
echo

[ -n "${KS:-}" ] || exit 0
KS=$(command -v "$KS" || echo "$KS")
# The spec ksonnet's `env add` needs for an app without environments (what the corpus'
# reference run gave it).
SWAGGER=${SWAGGER:-$(cd "$CORPUS/../schemas/k8s" && pwd)/swagger-v1.10.3.json}
echo "## kf against ksonnet 0.13.1, paired (median of $RUNS pairs, ms)"
echo
echo "| app | env | ksonnet | kf | ksonnet / kf |"
echo "|---|---|---|---|---|"
for src in "$CORPUS"/apps/*/; do
  name=$(basename "$src")
  kf_app=$WORK/kf-$name ks_app=$WORK/ks-$name
  cp -r "$src" "$kf_app"
  cp -r "$src" "$ks_app"
  chmod -R u+w "$kf_app" "$ks_app"
  envs=$(python3 -c "import yaml;d=yaml.safe_load(open('$src/app.yaml'));print(' '.join(sorted((d.get('environments') or {}).keys())))")
  if [ -z "$envs" ]; then
    (cd "$kf_app" && "$KF" env add default --server https://127.0.0.1:6443 --namespace kubeflow >/dev/null)
    (cd "$ks_app" && "$KS" env add default --server https://127.0.0.1:6443 --namespace kubeflow \
      --api-spec="file:$SWAGGER" >/dev/null 2>&1) || continue
    envs=default
  fi
  for env in $envs; do
    ver=$(python3 -c "import yaml;d=yaml.safe_load(open('$ks_app/app.yaml'));print(((d.get('environments') or {}).get('$env') or {}).get('k8sVersion') or 'v1.10.3')")
    if [ ! -d "$ks_app/lib/$ver" ] && [ ! -d "$ks_app/lib/ksonnet-lib/$ver" ]; then
      mkdir -p "$ks_app/lib/ksonnet-lib"
      cp -r "$CORPUS/ksonnet-lib/v1.10.3" "$ks_app/lib/ksonnet-lib/$ver"
    fi
    (cd "$ks_app" && "$KS" show "$env" >/dev/null 2>&1) || continue
    (cd "$kf_app" && "$KF" show "$env" >/dev/null 2>&1) || continue
    ks_times=() kf_times=()
    for _ in $(seq "$RUNS"); do
      cd "$ks_app"
      t0=${EPOCHREALTIME/./}; "$KS" show "$env" >/dev/null 2>&1; t1=${EPOCHREALTIME/./}
      cd "$kf_app"
      t2=${EPOCHREALTIME/./}; "$KF" show "$env" >/dev/null 2>&1; t3=${EPOCHREALTIME/./}
      ks_times+=($((10#$t1 - 10#$t0))) kf_times+=($((10#$t3 - 10#$t2)))
    done
    ks_ms=$(printf '%s\n' "${ks_times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
    kf_ms=$(printf '%s\n' "${kf_times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}')
    echo "| $name | $env | $ks_ms | $kf_ms | $(awk -v a="$ks_ms" -v b="$kf_ms" 'BEGIN {printf "%.0f", a / b}') |"
  done
done
