#!/usr/bin/env bash
# Instructions per release of `capstan template` (callgrind, deterministic: no timing
# noise) over generated helmfiles (benches/lib/gen-helmfile.sh) of 200 and N releases:
# the total divided by the releases, and the marginal cost of each release past 200.
# Target (issue 32): at most 0.45 M per release at 1,000.
# Usage: benches/callgrind-per-release.sh [N (1000)]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
command -v valgrind >/dev/null || { echo "needs valgrind (Debian: valgrind)" >&2; exit 2; }
cargo build --profile dist -q -p capstan-cli
capstan="$PWD/target/dist/capstan"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
echo "machine: $(date -u '+%F %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(valgrind --version), $("$capstan" --version)"
declare -A total
for size in 200 "$n"; do
  bash benches/lib/gen-helmfile.sh "$size" "$root/h$size"
  (cd "$root/h$size" && valgrind --tool=callgrind --callgrind-out-file="$root/cg.$size" \
    "$capstan" -f helmfile.yaml.gotmpl -e production template -q >/dev/null 2>"$root/log.$size")
  total[$size]=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$root/log.$size")
  awk -v t="${total[$size]}" -v n="$size" 'BEGIN { printf "template, %6d releases: %6.0f M instructions, %.3f M per release\n", n, t / 1e6, t / n / 1e6 }'
done
awk -v a="${total[200]}" -v b="${total[$n]}" -v n="$n" 'BEGIN { printf "each release past 200: %.3f M instructions\n", (b - a) / (n - 200) / 1e6 }'
