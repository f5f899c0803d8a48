#!/usr/bin/env bash
# Decrypts a sops+age file of 1,000 keys with capstan's native decryption and with
# `sops -d`, N times each, and prints both times and their ratio.
# Usage: benches/sops-1000.sh [N]   (needs sops and age-keygen; scripts/test installs them)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-20}"
cargo build --release -q -p capstan-secrets --example decrypt
dec="$PWD/target/release/examples/decrypt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
age-keygen -o "$work/key.txt" 2>/dev/null
pub=$(grep 'public key:' "$work/key.txt" | awk '{print $4}')
{
  for i in $(seq 1 1000); do
    case $((i % 4)) in
      0) echo "key$i: value-$i-$RANDOM" ;;
      1) echo "key$i: $i" ;;
      2) echo "key$i: true" ;;
      3) printf 'key%d:\n  nested: "n-%d"\n' "$i" "$i" ;;
    esac
  done
} > "$work/plain.yaml"
sops --encrypt --age "$pub" "$work/plain.yaml" > "$work/secrets.yaml" 2>/dev/null
export SOPS_AGE_KEY_FILE="$work/key.txt"
cmp <("$dec" "$work/secrets.yaml" | python3 -c 'import sys,yaml,json; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))') \
    <(sops -d "$work/secrets.yaml" 2>/dev/null | python3 -c 'import sys,yaml,json; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))') \
  && echo "outputs equal"
t() { local s; s=$(date +%s%N); for _ in $(seq 1 "$n"); do "$@" > /dev/null 2>&1; done; echo $(( ($(date +%s%N) - s) / n / 1000 )); }
native=$(t "$dec" "$work/secrets.yaml")
sops_us=$(t sops -d "$work/secrets.yaml")
echo "native: ${native} us per decryption, sops -d: ${sops_us} us ($n runs each)"
python3 -c "print(f'capstan is {${sops_us}/${native}:.1f}x faster than sops -d')"
