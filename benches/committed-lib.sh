#!/usr/bin/env bash
# kf on a corpus app that commits ksonnet's generated library (lib/ksonnet-lib/<v>/, a
# 3.7 MB k8s.libsonnet, as most real ksonnet apps do), against the same app on kf's own
# generated library (no lib/), and against the same library read whole (wrapped in
# parentheses, which kf never reads as parts): wall time and peak memory of `kf show`,
# best and median of RUNS, and the first render (no kept parts) of the committed library.
#
#   bash benches/committed-lib.sh [CORPUS_DIR]     # default ../shared/ksonnet-corpus
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/ksonnet-corpus}
RUNS=${RUNS:-10}
APP=${APP:-gis_demo_gh-demo-1003}
cargo build --release --quiet
KF=$PWD/target/release/kf
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache
lib="$CORPUS/ksonnet-lib/v1.10.3"
version=$(python3 -c "import yaml;d=yaml.safe_load(open('$CORPUS/apps/$APP/app.yaml'));print(sorted(e.get('k8sVersion') for e in d['environments'].values())[0])")
for shape in own parts whole; do
  cp -r "$CORPUS/apps/$APP" "$WORK/$shape"
  chmod -R u+w "$WORK/$shape"
  [ "$shape" = own ] && continue
  dir="$WORK/$shape/lib/ksonnet-lib/$version"
  mkdir -p "$dir"
  cp "$lib/k.libsonnet" "$dir/"
  if [ "$shape" = parts ]; then cp "$lib/k8s.libsonnet" "$dir/"; else { echo '('; cat "$lib/k8s.libsonnet"; echo ')'; } >"$dir/k8s.libsonnet"; fi
done

measure() { # measure LABEL DIR [PREP]: best and median wall seconds, median peak MiB
  local label=$1 dir=$2 prep=${3:-true}
  (cd "$dir" && "$KF" show default >/dev/null)
  local times=() mems=()
  for _ in $(seq "$RUNS"); do
    eval "$prep"
    local out
    out=$(cd "$dir" && { /usr/bin/time -f '%e %M' "$KF" show default >/dev/null; } 2>&1 | tail -1)
    times+=("${out% *}"); mems+=("${out#* }")
  done
  python3 - "$label" "${times[*]}" "${mems[*]}" <<'PY'
import statistics, sys
label, times, mems = sys.argv[1], [float(t) for t in sys.argv[2].split()], [int(m) / 1024 for m in sys.argv[3].split()]
print(f"| {label} | {min(times):.3f} s | {statistics.median(times):.3f} s | {statistics.median(mems):.1f} MiB |")
PY
}
echo "| $APP, \`kf show default\` | best | median | peak |"
echo "|---|---|---|---|"
measure "kf's own library (no lib/)" "$WORK/own"
measure "committed library, read as parts" "$WORK/parts"
measure "committed library, first render (no kept parts)" "$WORK/parts" "rm -rf $WORK/cache/kf/split-libraries"
measure "committed library, read whole" "$WORK/whole"
