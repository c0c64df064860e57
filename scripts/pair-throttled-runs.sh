#!/usr/bin/env bash
# Paired whole runs against a rate-limiting reference: another checkout (BEFORE, e.g. a git worktree
# of an older commit with this clone's node_modules linked in) and this one, alternating. Each side
# serves its own stack as the latitude matrix's `short-lifetimes` does (latitude rate-limit, a 429
# asking for 10 s, tokens and signed URLs living 8 s) and runs the whole harness against it; prints
# the suites' time, the requests, the time waited on the server's limit, the 429s and the verdict
# (docs/benchmarks.md).
#   scripts/pair-throttled-runs.sh /work/wt-old 2
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: scripts/pair-throttled-runs.sh BEFORE_CHECKOUT [PAIRS]" >&2
  exit 2
fi
before=$1 n=${2:-2}
after=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'kill "${stack:-}" 2>/dev/null || true; rm -rf "$out"' EXIT

run_side() { # dir, log prefix
  local dir=$1 log=$2
  node "$dir/bin/speakcheck.js" serve --port 0 --workers 1 --ws-shares-synthesizer --replay-spoken-parts \
    --worker-threads --latitude rate-limit --access-token-ttl 8 --signed-url-ttl 8 \
    --rate-limit-retry-after 10 >"$log.serve" 2>&1 &
  stack=$!
  for _ in $(seq 1 100); do
    grep -q '^second_password=' "$log.serve" && break
    kill -0 "$stack" 2>/dev/null || { echo "serve ended before it was ready:" >&2; cat "$log.serve" >&2; exit 1; }
    sleep 0.3
  done
  grep -q '^second_password=' "$log.serve" || { echo "serve not ready in 30 s:" >&2; cat "$log.serve" >&2; exit 1; }
  value() { grep "^$1=" "$log.serve" | head -1 | cut -d= -f2-; }
  SPEAKCHECK_RUN_CONFIG='' SPEAKCHECK_SEED=1 SPEAK_EMAIL=$(value email) SPEAK_PASSWORD=$(value password) \
    SPEAK_SECOND_EMAIL=$(value second_email) SPEAK_SECOND_PASSWORD=$(value second_password) \
    node "$dir/bin/speakcheck.js" run --base-url "$(value base_url)" --report-dir "$log.reports" >"$log.run" 2>&1 || true
  kill "$stack" 2>/dev/null || true
  wait "$stack" 2>/dev/null || true
  unset stack
}

for i in $(seq 1 "$n"); do
  for side in before after; do
    dir=$before; [ "$side" = after ] && dir=$after
    run_side "$dir" "$out/$side-$i"
    timing=$(grep -o "suites [0-9.]* s; [0-9]* requests, waited [0-9.]* s on the server's rate limit (429: [0-9]*" "$out/$side-$i.run" || echo 'no timing line')
    echo "$i $side: $timing; $(grep -o '^verdict: .*' "$out/$side-$i.run" || echo 'no verdict')"
  done
done
