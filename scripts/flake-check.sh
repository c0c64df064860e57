#!/usr/bin/env bash
# Flake check: the whole conformance suite (`speakcheck run`, against the embedded reference stack
# unless --base-url is passed through) N times in a row, then every test that failed even once, with
# how often and its first message (scripts/flake-summary.ts reads each run's conformance.json).
#
#   scripts/flake-check.sh [--runs N] [--out DIR] [-- speakcheck run options...]
#   default N=20; exit 0 when no test failed in any run, 1 otherwise, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=20
out="reports/flake-check/$(date -u +%Y%m%dT%H%M%SZ)"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "flake-check: unknown option $1 (pass speakcheck options after --)" >&2; exit 2 ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "flake-check: --runs must be a positive integer" >&2; exit 2; }

mkdir -p "$out"
started=$(date +%s)
for ((i = 1; i <= runs; i++)); do
  dir="$out/run-$i"
  t0=$(date +%s)
  set +e
  node bin/speakcheck.js run --report-dir "$dir" "$@" >"$out/run-$i.log" 2>&1
  code=$?
  set -e
  echo "$code" >"$out/run-$i.exit"
  echo "flake-check: run $i/$runs exit $code in $(($(date +%s) - t0)) s (log: $out/run-$i.log)"
done
echo "flake-check: $runs run(s) in $(($(date +%s) - started)) s"
exec node --import tsx scripts/flake-summary.ts "$out" "$runs"
