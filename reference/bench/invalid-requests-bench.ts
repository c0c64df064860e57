/**
 * "N invalid requests: 0 5xx" (issue 17): schema-invalid and hostile requests across every operation
 * of the reference stack, counted by status.
 *   node --import tsx reference/bench/invalid-requests-bench.ts [--requests 10000] [--concurrency 8] [--seed 17]
 * The stack runs in this process on loopback (no synthesis workers: nothing here is valid enough to
 * be synthesized). Requests go over node:http so that any method and any raw path can be sent.
 * Kinds, drawn in turn with a seeded PRNG: list queries with integer extremes, negative and
 * non-integer values, huge strings and repeated parameters; bodies that break the schemas (wrong
 * types, out-of-range prosody, unknown fields, empty strings, huge texts, deep nesting, `__proto__`);
 * malformed JSON, wrong and missing content types; unknown, huge and badly percent-encoded ids;
 * missing, malformed and forged bearer tokens; undeclared methods (PUT, PATCH, TRACE, QUERY, ...).
 * Prints the machine, the command, the count per status class and per status, and exits 1 on any 5xx
 * (listing the first few).
 */
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { MODELS } from '../models/catalogue.ts';
import { startReferenceStack } from '../server.ts';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '8' },
    seed: { type: 'string', default: '17' },
  },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);
const SEED = Number(values.seed);

interface Hostile {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** pure-rand's seeded xoroshiro128+, so a run can be repeated exactly. */
const rng = xoroshiro128plus(SEED);
const random = (): number => uniformFloat64(rng);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const randomString = (length: number) =>
  Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0xd7ff))).join('');

const INTEGERS = [
  '0',
  '-1',
  '73147359744',
  '536870911',
  '9007199254740992',
  '9223372036854775808',
  '-9223372036854775809',
  '1e400',
  '1.5',
  '0x10',
  '',
  'NaN',
  '1000000000000000000000000000000',
];
const BAD_VALUES: unknown[] = [
  null,
  -1,
  1e308,
  '',
  ' ',
  [],
  {},
  true,
  'x'.repeat(100_000),
  [[[[[[[[[[[]]]]]]]]]]],
  { __proto__: { polluted: 1 } },
  '\u0000',
  '\ud800',
  -(2 ** 63),
];
const BODY_OPERATIONS = [
  '/auth/login',
  '/auth/refresh',
  '/auth/logout',
  '/v1/speak/voices/generate',
  '/v1/speak/takes/generate',
  '/v1/speak/voices/VOICE',
] as const;
const FIELDS = [
  'email',
  'password',
  'refresh_token',
  'name',
  'gender',
  'model',
  'text',
  'voice_id',
  'prosody',
  'style',
  'override_language',
  'default_prosody',
  'default_style',
  'example_take',
  'status_webhook',
  'done_webhook',
  'user_data',
  'description',
  'unknown_field',
];
const GET_PATHS = [
  '/v1/speak/models/ID',
  '/v1/speak/voices/ID',
  '/v1/speak/takes/ID',
  '/v1/speak/takes/ID/wav',
  '/v1/speak/takes/ID/mp3',
  '/v1/speak/takes/ID/ogg',
  '/v1/speak/websocket/ID',
  '/v1/speak/websocket?model=ID',
  '/signed/audio/ID/wav?X-Amz-Signature=ID&X-Amz-Expires=ID',
];
const IDS = [
  'vc_nope',
  'tk_nope',
  '%zz',
  '%',
  '%00',
  '..%2F..%2Fetc%2Fpasswd',
  'x'.repeat(8_000),
  '%F0%9F%92%A9',
  '%20',
];
const DECLARED: Record<string, string> = {
  '/v1/speak/models': 'GET',
  '/v1/speak/voices': 'GET',
  '/v1/speak/takes': 'GET',
  '/v1/speak/voices/generate': 'POST',
  '/v1/speak/takes/generate': 'POST',
  '/v1/speak/version': 'GET',
  '/auth/login': 'POST',
};
const METHODS = ['PUT', 'PATCH', 'TRACE', 'QUERY', 'OPTIONS', 'DELETE', 'POST', 'GET', 'SEARCH', 'PROPFIND'];

function hostile(token: string, voiceId: string): Hostile {
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  switch (Math.floor(random() * 6)) {
    case 0: {
      const names = ['length', 'page', 'older', 'newer', pick(['voice_id', 'take_id'])];
      const pairs = Array.from({ length: 1 + Math.floor(random() * 5) }, () => {
        const v = random() < 0.1 ? randomString(2_000) : pick(INTEGERS);
        return `${pick(names)}=${encodeURIComponent(v)}`;
      });
      return {
        kind: 'list query',
        method: 'GET',
        path: `${pick(['/v1/speak/voices', '/v1/speak/takes'])}?${pairs.join('&')}`,
        headers: auth,
      };
    }
    case 1: {
      const body: Record<string, unknown> = {
        text: 'Hello.',
        voice_id: voiceId,
        name: 'n',
        gender: MODELS[0]!.genders[0],
        model: MODELS[0]!.name,
      };
      for (let i = 0; i < 1 + Math.floor(random() * 3); i += 1) body[pick(FIELDS)] = pick(BAD_VALUES);
      const payload = random() < 0.2 ? [body, pick(BAD_VALUES)] : body;
      const path = pick(BODY_OPERATIONS).replace('VOICE', voiceId);
      return {
        kind: 'schema-invalid body',
        method: 'POST',
        path,
        headers: json,
        body: JSON.stringify(payload),
      };
    }
    case 2: {
      const raw = pick([
        '{',
        '{"text":',
        'nul',
        '\u0000',
        '[1,2',
        '{"a":1}}',
        '{"__proto__":{"x":1}}',
        '"',
        randomString(300),
      ]);
      const contentType = pick([
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        '',
      ]);
      const headers: Record<string, string> = { ...auth };
      if (contentType) headers['content-type'] = contentType;
      return {
        kind: 'malformed body / content type',
        method: 'POST',
        path: pick(BODY_OPERATIONS).replace('VOICE', voiceId),
        headers,
        body: raw,
      };
    }
    case 3:
      return {
        kind: 'hostile id',
        method: pick(['GET', 'DELETE']),
        path: pick(GET_PATHS).replaceAll('ID', pick(IDS)),
        headers: auth,
      };
    case 4: {
      const authorization = pick([
        '',
        'Bearer',
        'Bearer ',
        `Bearer ${token}x`,
        `Basic ${token}`,
        'Bearer a.b.c',
        `Bearer ${'x'.repeat(4_000)}`,
        `bearer\t${token.slice(0, 10)}`,
      ]);
      const headers: Record<string, string> = authorization ? { authorization } : {};
      return {
        kind: 'bad credentials',
        method: 'GET',
        path: pick([
          '/v1/speak/models',
          '/v1/speak/voices',
          `/v1/speak/voices/${voiceId}`,
          '/v1/speak/takes?length=1',
        ]),
        headers,
      };
    }
    default: {
      const path = pick(Object.keys(DECLARED));
      const method = pick(METHODS.filter((m) => m !== DECLARED[path]));
      return { kind: 'undeclared method', method, path, headers: { ...auth } };
    }
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(base: URL, r: Hostile): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: r.method,
        path: r.path,
        headers: r.headers,
        agent,
        timeout: 30_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(-1));
      },
    );
    // A request the client library or the server refuses at the socket level counts as -1.
    req.on('error', () => resolve(-1));
    req.on('timeout', () => req.destroy());
    req.end(r.body);
  });
}

console.log(
  `command: node --import tsx reference/bench/invalid-requests-bench.ts --requests ${REQUESTS} --concurrency ${CONCURRENCY} --seed ${SEED}`,
);
console.log(
  `machine: ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);

const stack = await startReferenceStack({ workers: 0, permanentToken: true, log: () => {} });
let fiveXx = 0;
try {
  const base = new URL(stack.baseUrl);
  const token = stack.permanentToken!;
  const voice = await fetch(`${stack.baseUrl}/v1/speak/voices/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', gender: MODELS[0]!.genders[0], model: MODELS[0]!.name }),
  });
  const voiceId = ((await voice.json()) as { voice_id: string }).voice_id;
  const byStatus = new Map<number, number>();
  const byKind = new Map<string, number>();
  const serverErrors: string[] = [];
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < REQUESTS) {
      next += 1;
      const r = hostile(token, voiceId);
      const status = await send(base, r);
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      byKind.set(r.kind, (byKind.get(r.kind) ?? 0) + 1);
      if (status >= 500 || status < 0) serverErrors.push(`${status} ${r.method} ${r.path.slice(0, 120)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  const seconds = (performance.now() - started) / 1000;
  fiveXx = [...byStatus].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const classes = ['2xx', '3xx', '4xx', '5xx'].map(
    (c) =>
      `${c} ${[...byStatus].filter(([s]) => Math.floor(s / 100) === Number(c[0])).reduce((n, [, k]) => n + k, 0)}`,
  );
  console.log(`requests: ${REQUESTS} in ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(0)}/s)`);
  console.log(
    `by kind: ${[...byKind]
      .sort()
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  console.log(
    `by status: ${[...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ')}`,
  );
  console.log(`classes: ${classes.join(', ')}; no answer (socket error): ${byStatus.get(-1) ?? 0}`);
  console.log(`result: ${REQUESTS} invalid requests: ${fiveXx} 5xx`);
  for (const line of serverErrors.slice(0, 10)) console.log(`  ${line}`);
  // A request the server never answered is as bad as a 5xx.
  if (byStatus.get(-1)) fiveXx += byStatus.get(-1)!;
} finally {
  agent.destroy();
  await stack.close();
}
process.exit(fiveXx > 0 ? 1 : 0);
