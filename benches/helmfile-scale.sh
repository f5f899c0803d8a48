#!/usr/bin/env bash
# How `capstan template` (and `values`, `values --explain`) scale with the number of
# releases: generated helmfiles of 50, 1,000 and 20,000 releases over 5 local charts
# (benches/lib/gen-helmfile.sh), each timed with /usr/bin/time: wall, CPU (user+sys), CPU
# per release and peak memory. Targets (issue 13, 2 cores): 1,000 releases under 0.5 s
# wall; 20,000 under 500 MB peak with CPU per release within 1.2x of that at 50;
# `values --explain` at 1,000 no slower than `template`.
# Usage: benches/helmfile-scale.sh [sizes...]   (default: 50 1000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p capstan-cli
bin="$PWD/target/release/capstan"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(50 1000 20000)
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
measure() { # label, n, args...
  local label=$1 n=$2
  shift 2
  /usr/bin/time -f "%e %U %S %M" -o "$root/time.txt" "$bin" "$@" > "$root/out.txt"
  read -r wall user sys kib < "$root/time.txt"
  python3 - "$label" "$n" "$wall" "$user" "$sys" "$kib" <<'P'
import sys
label, n, wall, user, sys_, kib = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:])
cpu = user + sys_
print(f"{label:<16} {n:>6} releases: {wall:6.2f} s wall, {cpu:6.2f} s CPU, "
      f"{cpu / n * 1000:6.3f} ms CPU/release, {kib / 1024:7.1f} MiB peak")
P
}
for n in "${sizes[@]}"; do
  work="$root/h$n"
  mkdir -p "$work"
  bash benches/lib/gen-helmfile.sh "$n" "$work"
  (
    cd "$work"
    measure template "$n" -f helmfile.yaml.gotmpl -e production template -q
    measure values "$n" -f helmfile.yaml.gotmpl -e production values
    measure "values --explain" "$n" -f helmfile.yaml.gotmpl -e production values --explain
  )
done
