#!/usr/bin/env bash
# The run step of action.yml (the GitHub Action), kept in a script so a test can run it locally with
# the same environment variables the action sets (test/cli/action-run.int.test.ts).
#
# In:  SPEAKCHECK_INPUT_<VAR>: each input of the Action under the SPEAK_* variable speakcheck reads
#      it from (action.yml's run step, generated from the option table by `npm run docs:config`). A
#      non-empty one is exported as <VAR>; an empty one (an input not given) leaves <VAR> as the
#      workflow set it in the step's or job's `env:`, so SPEAK_* there passes through and an input
#      given wins. SPEAKCHECK_REPORT_DIR (default: $RUNNER_TEMP or /tmp + speakcheck-report),
#      GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (set by GitHub; skipped when unset).
# Out: the reports in the report dir, conformance.md appended to the step summary, `report-dir` and
#      `exit-code` as step outputs, and speakcheck's exit code as this script's.
# speakcheck runs in the current directory (the workspace in GitHub Actions): a speakcheck.expect.yaml
# or speakcheck.config.yaml there is read as in a local run.
set -uo pipefail

for input in $(compgen -v SPEAKCHECK_INPUT_); do
  name="${input#SPEAKCHECK_INPUT_}"
  # Only speakcheck's own variables: an input never sets PATH or the like.
  if [[ "$name" == SPEAK_* && -n "${!input}" ]]; then export "$name=${!input}"; fi
  unset "$input"
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
report_dir="${SPEAKCHECK_REPORT_DIR:-${RUNNER_TEMP:-/tmp}/speakcheck-report}"

# --target remote: the Action gates the user's server. Without a base URL (an input left empty, a
# secret a fork's pull request does not get, a misspelt key) a plain run would test speakcheck's own
# embedded stack and pass; this way it exits 2 and says what is missing.
node "$here/bin/speakcheck.js" run --target remote --report-dir "$report_dir"
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
