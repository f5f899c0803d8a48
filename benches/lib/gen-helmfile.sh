#!/usr/bin/env bash
# Writes a generated helmfile of N releases over 5 local charts into DIR (the benchmark
# input of helmfile-200.sh and helmfile-scale.sh): the two example charts (with
# subcharts) and three variants of the service chart with extra templates; every release
# has a values template and inline values. Usage: gen-helmfile.sh N DIR (run from the
# repository root).
set -euo pipefail
count="$1"
work="$2"
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
  for i in $(seq 1 "$count"); do
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

