#!/usr/bin/env bash
# `capstan apply` with nothing to change over 50 deployed releases, against a real
# Kubernetes API server (../shared/kube: a real kube-apiserver and etcd, started here and
# stopped at the end) and the real helm 4.3.1, compared in the same run with
#  - the real helmfile v0.166 (../shared/peer/helmfile-bin, its Helm 4 shim) syncing the
#    same 50 releases (helmfile's apply needs the helm-diff plugin, which is not
#    installed here; its sync is what it does without it), and
#  - what checking them costs one helm process at a time as helmfile's helm-diff plugin
#    does it (`helm get manifest` and `helm template` per release).
# The three are interleaved in each round; prints the machine, then per tool the median
# wall time with min and max over the rounds, and the ratios of the medians. Usage:
# benches/apply-noop.sh [rounds] (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cargo build --profile dist -q -p capstan-cli
bin="$PWD/target/dist/capstan"
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
bash "$kube/../peer/helmfile-bin/install.sh" >/dev/null
helmfile="$prefix/bin/helmfile-0.166.0"
shim="$prefix/helmfile-shim"
hf_sync() {
  PATH="$shim:$PATH" HELMFILE_V1MODE=true HELMFILE_GOCCY_GOYAML=false \
    "$helmfile" sync --concurrency 4 >/dev/null 2>&1
}
# Nothing to change for helmfile either (its sync upgrades anyway: that is its cost).
hf_sync || { echo "apply-noop: helmfile sync failed" >&2; exit 1; }
echo "machine: $(nproc) cores, load average at start: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%F)"
c_times=(); h_times=(); f_times=()
for r in $(seq 1 "$runs"); do
  t0=$(now); "$bin" apply -q >/dev/null; t1=$(now)
  per_release; t2=$(now)
  hf_sync; t3=$(now)
  c_times+=("$(echo "$t1 - $t0" | bc)"); h_times+=("$(echo "$t2 - $t1" | bc)"); f_times+=("$(echo "$t3 - $t2" | bc)")
done
# median min max of the arguments
stats() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.2f %.2f %.2f", m, v[1], v[NR]}'; }
read -r c_med c_min c_max <<< "$(stats "${c_times[@]}")"
read -r h_med h_min h_max <<< "$(stats "${h_times[@]}")"
read -r f_med f_min f_max <<< "$(stats "${f_times[@]}")"
echo "rounds: $runs (interleaved)"
printf 'capstan apply (no changes, 50 releases): median %.2f s (min %.2f, max %.2f)\n' "$c_med" "$c_min" "$c_max"
printf 'helmfile v0.166 sync (same 50 releases): median %.2f s (min %.2f, max %.2f)\n' "$f_med" "$f_min" "$f_max"
printf 'helm get manifest + helm template per release: median %.2f s (min %.2f, max %.2f)\n' "$h_med" "$h_min" "$h_max"
printf 'ratio helmfile sync / capstan apply: %.1fx\n' "$(echo "$f_med / $c_med" | bc -l)"
printf 'ratio per-release helm / capstan apply: %.1fx\n' "$(echo "$h_med / $c_med" | bc -l)"
