/**
 * The one base of every error the harness throws on purpose, in the manner of undici's errors: the
 * class says what broke, `code` is a stable string a caller (or a script reading the logs) can branch
 * on without parsing the message. Messages stay free to improve; codes do not change once released.
 * test/errors.test.ts lists every code once.
 */
export const SPEAKCHECK_ERROR_CODES = [
  // configuration and the run itself
  'SPEAKCHECK_CONFIG',
  'SPEAKCHECK_CATALOGUE',
  'SPEAKCHECK_PREFLIGHT',
  'SPEAKCHECK_STACK_START',
  'SPEAKCHECK_LAUNCH',
  'SPEAKCHECK_NO_CONTAINER_RUNTIME',
  // a test's own outcome (src/harness)
  'SPEAKCHECK_STEP_FAILED',
  'SPEAKCHECK_CHECKS_FAILED',
  'SPEAKCHECK_WAIT_BLOCKED',
  'SPEAKCHECK_TEST_BOUND',
  'SPEAKCHECK_NOT_OBSERVED',
  // what a check found the server doing (src/checks)
  'SPEAKCHECK_FINDING',
  // the wire (src/client): ClientDiagnostic, one code per DiagnosticKind
  'SPEAKCHECK_UNREACHABLE',
  'SPEAKCHECK_TIMEOUT',
  'SPEAKCHECK_HUNG',
  'SPEAKCHECK_GARBAGE',
  'SPEAKCHECK_TOO_LARGE',
  'SPEAKCHECK_NOT_JSON',
  'SPEAKCHECK_THROTTLED',
  'SPEAKCHECK_CERTIFICATE',
  'SPEAKCHECK_AUTH',
  'SPEAKCHECK_WS_CLIENT',
  'SPEAKCHECK_WS_FRAME',
  'SPEAKCHECK_WAV_HEADER',
  // load and perf
  'SPEAKCHECK_K6_UNAVAILABLE',
  'SPEAKCHECK_LOAD_SUMMARY',
  'SPEAKCHECK_LOAD_MERGE',
  'SPEAKCHECK_PERF_RUN_SET',
  'SPEAKCHECK_LOAD_SLO',
  // conformance runs compared (src/compare)
  'SPEAKCHECK_COMPARE_INPUT',
] as const;

export type SpeakcheckErrorCode = (typeof SPEAKCHECK_ERROR_CODES)[number];

export abstract class SpeakcheckError extends Error {
  abstract readonly code: SpeakcheckErrorCode;
}

export function isSpeakcheckError(error: unknown): error is SpeakcheckError {
  return error instanceof SpeakcheckError;
}
