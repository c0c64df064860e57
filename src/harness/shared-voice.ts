/**
 * The run's shared voice: one plain voice (the model's first gender, no prosody, no style) generated
 * by the suites' global setup and handed to every suite file that only needs *a* ready voice to make
 * takes with (suites/support/scenarios.ts, useSharedVoice()). A voice is ready only after its example take
 * is synthesized: one example take per run instead of one per suite file. Suites that test voice
 * generation itself (voices, models) still generate their own.
 *
 * The global setup only asks for the voice and does not wait for it: the suites wait (bounded, with
 * the ready timeout) and check what came back, so a server that cannot make voices fails the tests
 * that need one instead of stopping the run.
 */

import { runThrottle } from '../client/back-pressure.ts';
import { ClientDiagnostic } from '../client/diagnostics.ts';
import { HttpSpeakClient } from '../client/speak-client.ts';
import type { MadeItem } from '../client/webhook-sink-control.ts';
import type { RequirementId } from '../requirements/index.ts';
import { deleteMade } from './cleanup.ts';
import { requirementOfRoute } from './route-requirement.ts';
import type { RunPlan } from './run-plan.ts';

/** What the global setup hands to the workers (JSON through provide/inject). */
export type ProvidedSharedVoice =
  | {
      ok: true;
      voiceId: string;
      /** The generate answer, schema-checked by the suites. */
      created: unknown;
      /** When it was asked for (ms since the epoch): every file's wait for it is bounded from here. */
      createdMs: number;
      /** The run's held time then (SharedThrottle.heldPastMs): the holds since are not counted. */
      createdHeldMs: number;
    }
  | {
      ok: false;
      problem: string;
      /** The server's back-pressure kept the voice from being made: no verdict (not concluded). */
      throttled?: boolean;
      /**
       * The requirement the failure is evidence against (the route that failed it: the model list, the
       * generation): it fails where a test covers it, and every other test that needs the voice is
       * blocked by this one sentence (issue 49: a shared fixture is made once).
       */
      requirement?: RequirementId;
    };

export interface SharedVoice {
  provided: ProvidedSharedVoice;
  /**
   * Deletes `handedOver` (items the run's files handed to the run's end: SettleEntry.item; takes
   * first, most of them the shared voice's), then the voice (unless --keep), and logs out; never throws.
   */
  remove(handedOver?: readonly MadeItem[]): Promise<void>;
}

/** The areas whose suites make their takes with the shared voice. */
export const SHARED_VOICE_AREAS = [
  'audio',
  'errors',
  'lists',
  'takes',
  'websocket',
  'webhooks',
  'security',
  'sequences',
];

export async function generateSharedVoice(config: RunPlan): Promise<SharedVoice> {
  const login = () =>
    HttpSpeakClient.login(
      { baseUrl: config.baseUrl, authUrl: config.authUrl, requestTimeoutMs: config.timeouts.requestMs },
      {
        ...(config.email !== undefined ? { email: config.email } : {}),
        ...(config.password !== undefined ? { password: config.password } : {}),
        ...(config.token !== undefined ? { token: config.token } : {}),
      },
    );
  let api: HttpSpeakClient | undefined;
  const remove = async (voiceId?: string, handedOver: readonly MadeItem[] = []) => {
    const items: MadeItem[] = voiceId ? [...handedOver, { kind: 'voice', id: voiceId }] : [...handedOver];
    // Items handed over by the files are deleted even when this setup never logged in (its login
    // failed, or no area needed a shared voice).
    const client =
      api ?? (items.length > 0 && !config.keep ? await login().catch(() => undefined) : undefined);
    if (!client) return;
    if (!config.keep) await deleteMade(client, items);
    await client.session?.logout().catch(() => undefined);
  };
  if (config.only.length > 0 && !config.only.some((area) => SHARED_VOICE_AREAS.includes(area))) {
    return {
      provided: { ok: false, problem: 'no shared voice: no selected area uses one' },
      remove: (handedOver) => remove(undefined, handedOver),
    };
  }
  try {
    api = await login();
    const models = (await api.get('/v1/speak/models')).json;
    const listed = Array.isArray(models) ? (models as Array<{ name?: unknown; genders?: unknown }>) : [];
    const model = config.model ? listed.find((m) => m.name === config.model) : listed[0];
    if (!model || typeof model.name !== 'string') {
      return failed(
        `no model to generate the shared voice with (GET /v1/speak/models: ${describe(models)})`,
        false,
        requirementOfRoute('GET /v1/speak/models'),
      );
    }
    const genders = Array.isArray(model.genders) ? (model.genders as unknown[]) : [];
    const createdMs = Date.now();
    const createdHeldMs = runThrottle().heldPastMs();
    const exchange = await api.post('/v1/speak/voices/generate', {
      name: `${config.namePrefix}shared-voice`,
      gender: typeof genders[0] === 'string' ? genders[0] : 'female',
      model: model.name,
    });
    const voiceId = (exchange.json as { voice_id?: unknown } | undefined)?.voice_id;
    if (exchange.status < 200 || exchange.status >= 300 || typeof voiceId !== 'string' || !voiceId) {
      return failed(
        `generating the shared voice: POST /v1/speak/voices/generate answered ${exchange.status} ${describe(exchange.json ?? exchange.text)}`,
        false,
        requirementOfRoute('POST /v1/speak/voices/generate'),
      );
    }
    return {
      provided: { ok: true, voiceId, created: exchange.json, createdMs, createdHeldMs },
      remove: (handedOver) => remove(voiceId, handedOver),
    };
  } catch (err) {
    const throttled = err instanceof ClientDiagnostic && err.kind === 'throttled';
    const route = err instanceof ClientDiagnostic ? err.route : undefined;
    return failed(
      `generating the shared voice: ${err instanceof Error ? err.message : String(err)}`,
      throttled,
      route === undefined ? undefined : requirementOfRoute(route),
    );
  }

  function failed(problem: string, throttled = false, requirement?: RequirementId): SharedVoice {
    return {
      provided: {
        ok: false,
        problem,
        ...(throttled ? { throttled } : {}),
        ...(requirement !== undefined ? { requirement } : {}),
      },
      remove: (handedOver) => remove(undefined, handedOver),
    };
  }
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return (text ?? String(value)).slice(0, 300);
}
