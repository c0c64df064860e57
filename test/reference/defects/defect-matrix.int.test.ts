/**
 * The defect matrix: for each defect switch of the reference stack (reference/defects/registry.ts),
 * a stack with that switch on, `speakcheck run --requirement <the ids the switch declares>` against
 * it, and the claim that the harness catches it: the run does not conform (exit 1) and at least one
 * requirement the switch declares failed. An outage switch (kind 'outage': a route that only ever
 * answers 429/503) is back-pressure, never a failure: caught when the run exits 1, every declared
 * requirement is not concluded, and the outage is named exactly once in the run's output and in
 * conformance.json. Only the tests covering those ids run, so the declared ids
 * must be the ones that really catch the switch (a wrong declaration is a NOT caught here, not a
 * reason to widen the run). Prints each switch's time to its verdict (stack start included) and
 * asserts none takes more than MAX_VERDICT_MS: a broken server gets its verdict in seconds, not after
 * every request's full timeout. Prints the mutation score (caught / total) and the time taken. The clean
 * stack passing everything is test/run/run-cli.int.test.ts.
 *
 * Every switch needs its own stack (two at a time: the machine has two cores; the few whose run
 * is bound by a wait, WAIT_BOUND, one at a time in a third lane). Limited to the
 * declared requirements, every switch of the matrix fits in CI: with CI set (or
 * SPEAKCHECK_DEFECT_MATRIX=all) all of them run; SPEAKCHECK_DEFECT_MATRIX=name,name runs those
 * switches only (a local check of one hook), SPEAKCHECK_DEFECT_MATRIX=none none.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFECTS, type DefectSpec } from '../../../reference/defects/index.ts';
import { catalogue } from '../../../src/requirements/index.ts';
import { EMBEDDED_RUN_SERVE_ARGS } from '../../../src/stack/target.ts';
import {
  type HarnessRun,
  mapLimited,
  runHarness,
  runInLanes,
  startDefectiveStack,
} from './defective-stack.ts';
import {
  FAILURE_LINE,
  failedReproduction,
  lastStep,
  loginStatuses,
  normalised,
  PASTE_TIMEOUT_MS,
  type Pasted,
  paste,
} from './paste-reproduction.ts';

const selection = process.env.SPEAKCHECK_DEFECT_MATRIX ?? (process.env.CI ? 'all' : '');
const chosen: readonly DefectSpec[] =
  selection === '1' || selection === 'all'
    ? DEFECTS
    : DEFECTS.filter((defect) => selection.split(',').includes(defect.name));
const PARALLEL = Number(process.env.SPEAKCHECK_DEFECT_PARALLEL ?? 2);
/**
 * Switches whose run is bound by a wait, not by the cores: a 45 s ready bound (voice-never-ready,
 * take-stuck-started, flac-before-ready), a hang's request timeout, a throttle's Retry-After. They
 * run one at a time in a lane of their own beside the PARALLEL lanes: in those, two of them at once
 * left both cores idle for a minute (CI on 2026-11-28: these seven took 346 of the matrix's 1601
 * run-seconds, 36–64 s each, against 11–23 s for most others).
 */
const WAIT_BOUND: readonly string[] = [
  'voice-never-ready',
  'take-stuck-started',
  'flac-before-ready',
  'flac-always-throttled',
  'storage-host-hangs',
  'ws-upgrade-hangs',
  'voice-generate-hangs',
  // Caught at the run's end, after the wait for late status calls (30 s).
  'ws-progress-not-stored',
  'webhook-status-missing',
];
/**
 * Synthesis workers per defective stack: the few tests of one switch's requirements never need two,
 * and starting a second worker (its own synthesizer) is a good part of each switch's cost. The stack
 * a run starts itself has the same topology (its websocket endpoint sharing the worker's synthesizer).
 */
const STACK_WORKERS = [...EMBEDDED_RUN_SERVE_ARGS];

/** No switch may take longer than this to a verdict (the issue-16 bound; stack start included). */
const MAX_VERDICT_MS = 90_000;
/**
 * Issue 37: a part of the server that never answers (a route only ever throttled, a websocket that
 * falls silent) is learned once, so its switches get their verdict within a minute.
 */
const LEARNED_ONCE_MAX_MS: Partial<Record<string, number>> = {
  'ws-ignores-later-requests': 60_000,
  'flac-always-throttled': 60_000,
  'ws-upgrade-always-503': 60_000,
  // Issue 49: a part that accepts and never answers is learned once too.
  'storage-host-hangs': 60_000,
  // A whole server wedged mid-run: learned once (src/client/server-silence.ts), not test by test.
  'api-wedges-after-first-take': 60_000,
  'voice-generate-hangs': 60_000,
  'take-get-hangs-when-ready': 60_000,
  'ws-silent-from-start': 60_000,
  'ws-upgrade-hangs': 60_000,
  'models-hangs': 60_000,
  'version-hangs': 60_000,
  'webhook-done-other-take': 60_000,
  'status-webhook-other-take': 60_000,
  // A voice or take that never gets ready: named when the 45 s ready bound (--ready-timeout) ends
  // (53–54 s in CI's matrix, 2026-11-29). flac-before-ready keeps the matrix's bound: 73–107 s in
  // CI until the audio suite read an early flac only to its first bytes (9 s alone since).
  'voice-never-ready': 60_000,
  'take-stuck-started': 60_000,
  // Issue 50: each sequence-only switch is caught by the stateful suite within a minute.
  ...Object.fromEntries(
    DEFECTS.filter((defect) => defect.area === 'sequences').map((defect) => [defect.name, 60_000]),
  ),
};

/**
 * What some switches need to be observable at all: the websocket URL expiry can only be tested
 * with a lifetime the run can wait out (announced to the suite as it would be for a vendor).
 */
interface Setup {
  serve?: string[];
  run?: string[];
  env?: Record<string, string>;
  /** Bound of the whole `speakcheck run` (default 300 s). */
  timeoutMs?: number;
}
/** Issue 50: the switches only sequences of calls find (area `sequences`). */
const SEQUENCE_SWITCHES = DEFECTS.filter((defect) => defect.area === 'sequences').map(
  (defect) => defect.name,
);
/** Of those, the ones whose requirement rests on a wire fact (delete, update, batch): judged in the sdk profile. */
const SDK_SEQUENCE_SWITCHES: readonly string[] = [
  'deleted-take-audio-answers',
  'second-customer-delete-ignored',
  // The wire facts' update and batch (issue 50, as delete).
  'voice-list-stale-after-update',
  'batch-rotated-past-two',
];

const SETUP: Partial<Record<string, Setup>> = {
  // Issue 31: the lifetimes are waited out as the acceptance profile does (--expiry full), with
  // lifetimes the stack shortens so the verdict stays within MAX_VERDICT_MS. The three below run with
  // a leeway of 5 s (default 300 s, RFC 7519's few minutes for clock skew): the stack shares the
  // run's clock and allows none, and the tries past a lifetime end within MAX_VERDICT_MS.
  'ws-expired-url-accepted': {
    serve: ['--websocket-url-ttl', '5'],
    run: ['--profile', 'acceptance', '--ws-url-lifetime', '5', '--expiry-leeway', '5'],
  },
  'access-token-never-expires': {
    serve: ['--access-token-ttl', '5'],
    run: ['--profile', 'acceptance', '--expiry-leeway', '5'],
  },
  'signed-url-never-expires': {
    serve: ['--signed-url-ttl', '5'],
    run: ['--profile', 'acceptance', '--expiry-leeway', '5'],
  },
  // Run with a permanent token: with email and password, a login moved off /auth/login ends the
  // preflight (no verdict, exit 3); a --token run reaches the id's check.
  'auth-under-v1-prefix': { serve: ['--permanent-token'] },
  // The wire facts are judged (as SHOULD) only in the sdk profile: elsewhere they are INFO.
  'batch-reversed': { run: ['--profile', 'sdk'] },
  'delete-does-nothing': { run: ['--profile', 'sdk'] },
  'update-does-nothing': { run: ['--profile', 'sdk'] },
  // Issue 50: the sequence-only switches, explored with more sequences than the main job's few
  // (fast-check stops at the first failing one and shrinks it within the suite's time limit).
  ...Object.fromEntries(
    SEQUENCE_SWITCHES.map((name) => [
      name,
      { run: ['--sequences', '60', ...(SDK_SEQUENCE_SWITCHES.includes(name) ? ['--profile', 'sdk'] : [])] },
    ]),
  ),
};

interface Outcome {
  defect: DefectSpec;
  run?: HarnessRun;
  defectsLine?: string;
  error?: string;
  ms: number;
}

const outcomes = new Map<string, Outcome>();
let totalMs = 0;

function caught(o: Outcome): boolean {
  if (o.defect.kind === 'outage') return outageProblems(o).length === 0;
  if (o.defect.kind === 'hang' && namedOutages(o.run) !== 1) return false;
  return o.run?.code === 1 && o.defect.requirements.some((id) => o.run?.verdicts.get(id) === 'failed');
}

/** How many outage lines the run printed (a route that does not answer is named once). */
function namedOutages(run: HarnessRun | undefined): number {
  return (run?.output ?? '').split('\n').filter((line) => line.startsWith('outage: ')).length;
}

/** Why an outage switch is not caught (empty: caught): exit 1, declared ids not concluded, the outage named once. */
function outageProblems(o: Outcome): string[] {
  const run = o.run;
  if (!run) return ['no run'];
  const problems: string[] = [];
  if (run.code !== 1) problems.push(`exit ${run.code}, not 1`);
  for (const id of o.defect.requirements)
    if (run.verdicts.get(id) !== 'not-concluded')
      problems.push(`${id} is ${run.verdicts.get(id) ?? 'absent'}`);
  const named = run.output.split('\n').filter((line) => line.startsWith('outage: '));
  if (named.length !== 1) problems.push(`${named.length} outage lines in the output`);
  const outages = (readReportJson(run.reportDir).outages ?? []) as unknown[];
  if (outages.length !== 1) problems.push(`${outages.length} outages in conformance.json`);
  return problems;
}

function readReportJson(dir: string): { outages?: unknown[] } {
  try {
    return JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as { outages?: unknown[] };
  } catch {
    return {};
  }
}

describe.runIf(chosen.length > 0)('defect matrix', () => {
  beforeAll(async () => {
    const started = Date.now();
    const runSwitch = async (defect: DefectSpec) => {
      const t0 = Date.now();
      let stack: Awaited<ReturnType<typeof startDefectiveStack>> | undefined;
      try {
        const setup = SETUP[defect.name];
        stack = await startDefectiveStack([defect.name], [...STACK_WORKERS, ...(setup?.serve ?? [])]);
        const run = await runHarness(stack, defect.requirements, setup?.env, setup?.run, setup?.timeoutMs);
        outcomes.set(defect.name, { defect, run, defectsLine: stack.defectsLine, ms: Date.now() - t0 });
      } catch (error) {
        outcomes.set(defect.name, { defect, error: (error as Error).message, ms: Date.now() - t0 });
      } finally {
        await stack?.stop();
      }
      const o = outcomes.get(defect.name)!;
      process.stdout.write(
        `defect ${defect.name} (${defect.area}): ${caught(o) ? 'caught' : 'NOT caught'} in ${(o.ms / 1000).toFixed(0)} s\n`,
      );
    };
    await runInLanes(chosen, PARALLEL, (defect) => WAIT_BOUND.includes(defect.name), runSwitch);
    totalMs = Date.now() - started;
  }, 60 * 60_000);

  afterAll(() => {
    const all = [...outcomes.values()];
    const score = all.filter(caught).length;
    process.stdout.write(
      `defect matrix: mutation score ${score}/${all.length} caught in ${(totalMs / 1000).toFixed(0)} s (${PARALLEL} at a time, and the wait-bound ones one at a time beside them)\n`,
    );
    for (const o of all) if (o.run) rmSync(o.run.reportDir, { recursive: true, force: true });
  });

  test.each(chosen.map((defect) => [defect.name, defect] as const))('%s is caught', (_name, defect) => {
    const o = outcomes.get(defect.name);
    expect(o?.error, 'the stack or the run could not start').toBeUndefined();
    expect(o!.ms, `${defect.name}: time to a verdict (ms)`).toBeLessThanOrEqual(
      LEARNED_ONCE_MAX_MS[defect.name] ?? MAX_VERDICT_MS,
    );
    const run = o!.run!;
    // The stack announced itself as defective.
    expect(o!.defectsLine).toBe(defect.name);
    if (defect.kind === 'outage') {
      expect(outageProblems(o!), run.output.slice(-3000)).toEqual([]);
      return;
    }
    const failed = [...run.verdicts].filter(([, status]) => status === 'failed').map(([id]) => id);
    if (defect.kind === 'hang')
      expect(namedOutages(run), `the route that does not answer named once\n${run.output.slice(-3000)}`).toBe(
        1,
      );
    expect(run.code, `exit code; failed: ${failed.join(', ')}\n${run.output.slice(-3000)}`).toBe(1);
    const declared = defect.requirements.filter((id) => run.verdicts.get(id) === 'failed');
    expect(
      declared,
      `none of ${defect.requirements.join(', ')} failed (they are: ${defect.requirements
        .map((id) => `${id}=${run.verdicts.get(id) ?? 'absent'}`)
        .join(', ')}); failed instead: ${failed.join(', ') || 'nothing'}`,
    ).not.toEqual([]);
  });
});

/**
 * Issue 50's other half of the proof, opt-in (a whole run per switch: too long for CI's default run):
 * SPEAKCHECK_DEFECT_MATRIX_MISSED=1 (or name,name) runs, for each switch of area 'sequences', the
 * whole harness with `--only` every other area (the fixed suites, the stateful suite off) in the
 * profile the switch is caught in, and expects the server to CONFORM (exit 0): the fixed suites miss
 * it. Prints each switch's exit and time (docs/stateful.md has the figures).
 */
const missedSelection = process.env.SPEAKCHECK_DEFECT_MATRIX_MISSED ?? '';
const missedChosen: readonly DefectSpec[] = DEFECTS.filter(
  (defect) =>
    defect.area === 'sequences' &&
    (missedSelection === '1' ||
      missedSelection === 'all' ||
      missedSelection.split(',').includes(defect.name)),
);
const FIXED_AREAS = [...new Set(catalogue.map((r) => r.area as string))].filter(
  (area) => area !== 'sequences',
);

describe.runIf(missedChosen.length > 0)('sequence switches missed with the stateful suite off', () => {
  const missed = new Map<string, { run?: HarnessRun; error?: string; ms: number }>();
  beforeAll(
    async () => {
      await mapLimited(missedChosen, PARALLEL, async (defect) => {
        const t0 = Date.now();
        let stack: Awaited<ReturnType<typeof startDefectiveStack>> | undefined;
        try {
          stack = await startDefectiveStack([defect.name], STACK_WORKERS);
          const profile = SDK_SEQUENCE_SWITCHES.includes(defect.name) ? ['--profile', 'sdk'] : [];
          const run = await runHarness(stack, [], {}, ['--only', FIXED_AREAS.join(','), ...profile], 900_000);
          missed.set(defect.name, { run, ms: Date.now() - t0 });
        } catch (error) {
          missed.set(defect.name, { error: (error as Error).message, ms: Date.now() - t0 });
        } finally {
          await stack?.stop();
        }
        const o = missed.get(defect.name)!;
        const failed = [...(o.run?.verdicts ?? [])].filter(([, v]) => v === 'failed').map(([id]) => id);
        process.stdout.write(
          `defect ${defect.name} with the stateful suite off: exit ${o.run?.code ?? o.error} in ${(o.ms / 1000).toFixed(0)} s${failed.length > 0 ? ` (failed: ${failed.join(', ')})` : ''}\n`,
        );
      });
    },
    4 * 60 * 60_000,
  );

  afterAll(() => {
    for (const o of missed.values()) if (o.run) rmSync(o.run.reportDir, { recursive: true, force: true });
  });

  test.each(missedChosen.map((defect) => [defect.name] as const))(
    '%s is missed by the fixed suites',
    (name) => {
      const o = missed.get(name);
      expect(o?.error, 'the stack or the run could not start').toBeUndefined();
      const failed = [...o!.run!.verdicts].filter(([, v]) => v === 'failed').map(([id]) => id);
      expect(o!.run!.code, `exit code; failed: ${failed.join(', ')}\n${o!.run!.output.slice(-3000)}`).toBe(0);
    },
  );
});

/**
 * Issue 50's "pasted into `sh`" proof, opt-in (a run and three pasted scripts per switch: too long
 * for CI's default run): SPEAKCHECK_DEFECT_MATRIX_PASTE=all (or name,name) runs, for each switch of
 * area 'sequences', the harness as the matrix does (same SETUP), takes the failed requirement's
 * reproduction from conformance.json and runs its script with `sh`, env only PATH, SPEAK_BASE_URL,
 * SPEAK_EMAIL and SPEAK_PASSWORD, first against the defective stack, then twice against a clean one.
 * The one exception: a script whose header asks for the second customer also gets
 * SPEAK_SECOND_EMAIL / SPEAK_SECOND_PASSWORD (second-customer-delete-ignored's bug cannot be shown
 * without that customer, so its script must ask; every other switch's must not). Expected: each paste ends within its
 * bound and prints the failure line, every login answered 200, the last step's answer (ids, times,
 * hosts, audio sizes normalised; a paging walk's pages as a whole: paste-reproduction.ts) is the same
 * on both clean pastes (what differs is not noise) and differs on the defective stack. Prints each
 * switch's figures and both last steps (docs/stateful.md has the figures).
 */
const pasteSelection = process.env.SPEAKCHECK_DEFECT_MATRIX_PASTE ?? '';
const pasteChosen: readonly DefectSpec[] = DEFECTS.filter(
  (defect) =>
    defect.area === 'sequences' &&
    (pasteSelection === '1' || pasteSelection === 'all' || pasteSelection.split(',').includes(defect.name)),
);

interface PasteOutcome {
  failing?: Pasted;
  control?: Pasted;
  /** The script once more against the clean stack: its normalised last step must not change (no noise). */
  again?: Pasted;
  error?: string;
  ms: number;
}

describe.runIf(pasteChosen.length > 0)('sequence switches: the reproduction pasted into sh', () => {
  const pasted = new Map<string, PasteOutcome>();
  let clean: Awaited<ReturnType<typeof startDefectiveStack>> | undefined;
  beforeAll(
    async () => {
      clean = await startDefectiveStack([], STACK_WORKERS);
      await mapLimited(pasteChosen, PARALLEL, async (defect) => {
        const t0 = Date.now();
        let stack: Awaited<ReturnType<typeof startDefectiveStack>> | undefined;
        let run: HarnessRun | undefined;
        const o: PasteOutcome = { ms: 0 };
        try {
          const setup = SETUP[defect.name];
          stack = await startDefectiveStack([defect.name], [...STACK_WORKERS, ...(setup?.serve ?? [])]);
          run = await runHarness(stack, defect.requirements, setup?.env, setup?.run, setup?.timeoutMs);
          const repro = failedReproduction(run.reportDir, defect.requirements);
          if (!repro)
            throw new Error(`no failed requirement with a reproduction\n${run.output.slice(-3000)}`);
          const script = repro.curl.join('\n');
          o.failing = await paste(script, stack);
          o.control = await paste(script, clean!);
          o.again = await paste(script, clean!);
        } catch (error) {
          o.error = (error as Error).message;
        } finally {
          await stack?.stop();
          if (run) rmSync(run.reportDir, { recursive: true, force: true });
        }
        o.ms = Date.now() - t0;
        pasted.set(defect.name, o);
        // The two last steps side by side: what a reader sees differ (the proof is honest only if it is the bug).
        if (o.failing && o.control)
          process.stdout.write(
            `--- ${defect.name}, last step on the defective stack:\n${lastStep(o.failing.output)}\n--- on the clean stack:\n${lastStep(o.control.output)}\n`,
          );
        process.stdout.write(
          `defect ${defect.name} pasted: ${o.error ? `error ${o.error.split('\n')[0]}` : `shown ${pasteProblems(o).length === 0 ? 'yes' : 'NO'}${o.failing?.second ? ' (with SPEAK_SECOND_*)' : ''}, script ${((o.failing?.ms ?? 0) / 1000).toFixed(0)} s, clean ${((o.control?.ms ?? 0) / 1000).toFixed(0)} s`} (${(o.ms / 1000).toFixed(0)} s in all)\n`,
        );
      });
    },
    4 * 60 * 60_000,
  );
  afterAll(async () => {
    await clean?.stop();
  });

  /** Why the pasted script does not show the failure (empty: it does). */
  function pasteProblems(o: PasteOutcome): string[] {
    const problems: string[] = [];
    for (const [which, p] of [
      ['defective', o.failing],
      ['clean', o.control],
      ['clean again', o.again],
    ] as const) {
      if (!p) {
        problems.push(`${which}: not run`);
        continue;
      }
      if (p.timedOut) problems.push(`${which}: still running after ${PASTE_TIMEOUT_MS} ms`);
      if (!FAILURE_LINE.test(p.output)) problems.push(`${which}: no failure line`);
      const logins = loginStatuses(p.output);
      if (logins.length === 0 || logins.some((s) => s !== '200'))
        problems.push(`${which}: logins answered ${logins.join(', ') || 'nothing'}`);
    }
    if (
      o.failing &&
      o.control &&
      normalised(lastStep(o.failing.output)) === normalised(lastStep(o.control.output))
    )
      problems.push('the last step answers the same on the defective and the clean stack');
    if (
      o.control &&
      o.again &&
      normalised(lastStep(o.control.output)) !== normalised(lastStep(o.again.output))
    )
      problems.push(
        'the last step answers differently on two pastes against the clean stack (noise, not the bug)',
      );
    return problems;
  }

  test.each(pasteChosen.map((defect) => [defect.name] as const))(
    '%s: its pasted reproduction shows the failing answer',
    (name) => {
      const o = pasted.get(name);
      expect(o?.error, 'the stack, the run or the script could not start').toBeUndefined();
      expect(
        pasteProblems(o!),
        `defective:\n${o!.failing!.output.slice(-4000)}\nclean:\n${o!.control!.output.slice(-4000)}`,
      ).toEqual([]);
      // The second customer's switch cannot be shown without that customer (the exception); every
      // other one's script needs only SPEAK_EMAIL, SPEAK_PASSWORD and SPEAK_BASE_URL (issue 50).
      expect(o!.failing!.second, name).toBe(name === 'second-customer-delete-ignored');
    },
  );
});

test('every defect switch is well formed: known area, declared requirements, unique name', () => {
  const ids = new Map(catalogue.map((r) => [r.id, r.area as string]));
  const names = new Set<string>();
  for (const defect of DEFECTS) {
    expect(names.has(defect.name), `${defect.name} twice`).toBe(false);
    names.add(defect.name);
    expect(defect.requirements.length, defect.name).toBeGreaterThan(0);
    for (const id of defect.requirements) expect(ids.get(id), `${defect.name}: ${id}`).toBe(defect.area);
  }
  expect(DEFECTS.length).toBeGreaterThanOrEqual(30);
  expect(new Set(DEFECTS.map((d) => d.area))).toEqual(new Set(ids.values()));
  // The lane of wait-bound switches names switches that exist (a renamed one would run among the others).
  for (const name of WAIT_BOUND) expect(names.has(name), `WAIT_BOUND: ${name}`).toBe(true);
});
