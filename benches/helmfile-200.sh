#!/usr/bin/env bash
# Renders a generated helmfile of 200 releases over 5 local charts with `capstan
# template` and prints the wall time and peak memory (the targets: under 1 s and under
# 150 MiB on a 2-core machine). Usage: benches/helmfile-200.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cargo build --release -q -p capstan-cli
bin="$PWD/target/release/capstan"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Five charts: the two example charts (with subcharts) and three variants of the
# service chart with extra templates.
mkdir -p "$work/charts"
cp -r examples/webapp "$work/charts/webapp"
cp -r examples/charts/service "$work/charts/service"
for n in api jobs edge; do
  cp -r examples/charts/service "$work/charts/$n"
  sed -i "s/^name: service/name: $n/" "$work/charts/$n/Chart.yaml"
  cat > "$work/charts/$n/templates/extra.yaml" <<'T'
{{- range $i, $e := until 3 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $.Release.Name }}-extra-{{ $i }}
  labels:
    {{- toYaml $.Values.config | nindent 4 }}
data:
  index: {{ $i | quote }}
  env: {{ $.Values.environment | quote }}
{{- end }}
T
done

mkdir -p "$work/values"
cat > "$work/values/common.yaml.gotmpl" <<'V'
environment: {{ .Environment.Name }}
name: {{ .Release.Name }}
config:
  region: {{ .Values.region }}
  tier: {{ .Release.Labels.tier }}
V
{
  echo "environments:"
  echo "  production:"
  echo "    values:"
  echo "      - region: eu-west-1"
  echo "        replicas: 3"
  echo "---"
  echo "releases:"
  charts=(webapp service api jobs edge)
  for i in $(seq 1 200); do
    c="${charts[$((i % 5))]}"
    echo "  - name: app-$i"
    echo "    namespace: ns-$((i % 7))"
    echo "    chart: ./charts/$c"
    echo "    labels:"
    echo "      tier: t$((i % 3))"
    echo "    values:"
    echo "      - values/common.yaml.gotmpl"
    echo "      - replicas: {{ .Values.replicas }}"
    echo "        port: $((8000 + i))"
  done
} > "$work/helmfile.yaml.gotmpl"

cd "$work"
for r in $(seq 1 "$runs"); do
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" -f helmfile.yaml.gotmpl -e production template -q > "$work/out.yaml"
  read -r wall kib < "$work/time.txt"
  docs=$(grep -c '^# Source:' "$work/out.yaml")
  printf 'run %d: %s s wall, %d MiB peak, %d manifests\n' "$r" "$wall" "$((kib / 1024))" "$docs"
done
