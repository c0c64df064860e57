#!/usr/bin/env bash
# CI stage: speakcheck as users install it. Packs the tarball (prepack bundles dist/), installs it
# into an empty project under /tmp, makes the install read-only and owned by root, and as an
# unprivileged user (nobody, no home) runs `npx speakcheck run --list`, `--help` and `speakcheck run`
# (the embedded stack): the run must give exit 0 and a verdict as good as from the clone (CONFORMS or
# NO MUST OR SHOULD FAILED), start from the package's dist/ (no bundle made in the cache), and no
# file under node_modules may change.
#   scripts/install-stage.sh          # from the repo root, after npm ci; as root (chown, setpriv)
# Prints the tarball's size and file count, the install time and the run time.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
log() { echo "== install stage: $* ($(($(date +%s) - start)) s)"; }
fail() { echo "== install stage FAILED: $*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root, to own the install as root and run as nobody"

work=$(mktemp -d /tmp/speakcheck-install-stage.XXXXXX)
sampler=""
cleanup() {
  if [ -n "$sampler" ]; then kill "$sampler" 2>/dev/null || true; fi
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
chmod 755 "$work"

npm pack --silent --pack-destination "$work" >"$work/pack.out"
tarball="$work/$(tail -n 1 "$work/pack.out")"
log "packed $(basename "$tarball"): $(stat -c %s "$tarball") bytes, $(tar tzf "$tarball" | wc -l) files"

mkdir "$work/project"
cd "$work/project"
npm init -y >/dev/null
install_start=$(date +%s.%N)
npm install --no-audit --no-fund --loglevel=error "$tarball" >/dev/null
log "npm install of the tarball: $(printf '%.1f' "$(echo "$(date +%s.%N) - $install_start" | bc)") s, $(find node_modules -mindepth 1 -maxdepth 2 -name '.*' -prune -o -type d -print | wc -l) directories in node_modules"

# Read-only and root's: what an unprivileged user of a CI image or a shared install gets.
chown -R root:root node_modules && chmod -R a-w node_modules
touch "$work/marker"
# The project (its reports) is the user's; node_modules stays root's and read-only.
chown nobody: "$work/project" "$work/project/package.json"
as_nobody() {
  # No home (HOME=/nonexistent): the cache falls back to the temp dir; npm's own cache beside the run.
  setpriv --reuid=nobody --regid=nogroup --clear-groups \
    env HOME=/nonexistent npm_config_cache="$work/project/.npm" npm_config_update_notifier=false \
    PATH="$PATH" "$@"
}

cd "$work/project"
as_nobody npx --no-install speakcheck --help >"$work/help.out" || fail "speakcheck --help: exit $?"
grep -q 'Usage: speakcheck' "$work/help.out" || fail "speakcheck --help printed no usage: $(head -n 3 "$work/help.out")"
as_nobody npx --no-install speakcheck run --list >"$work/list.out" 2>&1 || { tail -n 5 "$work/list.out"; fail "speakcheck run --list: exit $?"; }
log "run --list: $(tail -n 2 "$work/list.out" | head -n 1)"

# Every second of the run: the processes of the user (the report names any esbuild service).
( while sleep 1; do ps -u nobody -o pid=,args= >>"$work/processes.out" 2>/dev/null || true; done ) &
sampler=$!
run_start=$(date +%s.%N)
code=0
as_nobody npx --no-install speakcheck run --report-dir reports/stage >"$work/run.out" 2>&1 || code=$?
kill "$sampler" 2>/dev/null || true; sampler=""
log "speakcheck run as nobody: exit $code in $(printf '%.1f' "$(echo "$(date +%s.%N) - $run_start" | bc)") s; $(grep '^verdict:' "$work/run.out" || echo 'no verdict line')"
if [ "$code" -ne 0 ]; then tail -n 15 "$work/run.out"; fail "speakcheck run exited $code"; fi
grep -Eq '^verdict: (CONFORMS|NO MUST OR SHOULD FAILED)' "$work/run.out" || fail "the verdict is not as good as from the clone"
# No first-start bundle: the package's dist/ was used, nothing bundled into the cache. (vitest's own
# esbuild service, which transforms the suites' TypeScript, is vite's and is reported, not failed.)
cache=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent node -p "require('os').tmpdir()")/speakcheck-$(id -u nobody)
# Only what this run made counts: the machine's temp dir may keep another install's cache (a
# git-URL install has no dist/ and bundles there, as it should).
made=$( (find "$cache/bundle" -mindepth 1 -newer "$work/marker" 2>/dev/null || true) | head -n 1)
[ -z "$made" ] || fail "the installed package bundled its sources at run time ($made)"
if grep -q 'esbuild --service' "$work/processes.out"; then
  log "note: vite's esbuild service (vitest's transform of the suites' TypeScript) ran: $(grep -m1 'esbuild --service' "$work/processes.out" | awk '{print $2}')"
fi
changed=$(find "$work/project/node_modules" -newer "$work/marker" | head -n 5)
[ -z "$changed" ] || fail "the run wrote into the install: $changed"
[ -f "$work/project/reports/stage/conformance.json" ] || fail "no report in the working directory's --report-dir"
log "done: nothing under node_modules changed, no first-start bundle, reports in the working directory"
