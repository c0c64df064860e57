#!/usr/bin/env bash
# Installs the pinned k6 for speakcheck's load scenarios: the unmodified upstream k6 (AGPL-3.0),
# built from its Go module with the Go toolchain, into a project-local cache by version
# (.cache/k6/<version>/bin, or $K6_GOBIN), and reuses it when it is already there (or when an earlier
# clone's build is in the user's cache, ~/.cache/speakcheck/k6/<version>). k6 stays an
# external program: speakcheck runs it as a separate process and never vendors, links or ships it.
#
# k6 v2 lives at the module path go.k6.io/k6/v2. `go install go.k6.io/k6/v2@VERSION` needs the
# module's version list for its deprecation check, which the Go proxy does not serve for this
# module (404), so the build goes through a throw-away module: `go get` the pinned version, then
# `go build` its main package. Same source, same binary.
#
# Exit codes:  0  k6 ready (installed or reused); prints its path on the last line as `k6=PATH`
#              3  skipped: Go is not installed, so k6 cannot be built here (not an error of the project)
#              1  Go is present but the build failed
set -euo pipefail

K6_VERSION="v2.2.0"
K6_MODULE="go.k6.io/k6/v2"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GOBIN_DIR="${K6_GOBIN:-$ROOT/.cache/k6/$K6_VERSION/bin}"
K6="$GOBIN_DIR/k6"

has_pinned_version() { [ -x "$1" ] && "$1" version 2>/dev/null | grep -q "k6 ${K6_VERSION} "; }

if has_pinned_version "$K6"; then
  echo "k6 ${K6_VERSION} already installed (reused)"
  echo "k6=$K6"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "install-k6: Go is not installed, so k6 ${K6_VERSION} cannot be built here; load scenarios are skipped." >&2
  echo "install-k6: install Go >= 1.25 (https://go.dev/dl/) or put a k6 ${K6_VERSION} binary at $K6." >&2
  exit 3
fi

mkdir -p "$GOBIN_DIR"

# The same pinned build may already sit in Go's default GOBIN, or in the user's cache where an
# earlier clone's build left it: copying it saves a compile of minutes on every fresh clone (CI).
GOPATH_K6="$(go env GOPATH)/bin/k6"
USER_K6="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/speakcheck/k6/$K6_VERSION/k6"
for built in "$GOPATH_K6" "$USER_K6"; do
  if has_pinned_version "$built"; then
    cp "$built" "$K6"
    echo "k6 ${K6_VERSION} reused from $built"
    echo "k6=$K6"
    exit 0
  fi
done

echo "install-k6: building k6 ${K6_VERSION} (${K6_MODULE}) with go build (a few minutes) ..."
BUILD_DIR="$(mktemp -d)"
trap 'rm -rf "$BUILD_DIR"' EXIT
if ! (
  cd "$BUILD_DIR" &&
    go mod init speakcheck-k6-build >/dev/null 2>&1 &&
    GOFLAGS=-mod=mod go get "${K6_MODULE}@${K6_VERSION}" &&
    GOFLAGS="-mod=mod -trimpath ${GOFLAGS:-}" go build -o "$K6" "$K6_MODULE"
); then
  echo "install-k6: building ${K6_MODULE}@${K6_VERSION} failed" >&2
  exit 1
fi
has_pinned_version "$K6" || { echo "install-k6: built binary does not report ${K6_VERSION}" >&2; exit 1; }
# For the next clone (best effort: a read-only or absent home only means the next one builds too).
if mkdir -p "$(dirname "$USER_K6")" 2>/dev/null && copy="$(mktemp "$USER_K6.XXXXXX" 2>/dev/null)"; then
  { cp "$K6" "$copy" && chmod 755 "$copy" && mv "$copy" "$USER_K6"; } 2>/dev/null || rm -f "$copy"
fi
echo "k6 ${K6_VERSION} installed"
echo "k6=$K6"
