#!/usr/bin/env bash
# The run step of action.yml (the GitHub Action), kept in a script so a test can run it locally with
# the same environment variables the action sets (test/cli/action-run.int.test.ts).
#
# In:  SPEAK_BASE_URL, SPEAK_EMAIL + SPEAK_PASSWORD or SPEAK_TOKEN, SPEAK_PROFILE, SPEAK_ONLY
#      (read by `speakcheck run` itself; empty means unset), SPEAKCHECK_EXPECT_FILE (passed as
#      --expect when given), SPEAKCHECK_REPORT_DIR (default: $RUNNER_TEMP or /tmp + speakcheck-report),
#      GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (set by GitHub; skipped when unset).
# Out: the reports in the report dir, conformance.md appended to the step summary, `report-dir` and
#      `exit-code` as step outputs, and speakcheck's exit code as this script's.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
report_dir="${SPEAKCHECK_REPORT_DIR:-${RUNNER_TEMP:-/tmp}/speakcheck-report}"
args=(run --report-dir "$report_dir")
if [ -n "${SPEAKCHECK_EXPECT_FILE:-}" ]; then args+=(--expect "$SPEAKCHECK_EXPECT_FILE"); fi

node "$here/bin/speakcheck.js" "${args[@]}"
code=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  if [ -f "$report_dir/conformance.md" ]; then
    cat "$report_dir/conformance.md" >>"$GITHUB_STEP_SUMMARY"
  else
    printf '# Speak v1 conformance\n\nspeakcheck exited %s before writing a report; see the step log.\n' "$code" >>"$GITHUB_STEP_SUMMARY"
  fi
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'report-dir=%s\nexit-code=%s\n' "$report_dir" "$code" >>"$GITHUB_OUTPUT"
fi
exit "$code"
