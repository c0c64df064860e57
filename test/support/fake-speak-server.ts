/**
 * A small fake Speak server (loopback) for the harness's own webhook tests: right in every way the
 * webhook suites look at but the hooks, which a test calls its own way (on time, late, twice, with a
 * wrong body). Takes go waiting → started → progress_50 → ready on a timer (a step every 100 ms, or
 * `stepMs`: a poller surely sees each status of a slower take); voices are ready at once with a ready
 * example take; audio redirects to a signed URL that serves bytes.
 */
import { type FakeServer, sendJson, startFakeServer } from './fake-server.ts';

/** A take as the fake holds it: its body (what GET shows) and the info it gets once ready. */
export interface FakeSpeakTake {
  body: Record<string, unknown>;
  readyInfo: Record<string, unknown>;
}

/** Runs `fn` after `ms` (cleared when the server closes). */
export type Later = (ms: number, fn: () => void) => void;

/** How the fake calls the hooks: the one thing the tests make differ. */
export interface FakeSpeakHooks {
  /** A take moved to `status` (its body already shows it, with its info once ready). */
  takeAdvanced(take: FakeSpeakTake, status: string, later: Later): void;
  /** A voice was made, ready. */
  voiceMade(voice: Record<string, unknown>, later: Later): void;
}

/** A JSON POST to a hook URL, loopback only; its failure is not the test's subject. */
export function postHook(url: unknown, body: unknown): void {
  if (typeof url !== 'string' || !url.startsWith('http://127.0.0.1:')) return;
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
}

const MODEL = {
  name: 'fake-1',
  displayname: 'Fake',
  flags: [],
  languages: ['en-US'],
  genders: ['female'],
  styles: [],
  prosody_types: ['simple'],
};

function takeBody(body: Record<string, unknown>, id: string, status: string): Record<string, unknown> {
  return {
    take_id: id,
    voice_id: body.voice_id ?? null,
    text: body.text ?? 'Example.',
    override_language: null,
    style: null,
    prosody: null,
    status_webhook: body.status_webhook ?? null,
    done_webhook: body.done_webhook ?? null,
    status,
    timestamp_ms: Date.now(),
    info: null,
  };
}

export async function startFakeSpeakServer(o: {
  email: string;
  password: string;
  hooks: FakeSpeakHooks;
  /** How long a take stays in each status before the next (default 100 ms). */
  stepMs?: number;
}): Promise<FakeServer> {
  const stepMs = o.stepMs ?? 100;
  const takes = new Map<string, FakeSpeakTake>();
  const voices = new Map<string, Record<string, unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  const access = `fake-access-${Math.random().toString(36).slice(2)}`;
  let counter = 0;
  const later: Later = (ms, fn) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const advance = (take: FakeSpeakTake, status: string) => {
    take.body.status = status;
    if (status === 'ready') take.body.info = take.readyInfo;
    o.hooks.takeAdvanced(take, status, later);
  };
  const server = await startFakeServer((req, res) => {
    const path = new URL(req.url, 'http://fake').pathname;
    if (path === '/v1/speak/version') return sendJson(res, 200, { version: 1, minor: 0 });
    if (path === '/auth/login') {
      const body = JSON.parse(req.body || '{}') as { email?: string; password?: string };
      if (body.email !== o.email || body.password !== o.password) return sendJson(res, 401, { detail: 'no' });
      return sendJson(res, 200, { access_token: access, refresh_token: `${access}-refresh` });
    }
    if (path.startsWith('/signed/')) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(Buffer.alloc(200, 1));
    }
    if (req.headers.authorization !== `Bearer ${access}`) return sendJson(res, 401, { detail: 'token' });
    if (path === '/v1/speak/models') return sendJson(res, 200, [MODEL]);
    const body = JSON.parse(req.body || '{}') as Record<string, unknown>;
    if (req.method === 'POST' && path === '/v1/speak/voices/generate') {
      const id = `voice-${++counter}`;
      const exampleId = `example-${counter}`;
      const example = takeBody({ voice_id: id }, exampleId, 'ready');
      example.info = { duration: 22050, audio_rate: 22050, normalized_text: ['Example.'] };
      takes.set(exampleId, { body: example, readyInfo: example.info as Record<string, unknown> });
      const voice = {
        voice_id: id,
        name: body.name,
        model: MODEL.name,
        gender: 'female',
        default_style: null,
        default_prosody: null,
        example_take_id: exampleId,
        example_take: null,
        status_webhook: body.status_webhook ?? null,
        done_webhook: body.done_webhook ?? null,
        status: 'ready',
        timestamp_ms: Date.now(),
      };
      voices.set(id, voice);
      o.hooks.voiceMade(voice, later);
      return sendJson(res, 200, voice);
    }
    if (req.method === 'POST' && path === '/v1/speak/takes/generate') {
      const id = `take-${++counter}`;
      const take: FakeSpeakTake = {
        body: takeBody(body, id, 'waiting'),
        readyInfo: { duration: 22050, audio_rate: 22050, normalized_text: [String(body.text)] },
      };
      takes.set(id, take);
      later(stepMs, () => advance(take, 'started'));
      later(2 * stepMs, () => advance(take, 'progress_50'));
      later(3 * stepMs, () => advance(take, 'ready'));
      return sendJson(res, 200, take.body);
    }
    const item = /^\/v1\/speak\/(takes|voices)\/([^/]+)(?:\/([a-z0-9]+))?$/.exec(path);
    if (item) {
      const [, kind, id, format] = item as unknown as [string, string, string, string | undefined];
      if (req.method === 'DELETE') return sendJson(res, 200, true);
      const found = kind === 'voices' ? voices.get(id) : takes.get(id)?.body;
      if (!found) return sendJson(res, 404, { detail: `no ${kind.slice(0, -1)}` });
      if (format) {
        res.writeHead(307, {
          location: `http://${req.headers.host}/signed/${id}.${format}?X-Amz-Signature=abc`,
        });
        return res.end();
      }
      return sendJson(res, 200, found);
    }
    return sendJson(res, 404, { detail: `no route ${path}` });
  });
  return {
    ...server,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await server.close();
    },
  };
}
