#!/usr/bin/env bash
# Renders a generated helmfile of 200 releases over 5 local charts with `capstan
# template` and prints the wall time and peak memory (the targets: under 1 s and under
# 150 MiB on a 2-core machine), against what helmfile would run for it: 200 `helm
# template` runs of the real helm, whose output must equal capstan's first (a mismatch
# or a failing run ends the script). Usage: benches/helmfile-200.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
cargo build --profile dist -q -p capstan-cli
bin="$PWD/target/dist/capstan"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bash benches/lib/gen-helmfile.sh 200 "$work"

cd "$work"
# What helmfile does for the same helmfile: one `helm template` per release with the
# release's values (the real helm from ../shared/kube/install-helm.sh; scripts/test
# installs it). Its output must equal capstan's before anything is timed.
helm_bin="${CAPSTAN_TEST_HELM:-$HOME/.cache/capstan-test/kube/bin/helm}"
have_helm=0
if [ -x "$helm_bin" ]; then
  have_helm=1
  "$bin" -f helmfile.yaml.gotmpl -e production write-values -q \
    --output-file-template 'vals/{{ .Release.Name }}.yaml'
fi
helm_all() {
  for i in $(seq 1 200); do
    c="${charts[$((i % 5))]}"
    "$helm_bin" template "app-$i" "./charts/$c" -n "ns-$((i % 7))" -f "vals/app-$i.yaml"
  done
}
charts=(webapp service api jobs edge)
# Manifests without blank lines (the two tools separate releases differently).
docs_of() { grep -v '^$' "$1"; }
if [ "$have_helm" = 1 ]; then
  "$bin" -f helmfile.yaml.gotmpl -e production template -q > "$work/out.yaml"
  helm_all > "$work/helm.yaml"
  if ! cmp -s <(docs_of "$work/out.yaml") <(docs_of "$work/helm.yaml"); then
    echo "FAIL: capstan's output differs from 200 helm template runs" >&2
    diff <(docs_of "$work/helm.yaml") <(docs_of "$work/out.yaml") | head -20 >&2
    exit 1
  fi
  echo "output equal to 200 runs of $("$helm_bin" version --short) template"
else
  echo "helm not found at $helm_bin: capstan alone (run scripts/test to install helm)"
fi
for r in $(seq 1 "$runs"); do
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$bin" -f helmfile.yaml.gotmpl -e production template -q > "$work/out.yaml"
  read -r wall kib < "$work/time.txt"
  docs=$(grep -c '^# Source:' "$work/out.yaml")
  line=$(printf 'run %d: capstan %s s wall, %d MiB peak, %d manifests' "$r" "$wall" "$((kib / 1024))" "$docs")
  if [ "$have_helm" = 1 ]; then
    s=$(date +%s%N)
    helm_all > /dev/null
    helm_s=$(python3 -c "print(f'{($(date +%s%N) - $s) / 1e9:.2f}')")
    line="$line; 200 x helm template $helm_s s ($(python3 -c "print(f'{$helm_s / max($wall, 0.01):.0f}')")x)"
  fi
  echo "$line"
done
