#!/usr/bin/env bash
# CI stage: the conformance suite and the topology tests against the containerized reference stack
# (API + 2 worker containers, host networking, loopback only).
#   scripts/container-stage.sh           # from the repo root, after npm ci
# Exit 0 with "container stage SKIPPED: <why>" only when no container runtime can be set up;
# otherwise the exit code of the run (0 conforms) or of the topology tests.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
log() { echo "== container stage: $* ($(($(date +%s) - start)) s)"; }
skip() { echo "== container stage SKIPPED: $*"; exit 0; }

RUNTIME_SCRIPT=$(cd .. && pwd)/shared/tools/container-runtime.sh
BASE_SCRIPT=../shared/tools/host-node-image.sh
if [ -z "${DOCKER_HOST:-}" ] && [ ! -S /var/run/docker.sock ]; then
  # No Docker here: the machine's podman (no registry) through the shared script.
  [ -x "$RUNTIME_SCRIPT" ] || skip "no Docker socket and no $RUNTIME_SCRIPT to set up podman"
  # A podman API service left by an earlier run keeps that run's working directory; once the
  # directory is gone (a removed clone) it can no longer start containers ("write child: broken
  # pipe"). Stop such a service: the runtime script starts a fresh one, from / so this cannot recur.
  for pid in $(pgrep -f 'podman system service' || true); do
    case "$(readlink "/proc/$pid/cwd" 2>/dev/null)" in
      *'(deleted)') echo "container stage: restarting podman's API service (its directory was deleted)"; kill "$pid" ;;
    esac
  done
  env_lines=$(cd / && "$RUNTIME_SCRIPT" 2>/tmp/container-stage-runtime.log) \
    || skip "the container runtime could not be set up: $(tail -n 1 /tmp/container-stage-runtime.log)"
  eval "$env_lines"
  log "runtime ready (podman at $DOCKER_HOST)"
  if [ -z "${SPEAKCHECK_IMAGE_BASE:-}" ]; then
    # No registry: a base image with this machine's node, and the installed node_modules (same glibc).
    "$BASE_SCRIPT" localhost/node-host:latest >/dev/null || { echo "base image build failed"; exit 1; }
    export SPEAKCHECK_IMAGE_BASE=localhost/node-host:latest SPEAKCHECK_IMAGE_DEPS=context
    log "base image localhost/node-host:latest built"
  fi
fi

status=0
log "conformance suite against the container stack (builds or reuses the image)"
node bin/speakcheck.js run --target container --report-dir reports/container || status=$?
log "conformance run exit $status"
# The topology tests (test/container) run inside `npm test` once DOCKER_HOST is set (see .ci/run).
log "done, exit $status"
exit "$status"
