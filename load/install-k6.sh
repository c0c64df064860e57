#!/usr/bin/env bash
# Installs the pinned k6 for speakcheck's load scenarios with `go install`, into a project-local
# cache (.cache/k6/bin, or $K6_GOBIN), and reuses it when it is already there.
#
# Exit codes:  0  k6 ready (installed or reused); prints its path on the last line as `k6=PATH`
#              3  skipped: Go is not installed, so k6 cannot be built here (not an error of the project)
#              1  Go is present but the build failed
set -euo pipefail

K6_VERSION="v1.8.1"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GOBIN_DIR="${K6_GOBIN:-$ROOT/.cache/k6/bin}"
K6="$GOBIN_DIR/k6"

has_pinned_version() { [ -x "$1" ] && "$1" version 2>/dev/null | grep -q "k6 ${K6_VERSION} "; }

if has_pinned_version "$K6"; then
  echo "k6 ${K6_VERSION} already installed (reused)"
  echo "k6=$K6"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-k6: Go is not installed, so k6 ${K6_VERSION} cannot be built here; load scenarios are skipped." >&2
  echo "install-k6: install Go >= 1.23 (https://go.dev/dl/) or put a k6 ${K6_VERSION} binary at $K6." >&2
  exit 3
fi

mkdir -p "$GOBIN_DIR"

# The same pinned build may already sit in Go's default GOBIN (a previous `go install` on this
# machine): copying it saves a multi-minute compile on a shared machine.
GOPATH_K6="$(go env GOPATH)/bin/k6"
if has_pinned_version "$GOPATH_K6"; then
  cp "$GOPATH_K6" "$K6"
  echo "k6 ${K6_VERSION} reused from $GOPATH_K6"
  echo "k6=$K6"
  exit 0
fi

echo "install-k6: building k6 ${K6_VERSION} with go install (a few minutes) ..."
if ! GOBIN="$GOBIN_DIR" GOFLAGS="${GOFLAGS:-} -trimpath" go install "go.k6.io/k6@${K6_VERSION}"; then
  echo "install-k6: go install go.k6.io/k6@${K6_VERSION} failed" >&2
  exit 1
fi
has_pinned_version "$K6" || { echo "install-k6: built binary does not report ${K6_VERSION}" >&2; exit 1; }
echo "k6 ${K6_VERSION} installed"
echo "k6=$K6"
