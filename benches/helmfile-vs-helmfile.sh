#!/usr/bin/env bash
# `template` of a generated helmfile (benches/lib/gen-helmfile.sh: N releases over 5
# local charts, each with a values template and inline values) with the real helmfile
# v0.166.0 driving the real helm 4.3.1 (../shared/peer/helmfile-bin, its default flags)
# and with capstan, interleaved, ROUNDS rounds: wall time median (min-max) of each and
# the ratio of the medians. Then capstan alone at 20,000 releases: wall, CPU and peak
# memory (getrusage of the child).
# Usage: benches/helmfile-vs-helmfile.sh [N (1000)] [ROUNDS (3)] [BIG (20000, 0: skip)]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-1000}"
rounds="${2:-3}"
big="${3:-20000}"
cargo build --profile dist -q -p capstan-cli
capstan="$PWD/target/dist/capstan"
helm_bin="$(bash ../shared/kube/install-helm.sh)"
bash ../shared/peer/helmfile-bin/install.sh >/dev/null 2>&1
prefix="$(dirname "$helm_bin")"
helmfile="$prefix/bin/helmfile-0.166.0"
shim="$prefix/helmfile-shim"
[ -x "$helmfile" ] || { echo "no real helmfile at $helmfile" >&2; exit 2; }
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
bash benches/lib/gen-helmfile.sh "$n" "$root/h$n"
[ "$big" -gt 0 ] && bash benches/lib/gen-helmfile.sh "$big" "$root/h$big"
echo "machine: $(date -u '+%F %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "helm $("$helm_bin/helm" version --short), helmfile $("$helmfile" version -o short 2>/dev/null | head -1), $("$capstan" --version)"
cd "$root/h$n"
PATH="$shim:$helm_bin:$PATH" HELMFILE_V1MODE=true HELMFILE_GOCCY_GOYAML=false \
python3 - "$capstan" "$helmfile" "$n" "$rounds" <<'P'
import os, statistics, subprocess, sys, time
capstan, helmfile, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
args = ["-f", "helmfile.yaml.gotmpl", "-e", "production", "template"]
def run(argv):
    start = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"{argv[0]} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
    return wall
times = {"helmfile": [], "capstan": []}
for r in range(rounds):
    times["helmfile"].append(run([helmfile] + args))
    times["capstan"].append(run([capstan] + args))
    print(f"round {r + 1}: helmfile {times['helmfile'][-1]:.3f} s, capstan {times['capstan'][-1]:.3f} s", flush=True)
med = {k: statistics.median(v) for k, v in times.items()}
for k, v in times.items():
    print(f"{k:<9} template, {n} releases: {med[k]:8.3f} s wall median ({min(v):.3f}-{max(v):.3f}) of {rounds}")
print(f"capstan is {med['helmfile'] / med['capstan']:.0f}x faster (ratio of medians; "
      f"{min(times['helmfile']) / max(times['capstan']):.0f}x-{max(times['helmfile']) / min(times['capstan']):.0f}x)")
P
if [ "$big" -gt 0 ]; then
  cd "$root/h$big"
  python3 - "$capstan" "$big" <<'P'
import os, subprocess, sys, time
capstan, n = sys.argv[1], int(sys.argv[2])
runs = []
for _ in range(3):
    start = time.perf_counter()
    p = subprocess.Popen([capstan, "-f", "helmfile.yaml.gotmpl", "-e", "production", "template", "-q"],
                         stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("capstan failed")
    runs.append((time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024))
runs.sort()
wall, cpu, peak = runs[1]
print(f"capstan   template, {n} releases: {wall:.3f} s wall median ({runs[0][0]:.3f}-{runs[-1][0]:.3f}), "
      f"{cpu:.3f} s CPU, peak {max(r[2] for r in runs):.0f} MiB (max of 3)")
P
fi
