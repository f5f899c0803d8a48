#!/usr/bin/env bash
# How `capstan template` (and `values`, `values --explain`) scale with the number of
# releases: generated helmfiles of 50, 1,000 and 20,000 releases over 5 local charts
# (benches/lib/gen-helmfile.sh). Each command is timed as a whole process: wall, CPU
# (user+sys), CPU per release and peak memory (getrusage of the child). Small sizes are
# run several times (at least 3), the three commands interleaved, and the medians printed (one run of
# 50 releases is about 10 ms, below what a single timing can tell apart).
# For scale, the real helm (../shared/kube/install-helm.sh) renders 20 of the same
# releases one `helm template` each, as helmfile would, in the same run.
# Targets (issue 13, 2 cores): 1,000 releases under 0.5 s wall; 20,000 under 500 MB
# peak with CPU per release within 1.2x of that at 50; `values --explain` at 1,000 no
# slower than `template`.
# Usage: benches/helmfile-scale.sh [sizes...]   (default: 50 1000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p capstan-cli
bin="$PWD/target/dist/capstan"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(50 1000 20000)
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
helm_bin="${CAPSTAN_TEST_HELM:-$HOME/.cache/capstan-test/kube/bin/helm}"
for n in "${sizes[@]}"; do
  work="$root/h$n"
  mkdir -p "$work"
  bash benches/lib/gen-helmfile.sh "$n" "$work"
  (
    cd "$work"
    python3 - "$bin" "$n" "$helm_bin" <<'P'
import os, re, statistics, subprocess, sys, time

capstan, n, helm = sys.argv[1], int(sys.argv[2]), sys.argv[3]
state = ["-f", "helmfile.yaml.gotmpl", "-e", "production"]
commands = [
    ("template", state + ["template", "-q"]),
    ("values", state + ["values"]),
    ("values --explain", state + ["values", "--explain"]),
]
rounds = max(3, min(20, 2000 // n))

def measured(argv):
    """Wall and CPU seconds, peak KiB and stderr of one process (its output discarded)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{argv[0]} failed ({p.returncode}): {err.decode(errors='replace')}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, err

results = {label: [] for label, _ in commands}
for _ in range(rounds):
    for label, args in commands:
        results[label].append(measured([capstan] + args))
for label, runs in results.items():
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    peak = max(r[2] for r in runs)
    print(f"{label:<16} {n:>6} releases: {wall:6.3f} s wall, {cpu:6.3f} s CPU, "
          f"{cpu / n * 1000:6.3f} ms CPU/release, {peak / 1024:7.1f} MiB peak"
          f"  (median of {len(runs)})")

# The real helm, one `helm template` per release as helmfile runs it, for 20 releases.
if os.access(helm, os.X_OK) and n >= 20:
    os.makedirs("vals", exist_ok=True)
    subprocess.run([capstan] + state + ["write-values", "-q", "--output-file-template",
                    "vals/{{ .Release.Name }}.yaml"], check=True, stdout=subprocess.DEVNULL)
    text = open("helmfile.yaml.gotmpl").read()
    releases = re.findall(r"- name: (\S+)\n\s+namespace: (\S+)\n\s+chart: (\S+)", text)[:20]
    total_wall, total_cpu = 0.0, 0.0
    for name, ns, chart in releases:
        w, c, _, _ = measured([helm, "template", name, chart, "-n", ns,
                               "-f", f"vals/{name}.yaml"])
        total_wall += w
        total_cpu += c
    k = len(releases)
    print(f"{'helm template':<16} {k:>6} releases: {total_wall:6.3f} s wall, {total_cpu:6.3f} s CPU, "
          f"{total_cpu / k * 1000:6.3f} ms CPU/release (one process each, as helmfile runs it; "
          f"{n} releases would take about {total_wall / k * n:.1f} s)")
P
  )
done
