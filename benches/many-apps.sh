#!/usr/bin/env bash
# A Tanka-style program of N apps (each a Deployment with env, a Service and a ConfigMap
# built by a small library of constructors) as one kf component, in two shapes: a list of
# all 3N objects, and Tanka's nested object (`{ app1: { deployment: …, … }, … }`). Wall
# time and peak memory (GNU time) of `kf show` with YAML and JSON output, median of RUNS.
# With JSONNET=/usr/bin/jsonnet (Debian's C++ jsonnet; over a minute a run at 2,000 apps)
# the same programs are evaluated by it once for its peak.
#
#   bash benches/many-apps.sh [N]     # default 2000
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
RUNS=${RUNS:-5}
cargo build --release --quiet
KF=$PWD/target/release/kf
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache
"$KF" init "$WORK/app" >/dev/null
cat >"$WORK/app/components/lib.libsonnet" <<'EOF'
{
  deployment:: {
    new(name, image, replicas=1):: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: name, labels: { app: name } },
      spec: {
        replicas: replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: name, image: image, ports: [{ containerPort: 8080 }],
                                 resources: { limits: { cpu: '1', memory: '1Gi' } } }] },
        },
      },
    },
    withEnv(env):: { spec+: { template+: { spec+: { containers: [
      c { env: [{ name: k, value: env[k] } for k in std.objectFields(env)] }
      for c in super.containers
    ] } } } },
  },
  service:: {
    new(name, port):: { apiVersion: 'v1', kind: 'Service', metadata: { name: name },
                        spec: { selector: { app: name }, ports: [{ port: port, targetPort: 8080 }] } },
  },
  configMap:: {
    new(name, data):: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name }, data: data },
  },
}
EOF
program() { # program SHAPE: the component's text
  cat <<EOF
local k = import 'lib.libsonnet';
local app(i) = {
  local name = 'app%d' % i,
  deployment: k.deployment.new(name, 'registry.example.com/app:%d' % i, replicas=1 + i % 3)
    + k.deployment.withEnv({ INDEX: std.toString(i), MODE: 'prod' }),
  service: k.service.new(name, 80),
  config: k.configMap.new(name + '-config', { 'app.yaml': std.manifestYamlDoc({ name: name, index: i }) }),
};
EOF
  if [ "$1" = list ]; then
    echo "[app(i)[kind] for i in std.range(1, $N) for kind in ['deployment', 'service', 'config']]"
  else
    echo "{ ['app%d' % i]: app(i) for i in std.range(1, $N) }"
  fi
}

echo "| $N apps, \`kf show\` | YAML: median, peak | JSON: median, peak |"
echo "|---|---|---|"
for shape in list nested; do
  program "$shape" >"$WORK/app/components/apps.jsonnet"
  (cd "$WORK/app" && "$KF" show default >/dev/null)
  row="| $shape |"
  for output in yaml json; do
    row+=$(cd "$WORK/app" && python3 - "$RUNS" "$KF" "$output" "$WORK/peak" <<'PY'
import statistics, subprocess, sys, time
runs, kf, output, peak = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
walls, peaks = [], []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak, kf, "show", "default", "-o", output],
                   stdout=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - start)
    peaks.append(int(open(peak).read().split()[-1]) / 1024)
print(f" {statistics.median(walls):.2f} s, {statistics.median(peaks):.0f} MiB |", end="")
PY
)
  done
  echo "$row"
  if [ -n "${JSONNET:-}" ]; then
    cp "$WORK/app/components/lib.libsonnet" "$WORK/"
    cp "$WORK/app/components/apps.jsonnet" "$WORK/main.jsonnet"
    /usr/bin/time -f "| $shape, $JSONNET (JSON) | %e s, %M KiB | |" "$JSONNET" "$WORK/main.jsonnet" >/dev/null
  fi
done
