/**
 * Stateful, model-based conformance (issue 50): random sequences of calls, as either customer,
 * judged step by step against a model of the contract (src/checks/stateful/model.ts): takes made,
 * read, listed, paged and deleted; sessions logged in, refreshed to any depth and logged out;
 * websocket connections serving several requests. fast-check generates the sequences
 * (suites/stateful/arbitraries.ts), stops at the first one that breaks the model and shrinks it to
 * the shortest sequence that still fails; the report shows it step by step with a POSIX sh + curl
 * script that replays it, and the seed and path that replay it exactly (`--seed`, `--replay-path`).
 *
 * A finding from a sequence is a conclusion like every other check's: it fails the requirement it
 * names; a requirement no sequence brought about is not observed, with what would judge it.
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll } from 'vitest';
import { propertySeed } from '../fixtures/property-seed.ts';
import { Finding, show } from '../src/checks/finding.ts';
import {
  type AccountName,
  type Learned,
  newModel,
  offeredIn,
  SEQUENCE_IDS,
  type SequenceModel,
  sequenceConclusion,
  WIRE_OPERATIONS,
} from '../src/checks/stateful/model.ts';
import {
  type ScriptStep,
  SEQUENCE_SCRIPT_KEY,
  SEQUENCE_SHRUNK_KEY,
  sequenceScript,
} from '../src/checks/stateful/script.ts';
import {
  check,
  covers,
  findRequirement,
  levelIn,
  notApplicable,
  notConcluded,
  notObserved,
  observe,
  type RequirementId,
  type SpeakClient,
  type SpeakContext,
} from '../src/harness/index.ts';
import { asPrimary, sequenceArbitrary, shrinkByRemoval, witnessSequence } from './stateful/arbitraries.ts';
import { MAX_TIME_LIMIT_MS, sequenceBudget, sequencesLine } from './stateful/budget.ts';
import {
  causeOf,
  isCounterexample,
  replayCommand,
  requirementOf,
  sequenceEnd,
  stopAsBlock,
} from './stateful/outcome.ts';
import { Real, type SequenceWorld } from './stateful/real.ts';
import { ownVoice, removeSecondItems } from './stateful/second-customer.ts';
import type { SequenceCommand } from './stateful/take-commands.ts';
import { once, prefetch, useSharedVoice } from './support/scenarios.ts';

const sharedVoice = useSharedVoice();

let world: SequenceWorld | undefined;

async function makeWorld(speak: SpeakContext): Promise<SequenceWorld> {
  const config = speak.config;
  const second: SpeakClient | undefined = await speak.loginSecond();
  const accounts: AccountName[] = second ? ['primary', 'second'] : ['primary'];
  const credentials = {
    primary:
      config.email !== undefined && config.password !== undefined
        ? { email: config.email, password: config.password }
        : undefined,
    second:
      config.second?.email !== undefined && config.second.password !== undefined
        ? { email: config.second.email, password: config.second.password }
        : undefined,
  };
  const profile = config.profile;
  const w: SequenceWorld = {
    speak,
    accounts,
    clients: { primary: speak.api, second },
    voices: { primary: (await sharedVoice(speak)).voice_id, second: undefined },
    // The first customer's updates change a voice of this file's (the shared voice is every file's).
    updatable: { primary: undefined, second: undefined },
    credentials,
    judged: (id) => {
      const requirement = findRequirement(id);
      return requirement !== undefined && levelIn(requirement, profile) !== 'INFO';
    },
    infoNotes: new Set(),
    secondTakes: [],
    updates: 0,
  };
  // Known to the file's end before its voices are made: what is made is removed even if a wait fails.
  world = w;
  // Made side by side, each waited for until ready (bounded by the ready timeout).
  const [updated, secondOwn] = await Promise.all([
    ownVoice(speak, speak.api, 'sequences-updated', (id) => speak.track('voice', id)),
    // Known as soon as it is made: a wait that fails after it still leaves it to removeSecondItems.
    second ? ownVoice(speak, second, 'sequences-second', (id) => (w.voices.second = id)) : undefined,
  ]);
  w.updatable.primary = async () => updated;
  if (secondOwn !== undefined) {
    w.voices.second = secondOwn;
    w.updatable.second = async () => secondOwn;
  }
  return w;
}

/** Made once, started as the file starts (the second customer's voice takes a moment to be ready). */
const sequenceWorld = once(makeWorld);
prefetch(sequenceWorld);

/** The test's own bound: the longest exploration plus a margin for the witness and the report. */
const SEQUENCES_TIMEOUT_MS = MAX_TIME_LIMIT_MS + 120_000;
/** Kept of that bound for what follows the exploration: the witness, its shrinking, the report. */
const WITNESS_RESERVE_MS = 60_000;

/**
 * Waits for `run` at most `ms`; `giveUp` is called, synchronously in the timer, when the bound came
 * first. A run that settles first always wins: between its settling and the race's end run only
 * microtasks, never the timer.
 */
async function waitBounded(run: Promise<unknown> | undefined, ms: number, giveUp: () => void): Promise<void> {
  if (run === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(
      () => {
        giveUp();
        resolve();
      },
      Math.max(0, ms),
    );
  });
  try {
    await Promise.race([run.then(noop, noop), bound]);
  } finally {
    clearTimeout(timer);
  }
}

const noop = (): void => undefined;

/** What one sequence left: its steps, and what stopped it. */
interface Ran {
  steps: ScriptStep[];
  error?: unknown;
  ms: number;
}

covers(
  [...SEQUENCE_IDS],
  'random sequences of calls, as either customer, agree with the model of the contract',
  async ({ speak }) => {
    const testStarted = performance.now();
    const w = await sequenceWorld(speak);
    const budget = sequenceBudget(speak.config);
    const seed = propertySeed('sequences');
    const runs: Ran[] = [];
    const observed = new Set<RequirementId>();
    // What each sequence learned where the contract is silent (whether the server offers delete).
    const learned: Learned[] = [];
    let failing: Ran | undefined;
    let failingCommands: Iterable<SequenceCommand> | undefined;
    // What ends the sequences without being a counterexample (back-pressure, a route the run learned
    // is silent, a request without an answer, a bug of speakcheck): thrown at the end, the test's to
    // classify like any other test's error, never a requirement of the sequences failed.
    let stopped: unknown;
    // A websocket request that reached the harness's bound with no evidence against the server.
    let timedOut: string | undefined;
    let firstFailureAt: number | undefined;
    // fc.check stops waiting for a sequence at its time limit; the sequence itself goes on. The one
    // running is kept and awaited after fc.check; `abandoned` when that wait ran out: its end counts
    // for nothing (a sequence settles all it found at once, so none of it or all of it counts).
    let inFlight: Promise<Ran> | undefined;
    let explorationOver = false;
    let abandoned = false;
    const needed = SEQUENCE_IDS.filter((id) => w.judged(id));
    const unobserved = () =>
      needed.filter(
        (id) =>
          sequenceConclusion(id, observed, offeredIn(learned)) === 'not-observed' &&
          !(id === 'SEQ-WS-REQUESTS-ANY-COUNT' && timedOut !== undefined),
      );

    /**
     * One sequence against a fresh model; what it observed, learned and found joins the run's, all in
     * one synchronous step after it ended (`explored`: one of fast-check's, its failure the one to shrink).
     */
    const runOne = async (
      commands: Iterable<SequenceCommand>,
      o: { explored?: boolean } = {},
    ): Promise<Ran> => {
      const model: SequenceModel = newModel(w.accounts);
      const real = new Real(w);
      const started = performance.now();
      const ran: Ran = { steps: real.steps, ms: 0 };
      let thrown: { error: unknown } | undefined;
      try {
        await fc.asyncModelRun(() => ({ model, real }), commands);
      } catch (error) {
        thrown = { error };
      } finally {
        await real.close();
        ran.ms = performance.now() - started;
      }
      // Ended after the wait for it ran out: the results are read already, and it ran beside nothing
      // they account for. Its error still goes back to fast-check, which no longer listens.
      if (o.explored && abandoned) return { ...ran, error: thrown?.error };
      const timeout = thrown && causeOf(thrown.error, 'SPEAKCHECK_SEQUENCE_TIMEOUT');
      if (timeout !== undefined) timedOut ??= (timeout as Error).message;
      else if (thrown && isCounterexample(thrown.error)) ran.error = thrown.error;
      else if (thrown) stopped ??= thrown.error;
      runs.push(ran);
      for (const id of model.observed) observed.add(id);
      learned.push(model.learned);
      budget.progress(runs.length, ran.ms);
      // A late one (fast-check stopped waiting) is reported when nothing failed before it; after a
      // failure it was a shrink fast-check did not record, and the failure its replay path names stands.
      if (o.explored && ran.error !== undefined && !(explorationOver && failing !== undefined)) {
        failing = ran;
        failingCommands = commands;
        firstFailureAt ??= performance.now();
      }
      // For whoever tunes the generator: every sequence's steps, one line each.
      if (process.env.SPEAKCHECK_SEQUENCE_LOG)
        appendFileSync(
          process.env.SPEAKCHECK_SEQUENCE_LOG,
          `${String(commands)}\n  ${ran.steps.map((x) => x.title).join(' | ')}\n`,
        );
      return ran;
    };

    // Random sequences first: a failure among them is shrunk by fast-check.
    const property = fc.asyncProperty(
      sequenceArbitrary({
        accounts: w.accounts,
        logins: w.credentials.primary !== undefined,
        maxCommands: budget.maxCommands,
        ...(budget.replayPath ? { replayPath: budget.replayPath } : {}),
      }),
      async (commands) => {
        if (stopped !== undefined) return;
        // Shrinking has had its time: the remaining candidates pass untried, the last failing one stands.
        if (firstFailureAt !== undefined && performance.now() - firstFailureAt > budget.shrinkMs) return;
        // A replay (--replay-path) runs the shrunk sequence it names and no other: fast-check's
        // further shrinks of it pass untried.
        if (budget.path && firstFailureAt !== undefined) return;
        // Enough: the run's share ran (the witness below brings about what they left unobserved).
        if (firstFailureAt === undefined && runs.length >= budget.sequences) return;
        inFlight = runOne(commands as Iterable<SequenceCommand>, { explored: true });
        const ran = await inFlight;
        if (ran.error !== undefined) throw ran.error;
      },
    );
    const details = await fc.check(property, {
      seed,
      numRuns: budget.sequences,
      ...(budget.path ? { path: budget.path } : {}),
      interruptAfterTimeLimit: budget.timeLimitMs,
      markInterruptAsFailure: false,
      endOnFailure: false,
    });
    // Stopped at its time limit, fast-check left a sequence running: waited for (within the test's
    // bound) so that what it finds counts before anything is read, and nothing runs beside it.
    explorationOver = true;
    const lateBoundMs = testStarted + SEQUENCES_TIMEOUT_MS - WITNESS_RESERVE_MS - performance.now();
    await waitBounded(inFlight, lateBoundMs, () => {
      abandoned = true;
    });
    // A pass is an observation: the witness brings about the state of every judged id the random
    // sequences left unobserved (also after one of them failed); a failure it finds on another
    // requirement is shrunk by removing its steps one by one, and reported beside the first.
    let randomFailure = failing;
    // fast-check shrinks one step's customer at a time and cannot move a whole sequence to the first
    // customer (asPrimary): tried once; when it fails the same way, its script needs no second account.
    // Not beside an abandoned sequence: the two would share the server's state.
    const primary =
      randomFailure && failingCommands && stopped === undefined && !abandoned
        ? asPrimary(failingCommands)
        : undefined;
    if (randomFailure && primary) {
      const again = await runOne(primary);
      if (again.error !== undefined && requirementOf(again.error) === requirementOf(randomFailure.error))
        randomFailure = again;
    }
    let witnessFailure: Ran | undefined;
    let witnessed = false;
    if (stopped === undefined && !abandoned && !budget.path && unobserved().length > 0) {
      witnessed = true;
      const first = await runOne(witnessSequence(w));
      const id = first.error === undefined ? undefined : requirementOf(first.error);
      if (id !== undefined && (randomFailure === undefined || requirementOf(randomFailure.error) !== id)) {
        witnessFailure = first;
        const deadline = performance.now() + budget.shrinkMs;
        await shrinkByRemoval(witnessSequence(w), async (commands) => {
          if (performance.now() > deadline || stopped !== undefined) return false;
          const again = await runOne(commands);
          if (again.error === undefined || requirementOf(again.error) !== id) return false;
          witnessFailure = again;
          return true;
        });
      }
    }
    const longest = runs.reduce((a, b) => (b.ms > a.ms ? b : a), { ms: 0, steps: [] } as Ran);
    // In the run's output, whatever its reporter: how many ran and how long the longest took.
    process.stderr.write(
      `${sequencesLine({
        count: runs.length,
        longestMs: longest.ms,
        longestSteps: longest.steps.length,
        seed,
        witnessed,
        shrunk: randomFailure !== undefined || witnessFailure !== undefined,
      })}\n`,
    );
    // Not an observation: how many ran and how long they took are this run's particulars, not what
    // the server chose (an INFO requirement's observations are what compare puts side by side).
    if (details.interrupted) process.stderr.write('[speakcheck] sequences: stopped at the time limit\n');
    for (const note of w.infoNotes)
      observe('sequence.info-note', 'Observed in a sequence (not judged, INFO): {note}', {
        particulars: { note },
        caught: true,
      });
    const failed = new Set<RequirementId>();
    if (randomFailure)
      failed.add(
        reportFailure(
          w,
          randomFailure,
          seed,
          details.failed ? replayPathOf(details.counterexamplePath, details.counterexample) : undefined,
        ),
      );
    if (witnessFailure) failed.add(reportFailure(w, witnessFailure, seed, undefined));
    const offered = offeredIn(learned);
    const logins = w.credentials.primary !== undefined;
    for (const id of SEQUENCE_IDS) {
      const end = sequenceEnd(id, {
        observed,
        offered,
        failed,
        stopped: stopped !== undefined,
        timedOut,
        logins,
      });
      if (end.kind === 'held') check(id, () => undefined);
      else if (end.kind === 'not-observed' && abandoned)
        notObserved(id, `${end.reason}; ${abandonedNote(budget.timeLimitMs, lateBoundMs)}`, end.wouldJudge);
      else if (end.kind === 'not-concluded' || end.kind === 'not-observed')
        (end.kind === 'not-concluded' ? notConcluded : notObserved)(id, end.reason, end.wouldJudge);
      else if (end.kind === 'not-applicable')
        notApplicable(id, WIRE_OPERATIONS[end.operation].reason, WIRE_OPERATIONS[end.operation].wouldJudge);
    }
    // Each id it left open is blocked by it (outcome.ts): never a sequence requirement failed.
    if (stopped !== undefined) throw stopAsBlock(stopped);
  },
  { timeoutMs: SEQUENCES_TIMEOUT_MS },
);

/** Why the witness did not bring about what was left unobserved: the sequence left running did not end in time. */
function abandonedNote(timeLimitMs: number, waitedMs: number): string {
  return `a sequence still running when the exploration stopped at its time limit (${Math.round(timeLimitMs / 1000)} s) had not ended ${Math.round(Math.max(0, waitedMs) / 1000)} s later: what it found does not count, and the witness sequence was not run beside it (the two would share the server's state)`;
}

/** The shrunk sequence step by step, its seed and path, its script: observations; the failure: a conclusion. */
function reportFailure(w: SequenceWorld, ran: Ran, seed: number, path: string | undefined): RequirementId {
  const { speak } = w;
  const error = ran.error;
  const finding = error instanceof Finding ? error : undefined;
  const id = requirementOf(error);
  const message = finding?.message ?? (error as Error)?.message ?? String(error);
  const steps = ran.steps.map((s, i) => `  ${i + 1}. ${s.title}`);
  const replay = replayCommand({
    seed,
    path,
    id,
    profile: speak.config.profile,
    sequences: speak.config.sequences,
  });
  // Each keyed by its requirement: a random and a witness failure may both be reported (each its own script).
  observe(SEQUENCE_SHRUNK_KEY, 'Shrunk sequence ({steps} steps; replay: {replay}):\n{list}\n  → {message}', {
    particulars: { requirement: id, steps: ran.steps.length, replay, list: steps.join('\n'), message },
  });
  observe(SEQUENCE_SCRIPT_KEY, '{script}', {
    particulars: {
      requirement: id,
      script: sequenceScript({
        steps: ran.steps,
        accounts: w.accounts.filter((a) => a === 'primary' || ran.steps.some((s) => s.title.includes(a))),
        model: speak.model.name,
        gender: speak.model.genders[0] ?? 'female',
        seed,
        ...(path ? { path } : {}),
        failure: message,
        // The bounds the run waited a websocket request with: the script's helper waits as long.
        websocket: {
          firstMessageS: speak.config.timeouts.requestMs / 1000,
          endS: speak.config.timeouts.readyMs / 1000,
        },
        ...(speak.config.authUrl && speak.config.authUrl !== speak.config.baseUrl
          ? { authUrl: speak.config.authUrl }
          : {}),
      }).join('\n'),
    },
  });
  check(id, () => {
    throw new Finding(
      `${message} (after a shrunk sequence of ${ran.steps.length} steps: ${show(
        ran.steps.map((s) => s.title),
        600,
      )})`,
      {
        requirement: id,
      },
    );
  });
  return id;
}

/**
 * What `--replay-path` takes to replay the shrunk sequence exactly: fast-check's run path, and the
 * commands' own replay path (fc.commands prints it in the sequence as a comment), joined by '@'.
 */
function replayPathOf(path: string | null, counterexample: unknown): string | undefined {
  if (!path) return undefined;
  const printed = String((counterexample as unknown[] | null)?.[0] ?? '');
  const commands = /replayPath="([^"]*)"/.exec(printed)?.[1];
  return commands ? `${path}@${commands}` : path;
}

// The second customer's takes and voice: the first customer's are tracked by the speak fixture.
afterAll(async () => {
  if (world && !world.speak.config.keep) await removeSecondItems(world);
});
