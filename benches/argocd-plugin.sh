#!/usr/bin/env bash
# Argo CD's repo-server rendering APPS applications with a Config Management Plugin, one
# process per application, as the cmp-server runs it: each application (a generated
# helmfile of RELEASES releases, benches/lib/gen-helmfile.sh, environment `production`)
# copied to a fresh directory, then rendered by
#   capstan: `capstan argocd init` + `capstan argocd generate` (deploy/argocd/plugin.yaml)
#   helmfile: `helmfile -e production template`, the real helmfile v0.166.0 driving the
#             real helm 4.3.1 (../shared/peer/helmfile-bin, its default flags)
# interleaved application by application, ROUNDS rounds. Prints the machine, each
# round's total, and the medians (min-max) of the per-round totals and their ratio.
# Usage: benches/argocd-plugin.sh [APPS (100)] [RELEASES (5)] [ROUNDS (3)]
set -euo pipefail
cd "$(dirname "$0")/.."
apps="${1:-100}"
releases="${2:-5}"
rounds="${3:-3}"
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
bash benches/lib/gen-helmfile.sh "$releases" "$root/source"
echo "machine: $(date -u '+%F %H:%M UTC'), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "helm $("$helm_bin/helm" version --short), helmfile $("$helmfile" version -o short 2>/dev/null | head -1), $("$capstan" --version)"
echo "$apps applications of $releases releases each, one process per application, $rounds rounds"
PATH="$shim:$helm_bin:$PATH" HELMFILE_V1MODE=true HELMFILE_GOCCY_GOYAML=false \
python3 - "$capstan" "$helmfile" "$root" "$apps" "$rounds" <<'P'
import os, shutil, statistics, subprocess, sys, time
capstan, helmfile, root, apps, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
source = os.path.join(root, "source")
argo = dict(os.environ, ARGOCD_APP_NAME="app", ARGOCD_APP_NAMESPACE="apps",
            ARGOCD_APP_PARAMETERS='[{"name":"environment","string":"production"}]',
            TMPDIR=os.path.join(root, "tmp"))
os.makedirs(argo["TMPDIR"], exist_ok=True)
def fresh(tag, i):
    d = os.path.join(root, f"{tag}-{i}")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(source, d)
    return d
def run(cmds, cwd, env):
    start = time.perf_counter()
    for argv in cmds:
        p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0 or not p.stdout and argv[-1] in ("generate", "template"):
            sys.exit(f"{argv} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
    return time.perf_counter() - start
totals = {"helmfile": [], "capstan": []}
for r in range(rounds):
    t = {"helmfile": 0.0, "capstan": 0.0}
    for i in range(apps):
        d = fresh("h", i)
        t["helmfile"] += run([[helmfile, "-e", "production", "template"]], d, os.environ)
        shutil.rmtree(d)
        d = fresh("c", i)
        t["capstan"] += run([[capstan, "argocd", "init"], [capstan, "argocd", "generate"]], d, argo)
        shutil.rmtree(d)
    for k in t:
        totals[k].append(t[k])
    print(f"round {r + 1}: helmfile {t['helmfile']:.2f} s, capstan {t['capstan']:.2f} s for {apps} applications", flush=True)
med = {k: statistics.median(v) for k, v in totals.items()}
for k, v in totals.items():
    print(f"{k:<9} {apps} applications: {med[k]:8.2f} s median ({min(v):.2f}-{max(v):.2f}) of {rounds}; "
          f"{1000 * med[k] / apps:.1f} ms per application")
print(f"capstan is {med['helmfile'] / med['capstan']:.0f}x faster (ratio of medians)")
P
