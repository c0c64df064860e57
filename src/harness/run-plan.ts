/**
 * The run plan: what the suites of one conformance run work with, resolved once from the RunConfig
 * and what the run learned before the suites start (issue 44) — where the server is and who signs
 * in (the run's own stack, or the config's remote server), how many suite files run at once (by the
 * preflight's quickest answer), the expiry thread, the lifetimes the run's stack serves, and when
 * the run's budget ends. `resolveRunPlan` is pure; the plan it returns is frozen (and typed
 * DeepReadonly, so an assignment to it is a compile error): nothing changes it afterwards, so what
 * the suites see cannot depend on the order of the steps that led to it.
 *
 * `speakcheck run` (src/run/run-conformance.ts) builds it after the preflight and provides it to the
 * suites' threads (vitest's provide, ./run-bootstrap.ts); run directly (`vitest --config
 * suites.vitest.config.ts`) the global setup (./global-setup.ts) builds it, without a preflight, and
 * provides it. The threads read it as part of the run's context (./run-context.ts).
 */

import { type DeepReadonly, deepFreeze } from '../config/deep-freeze.ts';
import { ConfigError } from '../config/errors.ts';
import type { ExpiryConfig, RunConfig, SecondIdentity } from '../config/types.ts';
import { runStackLifetimes, type StackLifetimes } from '../stack/run-lifetimes.ts';
import { runsExpiryFile } from './suite-files.ts';
import { expiryThreads, suiteWorkersFor } from './suite-workers.ts';

/** The expiry settings as the suites use them: the config's, and the run's budget when it has one. */
export interface PlannedExpiry extends ExpiryConfig {
  /** full mode: when the run's budget (--max-time) ends, ms since the epoch; waits past it are not judged. */
  deadlineMs?: number;
  /** The run's budget (--max-time) in seconds, for the messages that ask for a longer one. */
  maxTimeS?: number;
}

interface Plan extends Omit<RunConfig, 'expiry'> {
  expiry: PlannedExpiry;
  /**
   * Suite files at a time, from the preflight's quickest answer (./suite-workers.ts); absent when
   * the suites run without a preflight (run directly): the suites' default.
   */
  suiteWorkers?: number;
  /** A thread of its own for the expiry file (./suite-workers.ts), beside suiteWorkers; with it. */
  expiryThreads?: number;
  /** The short lifetimes the run's own stack serves (src/stack/run-lifetimes.ts); absent: the server's own. */
  stackLifetimes?: StackLifetimes;
}

/** What the suites of a run work with; frozen, never changed once resolved. */
export type RunPlan = DeepReadonly<Plan>;

/** The run's own stack as it started (src/stack/target.ts StartedTarget): its address and customers. */
export interface PlanStack {
  baseUrl: string;
  email: string;
  password: string;
  /** The stack's second seeded customer, unless the user named one. */
  second?: SecondIdentity;
}

/** What the preflight (src/run/preflight.ts) measured that the plan depends on. */
export interface PlanPreflight {
  /** The quickest of the preflight's answers (ms): the server's round trip. */
  quickestAnswerMs: number;
}

/** The run's budget (--max-time): the expiry waits end within it. */
export interface RunBudget {
  /** When the run started, ms since the epoch. */
  startedAtMs: number;
  maxTimeMs: number;
}

/** Where the server under test is and how to sign in: what the preflight and every client need. */
export type ServerAccess = Pick<RunConfig, 'baseUrl' | 'authUrl' | 'email' | 'password' | 'token' | 'second'>;

/**
 * The server the run tests: the run's own stack (its address, its seeded customer, its second
 * customer unless the user named one with --second-email/--second-token), else the config's.
 */
export function serverAccess(config: DeepReadonly<RunConfig>, stack: PlanStack | undefined): ServerAccess {
  const given = {
    baseUrl: config.baseUrl,
    authUrl: config.authUrl,
    ...(config.email !== undefined ? { email: config.email } : {}),
    ...(config.password !== undefined ? { password: config.password } : {}),
    ...(config.token !== undefined ? { token: config.token } : {}),
    ...(config.second !== undefined ? { second: { ...config.second } } : {}),
  };
  if (!stack) return given;
  const second = config.second ?? stack.second;
  return {
    ...given,
    baseUrl: stack.baseUrl,
    authUrl: stack.baseUrl,
    email: stack.email,
    password: stack.password,
    ...(second !== undefined ? { second: { ...second } } : {}),
  };
}

/**
 * The plan of a run of `config`: against `stack` when the run started its own (undefined: the
 * config's server), sized by `preflight` (undefined: the suites' defaults), bounded by `budget`
 * (undefined: no deadline for the expiry waits). Pure: the config is copied, never changed.
 */
export function resolveRunPlan(
  config: DeepReadonly<RunConfig>,
  stack: PlanStack | undefined,
  preflight: PlanPreflight | undefined,
  budget?: RunBudget,
): RunPlan {
  const copy = structuredClone(config) as RunConfig;
  const stackLifetimes = stack ? runStackLifetimes(copy.expiry.mode) : undefined;
  const plan: Plan = {
    ...copy,
    ...serverAccess(config, stack),
    expiry: {
      ...copy.expiry,
      ...(budget
        ? {
            deadlineMs: budget.startedAtMs + budget.maxTimeMs,
            maxTimeS: Math.round(budget.maxTimeMs / 1000),
          }
        : {}),
    },
    // A copy: freezing the plan must not freeze the shared constant it came from.
    ...(stackLifetimes ? { stackLifetimes: { ...stackLifetimes } } : {}),
    ...(preflight
      ? {
          suiteWorkers: suiteWorkersFor(copy.target, preflight.quickestAnswerMs),
          expiryThreads: expiryThreads({
            expiryFileRuns: runsExpiryFile(copy),
            // The real lifetimes, waited out beside the other files.
            waitsLong: copy.expiry.mode === 'full',
          }),
        }
      : {}),
  };
  return deepFreeze(plan);
}

/** The worker threads the suites need: the files at a time and the expiry file's own (absent: the default). */
export function planThreads(plan: RunPlan): number | undefined {
  return plan.suiteWorkers === undefined ? undefined : plan.suiteWorkers + (plan.expiryThreads ?? 0);
}

/** The plan as JSON (a plan written down; the suites' threads receive it through vitest's provide). */
export function encodeRunPlan(plan: RunPlan): string {
  return JSON.stringify(plan);
}

/** The plan a thread received, frozen as it was made; a plan without a server is refused. */
export function decodeRunPlan(json: string): RunPlan {
  const parsed = JSON.parse(json) as Plan;
  if (!parsed || typeof parsed.baseUrl !== 'string' || !parsed.baseUrl) {
    throw new ConfigError('the run configuration handed to the suites has no base url.');
  }
  // Handed over by a speakcheck from before the requirement selection.
  parsed.requirements ??= [];
  return deepFreeze(parsed);
}
