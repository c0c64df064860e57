#!/usr/bin/env bash
# Paired `speakcheck run --requirement <id>` runs: another checkout (BEFORE, e.g. a git worktree of
# an older commit with this clone's node_modules linked in) and this one, alternating, each under
# /usr/bin/time: wall, CPU (user + sys of the run and the stack it waited for) and the largest
# process's RSS. The run the defect matrix makes once per switch (docs/benchmarks.md).
#   scripts/pair-requirement-runs.sh /work/wt-base AUTH-LOGIN-FAIL-401 5
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/pair-requirement-runs.sh BEFORE_CHECKOUT REQUIREMENT_ID [PAIRS]" >&2
  exit 2
fi
before=$1 req=$2 n=${3:-5}
after=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# One untimed run each first: a checkout's first start after an edit bundles its CLI.
for dir in "$before" "$after"; do
  node "$dir/bin/speakcheck.js" run --requirement "$req" --report-dir "$out/warm" >/dev/null 2>&1 || true
done
for i in $(seq 1 "$n"); do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    /usr/bin/time -o "$out/time" -f "wall %e s, user %U s, sys %S s, largest process %M KB" \
      node "$dir/bin/speakcheck.js" run --requirement "$req" --report-dir "$out/$side" >"$out/$side.log" 2>&1 || true
    echo "$i $side $req: $(cat "$out/time"); $(grep -o 'verdict: .*' "$out/$side.log" || echo 'no verdict')"
  done
done
