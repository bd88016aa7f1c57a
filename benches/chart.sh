#!/usr/bin/env bash
# kf show of a component rendering Kueue's chart (tests/fixtures/tanka) through
# tanka-util: the first render (helm runs) against the kept one, and helm template alone.
# helm v4 comes from tests/tools/kube-tools. Figures go to docs/benchmarks.md.
#
#   bash benches/chart.sh            # RUNS=10 bash benches/chart.sh for more runs
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
cargo build --release --locked --quiet
KF=$PWD/target/release/kf
FIXTURE=$PWD/tests/fixtures/tanka
export KF_HELM
KF_HELM=$(bash tests/tools/kube-tools)/helm
WORK=$(mktemp -d /tmp/kf-chart-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
"$KF" init app --namespace ml --server https://bench.example.com >/dev/null 2>&1
cd app
cp -r "$FIXTURE/vendor" "$FIXTURE/charts" .
cat >components/kueue.jsonnet <<'JSONNET'
local tanka = import 'github.com/grafana/jsonnet-libs/tanka-util/main.libsonnet';
local helm = tanka.helm.new(std.thisFile);
{ kueue: helm.template('kueue', '../charts/kueue', { namespace: 'kueue-system' }) }
JSONNET
export XDG_CACHE_HOME=$WORK/cache
"$KF" show default >/dev/null # the ksonnet-lib, generated once
for _ in $(seq 1 "$RUNS"); do
  rm -rf "$XDG_CACHE_HOME/kf/charts"
  /usr/bin/time -f "first %e s %M KB" "$KF" show default >/dev/null
  /usr/bin/time -f "kept %e s %M KB" "$KF" show default >/dev/null
  /usr/bin/time -f "helm-template %e s %M KB" "$KF_HELM" template kueue charts/kueue --include-crds --namespace kueue-system >/dev/null
done
