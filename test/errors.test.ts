import { describe, expect, it } from 'vitest';
import { Finding } from '../src/checks/finding.ts';
import { AuthError } from '../src/client/auth-session.ts';
import { ClientDiagnostic } from '../src/client/diagnostics.ts';
import { WavHeaderError } from '../src/client/wav-header.ts';
import { FrameError } from '../src/client/ws-frame.ts';
import { WsClientError } from '../src/client/ws-stream.ts';
import { CompareInputError } from '../src/compare/load-run.ts';
import { ConfigError } from '../src/config/errors.ts';
import { isSpeakcheckError, SPEAKCHECK_ERROR_CODES, type SpeakcheckError } from '../src/errors.ts';
import { CannotObserve, StepFailed } from '../src/harness/check.ts';
import { ChecksFailed } from '../src/harness/covers.ts';
import { SchemaFinding } from '../src/harness/schema.ts';
import { TestBoundExceeded } from '../src/harness/test-bound.ts';
import { NotWaitedAgain } from '../src/harness/wait-ledger.ts';
import { K6UnavailableError } from '../src/load/k6-binary.ts';
import { MergeError } from '../src/load/merge.ts';
import { SloError } from '../src/load/slo.ts';
import { SummaryFormatError } from '../src/load/summary.ts';
import { RunSetError } from '../src/perf/run-set.ts';
import { CatalogueError } from '../src/requirements/index.ts';
import { PreflightError } from '../src/run/preflight.ts';
import { ContainerRuntimeUnavailable } from '../src/stack/container.ts';
import { StackStartError } from '../src/stack/embedded.ts';
import { LaunchError } from '../src/stack/launcher.ts';

/** One instance of every harness error, each with the code it must carry (every code exactly once). */
const EVERY_ERROR: [SpeakcheckError, string][] = [
  [new ConfigError('m'), 'SPEAKCHECK_CONFIG'],
  [new CatalogueError('m'), 'SPEAKCHECK_CATALOGUE'],
  [new PreflightError('m'), 'SPEAKCHECK_PREFLIGHT'],
  [new StackStartError('m'), 'SPEAKCHECK_STACK_START'],
  [new LaunchError('m'), 'SPEAKCHECK_LAUNCH'],
  [new ContainerRuntimeUnavailable('m'), 'SPEAKCHECK_NO_CONTAINER_RUNTIME'],
  [new StepFailed('X-1', new Error('m')), 'SPEAKCHECK_STEP_FAILED'],
  [new ChecksFailed(['m']), 'SPEAKCHECK_CHECKS_FAILED'],
  [
    new NotWaitedAgain(
      'take',
      'tk_2',
      { kind: 'take', id: 'tk_1', statuses: ['started'], polls: 9, waitedMs: 60_100, boundMs: 60_000 },
      { status: 'started', waitedMs: 0, sameItem: false },
    ),
    'SPEAKCHECK_WAIT_BLOCKED',
  ],
  [new Finding('m'), 'SPEAKCHECK_FINDING'],
  [new ClientDiagnostic('unreachable', 'm', 'http://x'), 'SPEAKCHECK_UNREACHABLE'],
  [new ClientDiagnostic('timeout', 'm', 'http://x'), 'SPEAKCHECK_TIMEOUT'],
  [new ClientDiagnostic('hung', 'm', 'http://x'), 'SPEAKCHECK_HUNG'],
  [new ClientDiagnostic('garbage', 'm', 'http://x'), 'SPEAKCHECK_GARBAGE'],
  [new ClientDiagnostic('too-large', 'm', 'http://x'), 'SPEAKCHECK_TOO_LARGE'],
  [new ClientDiagnostic('not-json', 'm', 'http://x'), 'SPEAKCHECK_NOT_JSON'],
  [new ClientDiagnostic('throttled', 'm', 'http://x'), 'SPEAKCHECK_THROTTLED'],
  [new ClientDiagnostic('certificate', 'm', 'http://x'), 'SPEAKCHECK_CERTIFICATE'],
  [new AuthError('m'), 'SPEAKCHECK_AUTH'],
  [new WsClientError('closed', 'm'), 'SPEAKCHECK_WS_CLIENT'],
  [new FrameError('metadata-not-json', 'm', 1), 'SPEAKCHECK_WS_FRAME'],
  [new WavHeaderError('not-riff', 'm'), 'SPEAKCHECK_WAV_HEADER'],
  [new K6UnavailableError('m'), 'SPEAKCHECK_K6_UNAVAILABLE'],
  [new SummaryFormatError('m'), 'SPEAKCHECK_LOAD_SUMMARY'],
  [new MergeError('m'), 'SPEAKCHECK_LOAD_MERGE'],
  [new RunSetError('m'), 'SPEAKCHECK_PERF_RUN_SET'],
  [new CannotObserve('m', 'w'), 'SPEAKCHECK_NOT_OBSERVED'],
  [new TestBoundExceeded('t', 1000), 'SPEAKCHECK_TEST_BOUND'],
  [new SloError('m'), 'SPEAKCHECK_LOAD_SLO'],
  [new CompareInputError('m'), 'SPEAKCHECK_COMPARE_INPUT'],
];

describe('SpeakcheckError: one base, a stable code per error', () => {
  it('every harness error carries its own code, and every code is used exactly once', () => {
    for (const [error, code] of EVERY_ERROR) {
      expect(isSpeakcheckError(error), error.name).toBe(true);
      expect(error).toBeInstanceOf(Error);
      expect(error.code, error.name).toBe(code);
    }
    const used = EVERY_ERROR.map(([error]) => error.code);
    expect(new Set(used).size).toBe(used.length);
    expect([...used].sort()).toEqual([...SPEAKCHECK_ERROR_CODES].sort());
  });

  it('keeps the class name and the message as they were', () => {
    const error = new ConfigError('--concurrency must be a positive integer');
    expect(error.name).toBe('ConfigError');
    expect(error.message).toBe('--concurrency must be a positive integer');
    expect(String(new Finding('expected 200, got 500'))).toBe('Finding: expected 200, got 500');
  });

  it('a Finding says its kind: schema for a schema violation, contract otherwise', () => {
    expect(new Finding('m').kind).toBe('contract');
    expect(
      new SchemaFinding('Take', 'the take', [{ pointer: '/status', expected: 'string', actual: '1' }]).kind,
    ).toBe('schema');
  });

  it('a plain Error is not one', () => {
    expect(isSpeakcheckError(new Error('m'))).toBe(false);
  });
});
