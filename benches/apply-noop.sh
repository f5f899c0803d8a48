#!/usr/bin/env bash
# `capstan apply` with nothing to change over 50 deployed releases, against a real
# Kubernetes API server (../shared/kube: a real kube-apiserver and etcd, started here and
# stopped at the end) and the real helm, compared with what checking the same 50 releases
# costs one helm process at a time as helmfile's helm-diff plugin does it (`helm get
# manifest` and `helm template` per release). Prints both wall times and the ratio (the
# target: capstan at least 10x faster and under 5 s on 2 cores). Usage:
# benches/apply-noop.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cargo build --release -q -p capstan-cli
bin="$PWD/target/release/capstan"
kube="$PWD/../shared/kube"
prefix="${KUBE_PREFIX:-$HOME/.cache/capstan-test/kube}"
bash "$kube/install-helm.sh" >/dev/null
bash "$kube/install.sh" >/dev/null
export PATH="$prefix/bin:$PATH"
work="$(mktemp -d)"
export KUBE_RUN_DIR="$work/kube"
cleanup() { bash "$kube/stop.sh" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
KUBECONFIG="$(bash "$kube/start.sh")"
export KUBECONFIG
export HELM_CONFIG_HOME="$work/helm/config" HELM_CACHE_HOME="$work/helm/cache" HELM_DATA_HOME="$work/helm/data"

cp -r examples/cluster/charts "$work/charts"
{
  echo "releases:"
  for i in $(seq 1 50); do
    echo "  - name: app-$i"
    echo "    namespace: bench-$((i % 5))"
    echo "    chart: ./charts/greeter"
    echo "    values:"
    echo "      - greeting: hello $i"
    echo "        replicas: $((i % 3 + 1))"
  done
} > "$work/helmfile.yaml"
cd "$work"
"$bin" sync -q --concurrency 4 >/dev/null 2>&1 || { echo "apply-noop: the first sync failed" >&2; exit 1; }
"$bin" write-values -q --output-file-template 'vals/{{ .Release.Name }}.yaml'

# Nothing to change: capstan's apply must exit 0 and upgrade nothing.
out=$("$bin" apply --detailed-exitcode 2>&1) || { echo "apply-noop: capstan apply found changes or failed: $out" >&2; exit 1; }

per_release() {
  for i in $(seq 1 50); do
    ns="bench-$((i % 5))"
    helm get manifest "app-$i" -n "$ns" >/dev/null
    helm template "app-$i" ./charts/greeter -n "$ns" -f "vals/app-$i.yaml" >/dev/null
  done
}

now() { date +%s.%N; }
best_c=999; best_h=999
for r in $(seq 1 "$runs"); do
  t0=$(now); "$bin" apply -q >/dev/null; t1=$(now)
  per_release; t2=$(now)
  c=$(echo "$t1 - $t0" | bc); h=$(echo "$t2 - $t1" | bc)
  best_c=$(echo "if ($c < $best_c) $c else $best_c" | bc)
  best_h=$(echo "if ($h < $best_h) $h else $best_h" | bc)
done
printf 'capstan apply (no changes, 50 releases): %.2f s\n' "$best_c"
printf 'helm get manifest + helm template per release: %.2f s\n' "$best_h"
printf 'ratio: %.1fx\n' "$(echo "$best_h / $best_c" | bc -l)"
