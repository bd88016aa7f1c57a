#!/usr/bin/env bash
# kf's cluster verbs against kubectl 1.33 on a real kube-apiserver (v1.20.2 with its
# controller-manager, tests/envtest), at N objects (N ConfigMaps from one component).
# kf works in namespace kfb, kubectl in kcb, on the same server in the same run; each
# figure is a wall time (and kf's / kubectl's peak memory), paired where the command can
# be repeated (farm-bench, A B A B …).
#
#   bash benches/cluster.sh 2000                # starts (and stops) a server of its own
#   ENVTEST_DIR=/tmp/kf-et bash benches/cluster.sh 10000   # one already up
#   SKIP_KUBECTL_PRUNE=1 …                      # kubectl's prune and delete are not timed (slow)
#
# kubectl applies what `kf export` writes (the same objects), server-side and as an
# ApplySet, as kf applies (KUBECTL_APPLYSET=true, `--prune --applyset`), and its delete
# waits as kf's --wait does. Figures go to docs/benchmarks.md.
set -euo pipefail
cd "$(dirname "$0")/.."

N=${1:-2000}
RUNS=${RUNS:-3}
cargo build --release --locked --quiet
KF=$PWD/target/release/kf
KUBECTL=$(bash tests/tools/kube-tools)/kubectl

WORK=$(mktemp -d /tmp/kf-cluster-bench.XXXXXX)
if [ -z "${ENVTEST_DIR:-}" ]; then
  ENVTEST_DIR=$WORK/envtest
  bash tests/envtest/envtest up "$ENVTEST_DIR" >&2
  trap 'bash tests/envtest/envtest stop "$ENVTEST_DIR" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
else
  trap 'rm -rf "$WORK"' EXIT
fi
export KUBECONFIG=$ENVTEST_DIR/kubeconfig
server=$("$KUBECTL" config view --minify -o jsonpath='{.clusters[0].cluster.server}')
k() { "$KUBECTL" --context admin "$@"; }
K="$KUBECTL --context admin"
# kubectl's side applies as an ApplySet (as kf does), so that it can prune server-side.
KA="env KUBECTL_APPLYSET=true $KUBECTL --context admin apply --server-side --field-manager kubectl-bench --prune --applyset=kcb-bench -n kcb"

# The app: N ConfigMaps; env `kf` for kf (namespace kfb), env `kc` exported for kubectl.
"$KF" init "$WORK/app" --env kf --namespace kfb --server "$server" >/dev/null 2>&1
APP=$WORK/app
(cd "$APP" && "$KF" env add kc --namespace kcb --server "$server" >/dev/null 2>&1)
cat >"$APP/components/many.jsonnet" <<JSONNET
local n = std.parseInt(std.extVar('KF_BENCH_N'));
[{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-%d' % i, labels: { kfbench: 'yes' } }, data: { index: std.toString(i) } } for i in std.range(1, n)]
JSONNET
for ns in kfb kcb; do k delete namespace "$ns" --ignore-not-found --wait >/dev/null; k create namespace "$ns" >/dev/null; done
# $KFA COUNT VERB…: kf on the app, rendering COUNT objects (a script: /usr/bin/time runs it).
KFA=$WORK/kfa
cat >"$KFA" <<SCRIPT
#!/bin/sh
count=\$1; shift
cd "$APP" && exec "$KF" "\$@" --ext-str "KF_BENCH_N=\$count" --context admin
SCRIPT
chmod +x "$KFA"
export_kc() { # export_kc COUNT DIR: the kubectl side's manifests, COUNT objects
  rm -rf "$2"
  (cd "$APP" && "$KF" export "$2" kc --template '{kind}-{name}' --ext-str "KF_BENCH_N=$1") >/dev/null 2>&1
  rm -f "$2/manifest.json"
}
export_kc "$N" "$WORK/all"
export_kc "$((N / 2))" "$WORK/half"

# time_one LABEL CMD…: one run's wall seconds and peak memory.
time_one() {
  local label=$1; shift
  /usr/bin/time -f "$label %e s %M KB" "$@" >/dev/null 2>"$WORK/time.err" || { cat "$WORK/time.err" >&2; exit 1; }
  tail -n 1 "$WORK/time.err"
}

echo "# $N objects, $(nproc) cores, $(date -u +%F)"
for run in $(seq 1 "$RUNS"); do
  echo "## run $run"
  time_one "kf-create" "$KFA" "$N" apply kf
  time_one "kubectl-create" $KA -f "$WORK/all"
  time_one "kf-noop" "$KFA" "$N" apply kf
  time_one "kubectl-noop" $KA -f "$WORK/all"
  time_one "kf-diff" sh -c "'$KFA' $N diff kf; test \$? -lt 2"
  time_one "kubectl-diff" sh -c "'$KUBECTL' --context admin diff --server-side --field-manager kubectl-bench -f '$WORK/all'; test \$? -lt 2"
  # Prune half: the render (and the manifests) lose cm-(N/2+1)…cm-N.
  time_one "kf-prune" "$KFA" "$((N / 2))" apply kf --prune
  if [ -z "${SKIP_KUBECTL_PRUNE:-}" ]; then
    time_one "kubectl-prune" $KA -f "$WORK/half"
  else # kubectl's ApplySet prune deletes one object at a time (200 s for 1,000 here)
    k delete -n kcb -f "$WORK/all" --ignore-not-found --wait=false >/dev/null
    k wait -n kcb --for=delete configmap -l kfbench=yes --timeout=600s >/dev/null 2>&1 || true
    $KA -f "$WORK/half" >/dev/null
  fi
  time_one "kf-delete" "$KFA" "$((N / 2))" delete kf --wait
  if [ -z "${SKIP_KUBECTL_PRUNE:-}" ]; then
    time_one "kubectl-delete" $K delete -n kcb -f "$WORK/half" --wait=true
  else # as slow as its prune: about 5 objects a second
    k delete -n kcb -f "$WORK/half" --wait=false >/dev/null
  fi
done
