#!/usr/bin/env bash
# Renders every combination of ../shared/realworld with the real `helm template` and with
# `capstan chart template`, one process at a time and interleaved, and prints the total
# time of each and the ratio. Needs helm (scripts/test installs it; or CAPSTAN_TEST_HELM).
# Usage: benches/real-charts.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --profile dist -q -p capstan-cli -p capstan-conformance
exec target/dist/conformance bench real-charts ../shared/realworld --iterations "${1:-3}"
