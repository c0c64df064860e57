/**
 * The run plan (src/harness/run-plan.ts): resolved once from the config, the run's own stack, the
 * preflight and the budget, without changing the config, and frozen: what the suites work with
 * cannot be changed after it is made, at compile time (DeepReadonly) or at run time.
 */
import { describe, expect, test } from 'vitest';
import { deepFreeze } from '../../src/config/deep-freeze.ts';
import { ConfigError, resolveRunConfig } from '../../src/config/resolve.ts';
import {
  decodeRunPlan,
  encodeRunPlan,
  planThreads,
  resolveRunPlan,
  serverAccess,
} from '../../src/harness/run-plan.ts';
import {
  LOCAL_SUITE_WORKERS,
  NETWORK_ROUND_TRIP_MS,
  REMOTE_SUITE_WORKERS,
} from '../../src/harness/suite-workers.ts';
import { QUICK_RUN_LIFETIMES } from '../../src/stack/run-lifetimes.ts';

const now = new Date('2026-11-21T10:20:30.456Z');
const embedded = () => resolveRunConfig({}, {}, now);
const remote = (flags: Parameters<typeof resolveRunConfig>[0] = {}) =>
  resolveRunConfig(
    { baseUrl: 'http://api.example:8080', email: 'a@x.y', password: 'apw', ...flags },
    {},
    now,
  );
const stack = {
  baseUrl: 'http://127.0.0.1:34137',
  email: 'demo@stack',
  password: 'stackpw',
  second: { email: 'second@stack', password: 'secondpw' },
};
const localAnswer = { quickestAnswerMs: 2 };
const networkAnswer = { quickestAnswerMs: NETWORK_ROUND_TRIP_MS + 30 };

describe('resolveRunPlan', () => {
  test("the run's own stack: its address, its customers, its short lifetimes, two files (the expiry file's short waits among them)", () => {
    const plan = resolveRunPlan(embedded(), stack, localAnswer);
    expect(plan).toMatchObject({
      target: 'embedded',
      baseUrl: stack.baseUrl,
      authUrl: stack.baseUrl,
      email: stack.email,
      password: stack.password,
      second: stack.second,
      stackLifetimes: QUICK_RUN_LIFETIMES,
      suiteWorkers: LOCAL_SUITE_WORKERS,
      expiryThreads: 0,
    });
    expect(planThreads(plan)).toBe(LOCAL_SUITE_WORKERS);
  });

  test('a second identity the user named wins over the stack’s second customer', () => {
    const config = resolveRunConfig({ secondEmail: 'b@x.y', secondPassword: 'bpw' }, {}, now);
    expect(resolveRunPlan(config, stack, localAnswer).second).toEqual({ email: 'b@x.y', password: 'bpw' });
  });

  test("a remote server: the config's address and credentials; more files at a network's round trip", () => {
    const config = remote();
    const plan = resolveRunPlan(config, undefined, networkAnswer);
    expect(plan).toMatchObject({ baseUrl: config.baseUrl, authUrl: config.authUrl, email: 'a@x.y' });
    expect(plan.stackLifetimes).toBeUndefined();
    expect(plan.suiteWorkers).toBe(REMOTE_SUITE_WORKERS);
    // The server's own lifetimes, a quick run: the expiry file ends at once, no thread of its own.
    expect(plan.expiryThreads).toBe(0);
    expect(resolveRunPlan(config, undefined, localAnswer).suiteWorkers).toBe(LOCAL_SUITE_WORKERS);
    // --expiry full waits the real lifetimes out beside the other files, unless they do not run.
    expect(resolveRunPlan(remote({ expiry: 'full' }), undefined, networkAnswer).expiryThreads).toBe(1);
    expect(
      resolveRunPlan(remote({ expiry: 'full', only: 'lists' }), undefined, networkAnswer).expiryThreads,
    ).toBe(0);
  });

  test("--expiry full against the run's own stack: the server's lifetimes, still a thread for the waits", () => {
    const plan = resolveRunPlan(resolveRunConfig({ expiry: 'full' }, {}, now), stack, localAnswer);
    expect(plan.stackLifetimes).toBeUndefined();
    expect(plan.expiryThreads).toBe(1);
  });

  test('without a preflight (the suites run directly): the suites’ default threads', () => {
    const plan = resolveRunPlan(embedded(), stack, undefined);
    expect(plan.suiteWorkers).toBeUndefined();
    expect(plan.expiryThreads).toBeUndefined();
    expect(planThreads(plan)).toBeUndefined();
  });

  test("the budget: the expiry waits' deadline and the budget in seconds; none without one", () => {
    const startedAtMs = now.getTime();
    const plan = resolveRunPlan(remote(), undefined, localAnswer, { startedAtMs, maxTimeMs: 600_400 });
    expect(plan.expiry).toMatchObject({ deadlineMs: startedAtMs + 600_400, maxTimeS: 600 });
    const unbounded = resolveRunPlan(remote(), undefined, localAnswer);
    expect(unbounded.expiry.deadlineMs).toBeUndefined();
    expect(unbounded.expiry.maxTimeS).toBeUndefined();
  });

  test('the config is not changed: a frozen config resolves, and equals its copy from before', () => {
    const config = embedded();
    const before = structuredClone(config);
    const frozen = deepFreeze(config);
    expect(() =>
      resolveRunPlan(frozen, stack, localAnswer, { startedAtMs: 0, maxTimeMs: 1000 }),
    ).not.toThrow();
    expect(config).toEqual(before);
    expect(config.baseUrl).toBe('');
  });

  test('the plan is frozen all the way down: an assignment is a compile error and a TypeError', () => {
    const plan = resolveRunPlan(embedded(), stack, localAnswer, { startedAtMs: 0, maxTimeMs: 1000 });
    expect(Object.isFrozen(plan)).toBe(true);
    expect(Object.isFrozen(plan.expiry)).toBe(true);
    expect(Object.isFrozen(plan.only)).toBe(true);
    expect(Object.isFrozen(plan.timeouts)).toBe(true);
    expect(Object.isFrozen(plan.second)).toBe(true);
    expect(() => {
      // @ts-expect-error the plan is readonly: tsc (npm run check) fails if it is not
      plan.baseUrl = 'http://elsewhere.example';
    }).toThrow(TypeError);
    expect(() => {
      // @ts-expect-error the plan's expiry settings are readonly too
      plan.expiry.deadlineMs = 0;
    }).toThrow(TypeError);
    expect(() => {
      // @ts-expect-error a readonly array has no push
      plan.only.push('auth');
    }).toThrow(TypeError);
    expect(plan.baseUrl).toBe(stack.baseUrl);
    // Freezing the plan froze a copy of the lifetimes, not the shared constant.
    expect(Object.isFrozen(QUICK_RUN_LIFETIMES)).toBe(false);
  });
});

describe('serverAccess', () => {
  test('what the preflight signs in with is what the plan holds', () => {
    const config = embedded();
    const plan = resolveRunPlan(config, stack, localAnswer);
    const access = serverAccess(config, stack);
    for (const key of ['baseUrl', 'authUrl', 'email', 'password', 'token', 'second'] as const)
      expect(plan[key]).toEqual(access[key]);
    expect(serverAccess(remote(), undefined)).toEqual({
      baseUrl: 'http://api.example:8080',
      authUrl: 'http://api.example:8080',
      email: 'a@x.y',
      password: 'apw',
    });
  });
});

describe('the plan handed to the suites', () => {
  test('arrives as it was made, frozen', () => {
    const plan = resolveRunPlan(embedded(), stack, localAnswer, { startedAtMs: 5, maxTimeMs: 1000 });
    const received = decodeRunPlan(encodeRunPlan(plan));
    expect(received).toEqual(plan);
    expect(Object.isFrozen(received)).toBe(true);
    expect(Object.isFrozen(received.expiry)).toBe(true);
  });

  test('a plan without a server is refused', () => {
    const plan = resolveRunPlan(embedded(), undefined, undefined);
    expect(() => decodeRunPlan(encodeRunPlan(plan))).toThrow(ConfigError);
    expect(() => decodeRunPlan(encodeRunPlan(plan))).toThrow(/no base url/);
  });
});
