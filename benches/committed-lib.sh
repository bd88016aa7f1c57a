#!/usr/bin/env bash
# kf on the corpus apps with the ksonnet-lib ksonnet generated committed in lib/ (a 3.7 MB
# k8s.libsonnet, as most real ksonnet apps commit theirs), against the same apps on kf's
# own generated library (no lib/): `kf show` of each app's first env, the two run in turn
# RUNS times, median wall milliseconds of each, the median of the pairs' ratios, and
# median peak memory. Then, for APP: the first render of the committed library (no kept
# parts), and the library read whole (wrapped in parentheses, which kf never splits).
#
#   bash benches/committed-lib.sh [CORPUS_DIR]     # default ../shared/ksonnet-corpus
set -euo pipefail
cd "$(dirname "$0")/.."
CORPUS=${1:-../shared/ksonnet-corpus}
RUNS=${RUNS:-11}
APP=${APP:-gis_demo_gh-demo-1003}
cargo build --release --quiet
KF=$PWD/target/release/kf
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache
lib="$CORPUS/ksonnet-lib/v1.10.3"

yaml() { python3 -c "import sys,yaml;d=yaml.safe_load(open(sys.argv[1])).get('environments') or {};$1" "$2"; }
apps=()
for src in "$CORPUS"/apps/*/; do
  name=$(basename "$src")
  env=$(yaml 'print(sorted(d)[0] if d else "")' "$src/app.yaml")
  [ -n "$env" ] || continue
  for shape in own parts whole; do
    cp -r "$src" "$WORK/$shape-$name"
    chmod -R u+w "$WORK/$shape-$name"
    [ "$shape" = own ] && continue
    for v in $(yaml 'print(" ".join({e.get("k8sVersion") or "v1.10.3" for e in d.values()}))' "$src/app.yaml"); do
      dir="$WORK/$shape-$name/lib/ksonnet-lib/$v"
      mkdir -p "$dir"
      cp "$lib/k.libsonnet" "$dir/"
      if [ "$shape" = parts ]; then cp "$lib/k8s.libsonnet" "$dir/"; else { echo '('; cat "$lib/k8s.libsonnet"; echo ')'; } >"$dir/k8s.libsonnet"; fi
    done
  done
  # An env kf cannot render on either library is no measure.
  if (cd "$WORK/own-$name" && "$KF" show "$env" >/dev/null 2>&1); then apps+=("$name:$env"); fi
done
# A library's split is found by its stamp only once the file has settled (2 s after its
# last change, src/engine/split_cache.rs).
sleep 2

python3 - "$RUNS" "$KF" "$WORK" "$APP" "${apps[@]}" <<'PY'
import shutil, statistics, subprocess, sys, time
runs, kf, work, app, apps = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

def run(folder, env):
    # GNU time for the peak: a child forked from Python would count Python's own pages.
    peak = f"{work}/peak"
    start = time.perf_counter()
    status = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", peak, kf, "show", env],
                             cwd=folder, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - start) * 1000
    assert status == 0, f"kf show {env} failed in {folder}"
    return wall, int(open(peak).read().split()[-1]) / 1024

print("| app, `kf show ENV` | own library | committed, as parts | parts / own (pairs) | peak, own / parts |")
print("|---|---|---|---|---|")
for item in apps:
    name, env = item.split(":")
    own, parts = f"{work}/own-{name}", f"{work}/parts-{name}"
    run(own, env), run(parts, env)  # warm: kf's library generated, the split kept
    pairs = [(run(own, env), run(parts, env)) for _ in range(runs)]
    o = [p[0][0] for p in pairs]; s = [p[1][0] for p in pairs]
    ratio = statistics.median(b[0] / a[0] for a, b in pairs)
    om = statistics.median(p[0][1] for p in pairs); sm = statistics.median(p[1][1] for p in pairs)
    print(f"| {name} ({env}) | {statistics.median(o):.1f} ms | {statistics.median(s):.1f} ms | {ratio:.2f} | {om:.1f} / {sm:.1f} MiB |")

env = dict(i.split(":") for i in apps)[app]
print()
print(f"| {app}, `kf show {env}` | median | peak |")
print("|---|---|---|")
for label, folder, fresh in [("committed library, first render (no kept parts)", "parts", True),
                             ("committed library, read whole", "whole", False)]:
    results = []
    for _ in range(runs):
        if fresh:
            shutil.rmtree(f"{work}/cache/kf/split-libraries", ignore_errors=True)
        results.append(run(f"{work}/{folder}-{app}", env))
    print(f"| {label} | {statistics.median(r[0] for r in results):.1f} ms | {statistics.median(r[1] for r in results):.1f} MiB |")
PY
