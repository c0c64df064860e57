#!/usr/bin/env bash
# CI stage: Schemathesis (a third-party fuzzer, pinned) against the reference stack's own
# /v1/speak/openapi.json: every check, a fixed seed, the examples, coverage, fuzzing and stateful
# phases, a bounded number of examples per operation; any failure or any warning (e.g. operations
# the stateful phase never reached past 404: "missing_test_data") fails the stage.
# Report: reports/schemathesis/ (JUnit XML + Schemathesis' NDJSON events).
# Skips (exit 0, one line saying why) only where Python 3 or PyPI is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
SEED="${SCHEMATHESIS_SEED:-17}"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-40}"
VENV=".cache/schemathesis-${SCHEMATHESIS_VERSION}"
REPORT_DIR=reports/schemathesis

skip() {
  echo "schemathesis stage skipped: $*"
  exit 0
}

command -v python3 >/dev/null 2>&1 || skip "python3 is missing on this machine"
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 has no venv/ensurepip module"

if [ ! -x "$VENV/bin/schemathesis" ] || [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version ${SCHEMATHESIS_VERSION}" ]; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  if ! "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}"; then
    # Missing PyPI is a skip; PyPI answering and the install failing anyway is a failure.
    if ! python3 -c 'import urllib.request; urllib.request.urlopen("https://pypi.org/simple/schemathesis/", timeout=10)' 2>/dev/null; then
      rm -rf "$VENV"
      skip "PyPI (https://pypi.org) is not reachable, schemathesis==${SCHEMATHESIS_VERSION} cannot be installed"
    fi
    echo "schemathesis stage: pip install schemathesis==${SCHEMATHESIS_VERSION} failed although PyPI is reachable" >&2
    exit 1
  fi
fi

work="$(mktemp -d)"
stack_pid=""
cleanup() {
  if [ -n "$stack_pid" ] && kill -0 "$stack_pid" 2>/dev/null; then
    kill -TERM "$stack_pid" 2>/dev/null || true
    wait "$stack_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# The stack prints base_url=, email=, password=, token= (the permanent token) when it is ready.
node bin/speakcheck.js serve --port 0 --permanent-token >"$work/serve.out" 2>"$work/serve.log" &
stack_pid=$!
for _ in $(seq 1 300); do
  grep -q '^token=' "$work/serve.out" 2>/dev/null && break
  kill -0 "$stack_pid" 2>/dev/null || { cat "$work/serve.log" >&2; echo "schemathesis stage: the reference stack did not start" >&2; exit 1; }
  sleep 0.1
done
base_url="$(sed -n 's/^base_url=//p' "$work/serve.out")"
email="$(sed -n 's/^email=//p' "$work/serve.out")"
password="$(sed -n 's/^password=//p' "$work/serve.out")"
token="$(sed -n 's/^token=//p' "$work/serve.out")"
[ -n "$base_url" ] && [ -n "$token" ] && [ -n "$password" ] || { echo "schemathesis stage: no base_url/password/token from the stack" >&2; exit 1; }

# One voice of the model offering the most (styles, prosody types), so that generated take bodies
# can name a voice that exists (a dictionary for voice_id below); the rest is generated.
voice_id="$(SPEAK_BASE="$base_url" SPEAK_TOKEN="$token" python3 - <<'PY'
import json, os, urllib.request
base, headers = os.environ["SPEAK_BASE"], {"Authorization": "Bearer " + os.environ["SPEAK_TOKEN"], "Content-Type": "application/json"}
def call(method, path, body=None):
    request = urllib.request.Request(base + path, method=method, headers=headers, data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)
model = max(call("GET", "/v1/speak/models"), key=lambda m: (len(m["prosody_types"]), sum(map(len, m["styles"]))))
print(call("POST", "/v1/speak/voices/generate", {"name": "schemathesis", "gender": model["genders"][0], "model": model["name"]})["voice_id"])
PY
)"
[ -n "$voice_id" ] || { echo "schemathesis stage: could not create the seed voice" >&2; exit 1; }

# The configuration plus this stack's login credentials (a throwaway stack's; the file lives in the
# temp dir, removed at exit): most generated logins use them, so the stateful phase follows
# login → refresh → logout with real tokens.
config="$work/schemathesis.toml"
cp scripts/schemathesis.toml "$config"
cat >>"$config" <<TOML

[dictionaries.speak-email]
values = ["$email"]

[dictionaries.speak-password]
values = ["$password"]

[[operations]]
include-name = "POST /v1/speak/takes/generate"
parameters = { "body.voice_id" = "$voice_id", "body.0.voice_id" = "$voice_id" }

[[operations]]
include-name = "POST /auth/login"
parameters = { "body.email" = { dictionary = "speak-email", probability = 0.7 }, "body.password" = { dictionary = "speak-password", probability = 0.7 } }
TOML

rm -rf "$REPORT_DIR"
mkdir -p "$REPORT_DIR"
# The token goes in through the environment (schemathesis.toml reads ${SPEAK_TOKEN}): never on a
# command line that `ps` shows, and Schemathesis' output sanitizer masks Authorization in reports.
export SPEAK_TOKEN="$token"
args=(run "$base_url/v1/speak/openapi.json" --checks all --phases examples,coverage,fuzzing,stateful
  --seed "$SEED" --max-examples "$MAX_EXAMPLES" --workers 1 --no-color
  --report junit,ndjson --report-dir "$REPORT_DIR")
echo "schemathesis stage: schemathesis --config-file <scripts/schemathesis.toml + this stack's login> ${args[*]}"
set +e
"$VENV/bin/schemathesis" --config-file "$config" "${args[@]}"
status=$?
set -e
cp "$work/serve.log" "$REPORT_DIR/reference-stack.log"
# Schemathesis masks Authorization but records the dictionary draws (the login password) verbatim:
# the reports keep no secret, even of a throwaway stack.
for file in "$REPORT_DIR"/*; do
  [ -f "$file" ] && PASSWORD="$password" TOKEN="$token" python3 - "$file" <<'PY'
import os, sys
path = sys.argv[1]
text = open(path, encoding="utf-8", errors="surrogateescape").read()
for secret in (os.environ["PASSWORD"], os.environ["TOKEN"]):
    text = text.replace(secret, "[REDACTED]")
open(path, "w", encoding="utf-8", errors="surrogateescape").write(text)
PY
done
echo "schemathesis stage: exit $status (report: $REPORT_DIR/)"
exit "$status"
