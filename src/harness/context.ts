/**
 * The per-file context of a conformance suite (SpeakContext): logs in once per file, lists the
 * models, tracks what the file creates and deletes it at the end unless --keep. A test takes it as
 * its file-scoped fixture `speak` (./fixtures.ts: opened before the file's first test that names
 * it, closed after the file).
 */
import type { ItemKind } from '../../schemas/item-kind.ts';
import type { Model } from '../../schemas/types.ts';
import { closeHttp, expectJson } from '../client/http.ts';
import { Limiter } from '../client/limiter.ts';
import { HttpSpeakClient, type SpeakClient } from '../client/speak-client.ts';
import { deleteMade, type MadeItem } from './cleanup.ts';
import { markSetupFailure } from './disposition.ts';
import type { RunPlan } from './run-plan.ts';
import { expectSchema } from './schema.ts';

/** A model as GET /v1/speak/models lists it (schemas/Model.schema.json). */
export type { Model } from '../../schemas/types.ts';

export interface SpeakContext {
  /** The run plan (./run-plan.ts): the run's config with its server, threads and budget; frozen. */
  readonly config: RunPlan;
  /** Logged in (refresh on 401, retry once). */
  readonly api: SpeakClient;
  /** Sends no Authorization. */
  readonly anon: SpeakClient;
  /** The model under test (config.model or the first one). */
  readonly model: Model;
  readonly models: Model[];
  /** Deleted at the end of the file unless --keep. */
  track(kind: ItemKind, id: string): void;
  /** No longer deleted by this file: handed to another owner (the run's end: a settle entry's item). */
  untrack(kind: ItemKind, id: string): void;
  /** `speakcheck-<runid>-<name>`: recognisable names for what the run creates. */
  prefix(name: string): string;
  /** A second, independent login (its own token pair), e.g. for logout and rotation tests. */
  login(): Promise<SpeakClient>;
  /**
   * A session of the run's second identity (customer B: `--second-email/--second-password` or
   * `--second-token`, or the stack's second user), for the security area's isolation checks;
   * undefined when the run has none.
   */
  loginSecond(): Promise<SpeakClient | undefined>;
}

/** Worker threads running suite files at once by default (suites.vitest.config.ts; a run may choose more: RunPlan.suiteWorkers). */
export const SUITE_WORKERS = 2;

/** One file's context, opened and closed by its owner (the `speak` fixture). */
export interface SpeakFile {
  readonly context: SpeakContext;
  /**
   * Logs in and lists the models. Never throws: what stopped it is returned and held, and every part
   * of the context that needs the login throws it when a test reads it (a test concludes from it).
   */
  open(plan: RunPlan): Promise<unknown>;
  /** Deletes what the file tracked (unless --keep) and closes its connections. */
  close(): Promise<void>;
}

/** One file's context, closed; its owner (the `speak` fixture) opens it for a run's plan. */
export function speakFile(): SpeakFile {
  let config: RunPlan | undefined;
  let api: HttpSpeakClient | undefined;
  let anon: HttpSpeakClient | undefined;
  let models: Model[] | undefined;
  let modelsError: Error | undefined;
  let limiter: Limiter | undefined;
  let setupError: unknown;
  const tracked: MadeItem[] = [];

  const settings = (c: RunPlan) => ({
    baseUrl: c.baseUrl,
    authUrl: c.authUrl,
    requestTimeoutMs: c.timeouts.requestMs,
    limiter: limiter!,
  });
  const credentials = (c: Pick<RunPlan, 'email' | 'password' | 'token'>) => ({
    ...(c.email !== undefined ? { email: c.email } : {}),
    ...(c.password !== undefined ? { password: c.password } : {}),
    ...(c.token !== undefined ? { token: c.token } : {}),
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined && setupError !== undefined) throw setupError;
    if (value === undefined) throw new Error(`speak.${what} is only available inside tests and hooks.`);
    return value;
  };

  const open = async (plan: RunPlan): Promise<unknown> => {
    config = plan;
    // The run's bound on requests in flight, shared by the files that run at once.
    const files = config.suiteWorkers ?? SUITE_WORKERS;
    limiter = new Limiter(Math.max(1, Math.ceil(config.concurrency / files)));
    anon = HttpSpeakClient.anonymous(settings(config));
    try {
      api = await HttpSpeakClient.login(settings(config), credentials(config));
    } catch (err) {
      // Back-pressure past its bound is no verdict: each test that needs the login says so itself
      // (not concluded) instead of the file failing as a whole. Marked as the file's setup failure,
      // a test stopped by it is blocked by it, not a finding against every id it covers.
      markSetupFailure(err);
      setupError = err;
      return err;
    }
    try {
      const listed = expectJson(await api.get('/v1/speak/models'), 'GET /v1/speak/models');
      expectSchema('ModelList', listed, 'the model list');
      models = listed as Model[];
    } catch (err) {
      // Suites that do not need models (auth, version) still run; using `model` rethrows this, as
      // the setup's failure: the model list's own requirements are judged by its own test.
      markSetupFailure(err);
      modelsError = err as Error;
    }
    return undefined;
  };

  const close = async (): Promise<void> => {
    try {
      if (api && config && !config.keep) {
        await deleteMade(api, tracked);
      }
    } finally {
      await closeHttp();
    }
  };

  const context: SpeakContext = {
    get config() {
      return ready(config, 'config');
    },
    get api() {
      return ready(api, 'api');
    },
    get anon() {
      return ready(anon, 'anon');
    },
    get models() {
      if (modelsError) throw modelsError;
      return ready(models, 'models');
    },
    get model() {
      if (modelsError) throw modelsError;
      const list = ready(models, 'model');
      const wanted = ready(config, 'config').model;
      const found = wanted ? list.find((m) => m.name === wanted) : list[0];
      if (!found) {
        throw new Error(
          wanted
            ? `the model "${wanted}" (--model) is not in the model list (${list.map((m) => m.name).join(', ') || 'empty'}).`
            : 'the server lists no model: nothing can be synthesized.',
        );
      }
      return found;
    },
    track(kind, id) {
      if (!tracked.some((item) => item.kind === kind && item.id === id)) tracked.push({ kind, id });
    },
    untrack(kind, id) {
      const at = tracked.findIndex((item) => item.kind === kind && item.id === id);
      if (at >= 0) tracked.splice(at, 1);
    },
    prefix(name) {
      return `${ready(config, 'config').namePrefix}${name}`;
    },
    async login() {
      const c = ready(config, 'config');
      return HttpSpeakClient.login(settings(c), credentials(c));
    },
    async loginSecond() {
      const c = ready(config, 'config');
      if (!c.second) return undefined;
      return HttpSpeakClient.login({ ...settings(c), account: 'second' }, credentials(c.second));
    },
  };
  return { context, open, close };
}
