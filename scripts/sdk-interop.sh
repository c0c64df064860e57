#!/usr/bin/env bash
# Real-client interop: the vendor's public Python SDK (`daisys` from PyPI, pinned), unchanged, drives
# the reference stack: login, models, voice generate/update/delete, take generate, every audio format
# (get_take_audio), get_take_audio_url, the websocket in parts and chunks mode through iter_request
# (chunks: a two-sentence take within 3 s) and token refresh with a short access-token lifetime.
#
#   scripts/sdk-interop.sh            # exit 0 passed, 1 failed, 3 skipped (no Python 3.10+ / no PyPI)
#   SDK_INTEROP_SERVE_ARGS="--defect ws-chunk0-last" scripts/sdk-interop.sh   # extra `serve` flags
#
# The venv lives in .cache/daisys-sdk-<version>/ and is reused. The stack is
# `node bin/speakcheck.js serve --port 0 --access-token-ttl 4`; it is stopped on every exit.
set -euo pipefail
cd "$(dirname "$0")/.."

SDK_VERSION=1.1.0
TOKEN_TTL_S=4
VENV=".cache/daisys-sdk-${SDK_VERSION}"
SKIP=3

skip() {
  echo "sdk-interop SKIPPED: $*"
  exit "$SKIP"
}

python=""
for candidate in python3 python; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
    python="$candidate"
    break
  fi
done
[ -n "$python" ] || skip "no Python 3.10+ with the venv module on this machine (the daisys SDK needs >= 3.10)"

if ! "$VENV/bin/python" -c 'import daisys, httpx_ws' 2>/dev/null; then
  rm -rf "$VENV"
  "$python" -m venv "$VENV" || skip "could not create a venv in $VENV"
  if ! "$VENV/bin/pip" install -q --disable-pip-version-check "daisys[ws]==${SDK_VERSION}"; then
    rm -rf "$VENV"
    skip "pip could not install daisys[ws]==${SDK_VERSION} (PyPI unreachable?)"
  fi
fi

out="$(mktemp -d)"
stack_pid=""
cleanup() {
  if [ -n "$stack_pid" ] && kill -0 "$stack_pid" 2>/dev/null; then
    kill "$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
  rm -rf "$out"
}
trap cleanup EXIT

# shellcheck disable=SC2086 # SDK_INTEROP_SERVE_ARGS is a list of flags
node bin/speakcheck.js serve --port 0 --access-token-ttl "$TOKEN_TTL_S" ${SDK_INTEROP_SERVE_ARGS:-} >"$out/ready" 2>"$out/log" &
stack_pid=$!
for _ in $(seq 1 300); do
  grep -q '^password=' "$out/ready" 2>/dev/null && break
  kill -0 "$stack_pid" 2>/dev/null || { echo "the reference stack exited before it was ready:"; tail -5 "$out/log"; exit 1; }
  sleep 0.2
done
grep -q '^password=' "$out/ready" || { echo "the reference stack printed no credentials within 60 s"; exit 1; }
field() { sed -n "s/^$1=//p" "$out/ready"; }

echo "sdk-interop: daisys ${SDK_VERSION} against $(field base_url) (access tokens live ${TOKEN_TTL_S} s)"
SPEAK_BASE_URL="$(field base_url)" SPEAK_EMAIL="$(field email)" SPEAK_PASSWORD="$(field password)" \
  SPEAK_ACCESS_TOKEN_TTL="$TOKEN_TTL_S" "$VENV/bin/python" test/reference/interop/daisys_sdk_interop.py
