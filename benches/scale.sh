#!/usr/bin/env bash
# How kf scales with the number of components: instructions (callgrind) of `kf show prod`
# on the synthetic app (benches/common.sh) at N = 500, 2000 and 5000, the a + b·N fit
# through the first and last, and at the largest N `show -c c<N/2>` against the full
# render and `param set c<N/2> replicas 5` (wall, best of RUNS).
#
#   bash benches/scale.sh             # needs valgrind for the instruction counts
#   SIZES="500 5000" bash benches/scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SIZES:-500 2000 5000}
RUNS=${RUNS:-10}
if [ -z "${KF:-}" ]; then
  cargo build --release --quiet
  KF=$PWD/target/release/kf
fi
. benches/common.sh
command -v valgrind >/dev/null || { echo "scale.sh needs valgrind (callgrind) for instruction counts" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache

echo "kf: $KF; machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| components | show prod instructions | per component |"
echo "|---|---|---|"
first_n="" first_i="" n="" ins=""
for n in $SIZES; do
  make_synthetic_app "$WORK/app$n" "$n"
  "$KF" --dir "$WORK/app$n" show prod >/dev/null
  ins=$(instructions "$KF" --dir "$WORK/app$n" show prod)
  echo "| $n | $(millions "$ins")M | $(echo "scale=3; $ins / $n / 1000000" | bc)M |"
  if [ -z "$first_n" ]; then first_n=$n first_i=$ins; fi
done
b=$(echo "($ins - $first_i) / ($n - $first_n)" | bc)
a=$(echo "$first_i - $b * $first_n" | bc)
echo
echo "fit through N=$first_n and N=$n: $(millions "$a")M + $(echo "scale=3; $b / 1000000" | bc)M per component"
echo
app=$WORK/app$n
half=$((n / 2))
full_ms=$(wall_ms "$KF" --dir "$app" show prod)
one_ms=$(wall_ms "$KF" --dir "$app" show prod -c "c$half")
one_ins=$(instructions "$KF" --dir "$app" show prod -c "c$half")
set_ms=$(wall_ms "$KF" --dir "$app" param set "c$half" replicas 5)
set_ins=$(instructions "$KF" --dir "$app" param set "c$half" replicas 5)
echo "| N=$n | wall ms (best of $RUNS) | instructions |"
echo "|---|---|---|"
echo "| show prod | $full_ms | $(millions "$ins")M |"
echo "| show prod -c c$half | $one_ms | $(millions "$one_ins")M |"
echo "| -c / full | $(ratio "$one_ms" "$full_ms") | $(ratio "$one_ins" "$ins") |"
echo "| param set c$half replicas 5 | $set_ms | $(millions "$set_ins")M |"
