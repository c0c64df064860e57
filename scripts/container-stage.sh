#!/usr/bin/env bash
# CI stage: the conformance suite against the containerized reference stack (API + 2 worker
# containers, host networking, loopback only), twice: from the host (`run --target container`), then
# from the harness image (Dockerfile.harness) against a stack kept up by `serve --target container`.
#   scripts/container-stage.sh           # from the repo root, after npm ci
# Exit 0 with "container stage SKIPPED: <why>" only when no container runtime can be set up and
# SPEAKCHECK_REQUIRE does not name `container` (in CI it does: then exit 1, one sentence naming it);
# otherwise the first failing exit code: the host run's (0 conforms), then the image run's.
# Reports: reports/container (host run) and reports/container-harness (the image's, a volume).
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
log() { echo "== container stage: $* ($(($(date +%s) - start)) s)"; }
skip() {
  case ",${SPEAKCHECK_REQUIRE:-}," in
    *,container,*)
      echo "== container stage FAILED: container is required here (SPEAKCHECK_REQUIRE) but missing: $*; to install it, start Docker, or set up podman with eval \"\$(../shared/tools/container-runtime.sh)\" (it exports DOCKER_HOST)."
      exit 1 ;;
  esac
  echo "== container stage SKIPPED: $*"; exit 0
}

RUNTIME_SCRIPT=$(cd .. && pwd)/shared/tools/container-runtime.sh
CLI=docker  # the harness image is built and run with the runtime's own CLI
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
  CLI=podman
  log "runtime ready (podman at $DOCKER_HOST)"
  if [ -z "${SPEAKCHECK_IMAGE_BASE:-}" ]; then
    # No registry: a base image with this machine's node, and the installed node_modules (same glibc).
    # EXTRA_BINS: the installed native modules, for the shared libraries they link (rollup's, which
    # the harness image's vitest loads, needs librt; node itself does not). The .node files also
    # land in the base at their host paths (4 MB), where nothing uses them.
    # ldd's output is read whole, not piped into `grep -q`: under pipefail grep's early exit made
    # ldd's SIGPIPE a "no" now and then, and a base without librt reached CI (rollup: ERR_DLOPEN_FAILED).
    native=$(find "$PWD/node_modules/" -name '*.node' -type f | while read -r f; do
      case "$(ldd "$f" 2>/dev/null)" in *'=> /'*) printf '%s ' "$f" ;; esac
    done)  # (one that links no library would stop host-node-image.sh: its ldd | grep finds nothing)
    case "$native" in
      *rollup*) ;;
      *) echo "== container stage FAILED: no native rollup module under node_modules for the base image (the harness image's vitest loads it)"; exit 1 ;;
    esac
    EXTRA_BINS=$native "$BASE_SCRIPT" localhost/node-host:latest >/dev/null || { echo "base image build failed"; exit 1; }
    export SPEAKCHECK_IMAGE_BASE=localhost/node-host:latest SPEAKCHECK_IMAGE_DEPS=context
    log "base image localhost/node-host:latest built"
  fi
fi

# The harness image, built from the base the reference image uses (no registry here: the locally
# built node base and the installed node_modules). Tagged by a hash of what it is built from, so an
# unchanged harness is not built again.
harness_image() {
  local args=() tag
  if [ -n "${SPEAKCHECK_IMAGE_BASE:-}" ]; then args+=(--build-arg "BASE=$SPEAKCHECK_IMAGE_BASE"); fi
  if [ -n "${SPEAKCHECK_IMAGE_DEPS:-}" ]; then args+=(--build-arg "DEPS=$SPEAKCHECK_IMAGE_DEPS"); fi
  tag=localhost/speakcheck-harness:$(
    # The base's image id too: a base rebuilt with other libraries must not reuse an image built on the old one.
    { printf '%s\n' "${args[@]}"
      if [ -n "${SPEAKCHECK_IMAGE_BASE:-}" ]; then "$CLI" image inspect --format '{{.Id}}' "$SPEAKCHECK_IMAGE_BASE" 2>/dev/null; fi
      find Dockerfile.harness .dockerignore package.json package-lock.json tsconfig.json \
        bin src suites fixtures schemas spec reference -type f ! -name '*.test.ts' -print0 |
        sort -z | xargs -0 sha256sum; } | sha256sum | cut -c1-16)
  if "$CLI" image inspect "$tag" >/dev/null 2>&1; then echo "$tag"; return 0; fi
  "$CLI" build -q -f Dockerfile.harness "${args[@]}" -t "$tag" . >/dev/null || return 1
  echo "$tag"
}

# `serve --target container` keeps a container stack up while the harness container runs. It prints
# base_url=, email=, password= on stdout (read through a FIFO; the password goes to the harness
# container's environment only, never to the log).
serve_pid=""
harness_name=speakcheck-harness-$$
work=$(mktemp -d)
stop_stack() {
  if [ -n "$serve_pid" ]; then kill -TERM "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; fi
  serve_pid=""
}
cleanup() {
  "$CLI" rm -f "$harness_name" >/dev/null 2>&1 || true
  stop_stack
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

harness_run() {
  local image=$1 line base_url="" email="" password="" code=0
  mkfifo -m 600 "$work/serve.out"
  node bin/speakcheck.js serve --target container >"$work/serve.out" 2>"$work/serve.log" &
  serve_pid=$!
  exec 3<"$work/serve.out"
  while IFS= read -r -t 600 line <&3; do
    case $line in
      base_url=*) base_url=${line#base_url=} ;;
      email=*) email=${line#email=} ;;
      password=*) password=${line#password=}; break ;;
    esac
  done
  if [ -z "$password" ]; then
    echo "container stage: the container stack did not start (serve --target container):"
    tail -n 5 "$work/serve.log"
    return 1
  fi
  log "container stack up at $base_url; harness image $image runs against it"
  rm -rf reports/container-harness && mkdir -p -m 777 reports/container-harness
  # As people run it: an unprivileged user of its own, a read-only file system but /tmp (its cache)
  # and the reports volume.
  SPEAK_EMAIL=$email SPEAK_PASSWORD=$password "$CLI" run --rm --name "$harness_name" --network host \
    --user 1234:1234 --read-only --tmpfs /tmp \
    -e SPEAK_EMAIL -e SPEAK_PASSWORD -v "$PWD/reports/container-harness:/reports" \
    "$image" run --base-url "$base_url" --report-dir /reports || code=$?
  exec 3<&-
  stop_stack
  return "$code"
}

status=0
log "conformance suite against the container stack (builds or reuses the image)"
node bin/speakcheck.js run --target container --report-dir reports/container || status=$?
log "conformance run exit $status"

harness_status=0
log "harness image (Dockerfile.harness): build or reuse"
if image=$(harness_image); then
  log "harness image $image ready"
  harness_run "$image" || harness_status=$?
else
  echo "container stage: the harness image build failed"
  harness_status=1
fi
log "harness image run exit $harness_status"
if [ "$status" -eq 0 ]; then status=$harness_status; fi
# The topology tests (test/stack/container-topology.int.test.ts) run inside `npm test` once DOCKER_HOST is set (see .ci/run).
log "done, exit $status"
exit "$status"
