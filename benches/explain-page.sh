#!/usr/bin/env bash
# The explain page (`values --explain -o html`) at scale: a generated helmfile of N
# releases (benches/lib/gen-helmfile.sh, default 1,000), its page opened in headless
# Chromium several times. Printed per size: the page's size, and the medians (with min
# and max) of the browser's first contentful paint, DOMContentLoaded (when the filter
# works) and the load event, as the page's Navigation and Paint Timing entries give them
# (milliseconds from navigation start). A probe script appended to a copy of the page
# reads the timings; the page itself is what `capstan` printed.
# Usage: benches/explain-page.sh [sizes...]   (default: 1000); ROUNDS=5 by default;
# CAPSTAN_BIN=path measures another build (an older one, for a before/after table).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || { echo "explain-page.sh: needs chromium (Debian's chromium)" >&2; exit 1; }
if [ -z "${CAPSTAN_BIN:-}" ]; then cargo build --profile dist -q -p capstan-cli; fi
bin="${CAPSTAN_BIN:-$PWD/target/dist/capstan}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000)
rounds="${ROUNDS:-5}"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
echo "machine: $(nproc) cores, load average at start $(cut -d' ' -f1-3 /proc/loadavg), $(chromium --version 2>/dev/null | head -1)"
for n in "${sizes[@]}"; do
  work="$root/h$n"
  mkdir -p "$work"
  bash benches/lib/gen-helmfile.sh "$n" "$work"
  (cd "$work" && "$bin" -f helmfile.yaml.gotmpl -e production values --explain -o html >page.html 2>/dev/null)
  python3 - "$work" "$n" "$rounds" <<'P'
import os, re, statistics, subprocess, sys

work, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
page = open(os.path.join(work, "page.html"), encoding="utf-8").read()
probe = """<script>
window.addEventListener('load',function(){setTimeout(function(){
 var t={};performance.getEntriesByType('paint').forEach(function(e){t[e.name]=e.startTime;});
 var nav=performance.getEntriesByType('navigation')[0];
 document.body.setAttribute('data-timing',[t['first-contentful-paint'],nav.domContentLoadedEventEnd,nav.loadEventEnd].map(Math.round).join(' '));
},200);});
</script>"""
path = os.path.join(work, "probe.html")
open(path, "w", encoding="utf-8").write(page + probe)
runs = []
for _ in range(rounds):
    out = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--virtual-time-budget=5000", "--dump-dom", "file://" + path],
        capture_output=True, text=True, timeout=120, env=dict(os.environ, HOME=work)).stdout
    m = re.search(r'data-timing="(\d+) (\d+) (\d+)"', out)
    if not m:
        sys.exit("explain-page.sh: the probe did not run")
    runs.append(tuple(int(x) for x in m.groups()))
leaves = page.count('<li class="leaf')
def show(i):
    xs = [r[i] for r in runs]
    return f"{statistics.median(xs):5.0f} ms (min {min(xs)}, max {max(xs)})"
print(f"{n} releases, {leaves} values, page {len(page.encode()) / 1e6:.1f} MB:")
print(f"  first contentful paint {show(0)}")
print(f"  DOMContentLoaded       {show(1)}")
print(f"  load                   {show(2)}   (median of {rounds})")
P
done
