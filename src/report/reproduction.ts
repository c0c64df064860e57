/**
 * A runnable reproduction of a failed requirement, built from its (already redacted) evidence:
 * one curl command line per HTTP exchange, and for websocket requests the transcript plus a small
 * Node script (the `ws` package) that replays them. Secrets never come back: the redacted places
 * become shell variables the developer sets ($SPEAK_TOKEN, $SPEAK_PASSWORD, $SPEAK_REFRESH_TOKEN,
 * $SPEAK_WS_URL), and a request that carried no Authorization (a signed URL) gets none in its curl.
 * URL signatures stay redacted (they expired long ago anyway): such a curl says so.
 */
import type { EvidenceEntry } from '../evidence/evidence.ts';
import { REDACTED } from '../evidence/redact.ts';

export interface Reproduction {
  /** One curl command line per HTTP exchange, in the order they were made. */
  curl: string[];
  /** The websocket requests the failing tests sent (redacted JSON), in order. */
  websocket: string[];
  /** The websocket exchanges as they went: upgrade answers, each request's outcome, statuses, frames, timings. */
  transcript: string[];
  /** What the reproduction cannot show exactly (cut or binary bodies, redacted signatures). */
  notes: string[];
}

/** Evidence of a failing requirement beyond this many exchanges is left to the report's evidence. */
export const MAX_REPRODUCED_EXCHANGES = 12;

/** Request headers curl sets itself, or that describe the transport rather than the request. */
const TRANSPORT_HEADERS = /^(host|content-length|connection|transfer-encoding|accept-encoding|user-agent)$/i;

/** The shell variable a redacted JSON field of a request body stands for. */
function variableForKey(key: string): string {
  if (/password|passwd/i.test(key)) return 'SPEAK_PASSWORD';
  if (/refresh/i.test(key)) return 'SPEAK_REFRESH_TOKEN';
  return 'SPEAK_TOKEN';
}

/** A shell word in double quotes: everything literal except the `$SPEAK_…` variables we put in. */
function doubleQuoted(text: string): string {
  const escaped = text.replace(/[\\"`$]/g, (c) => `\\${c}`).replace(/\\\$(SPEAK_[A-Z_]+)/g, '$$$1');
  return `"${escaped}"`;
}

function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function isWebsocketEntry(e: EvidenceEntry): boolean {
  return e.method.startsWith('WS ') || e.method.startsWith('GET (websocket');
}

/** The request body with every redacted secret field as its shell variable. */
function bodyWithVariables(body: string): string {
  return body.replace(
    new RegExp(`"([A-Za-z0-9_-]*)"(\\s*:\\s*)"${REDACTED}"`, 'g'),
    (_whole, key: string, colon: string) => `"${key}"${colon}"$${variableForKey(key)}"`,
  );
}

/** One curl command line for an HTTP exchange (null for websocket entries). */
export function curlFor(
  e: EvidenceEntry,
  o: ReproductionOptions = {},
): { command: string; notes: string[] } | null {
  if (isWebsocketEntry(e)) return null;
  const notes: string[] = [];
  const parts = ['curl', '-sS', '-i'];
  // The private CA the run trusted (--ca-file): curl trusts it the same way, never -k.
  if (o.caFile && e.url.startsWith('https:')) parts.push('--cacert', singleQuoted(o.caFile));
  if (e.method !== 'GET') parts.push('-X', e.method);
  for (const [name, value] of Object.entries(e.requestHeaders)) {
    if (TRANSPORT_HEADERS.test(name)) continue;
    if (/^authorization$/i.test(name)) {
      parts.push('-H', doubleQuoted('Authorization: Bearer $SPEAK_TOKEN'));
      continue;
    }
    parts.push('-H', singleQuoted(`${name}: ${value}`));
  }
  if (e.requestBody !== undefined && e.requestBody !== '') {
    if (/^<\d+ bytes of /.test(e.requestBody)) {
      notes.push(`${e.method} ${e.url}: the request body was binary (${e.requestBody}); send your own file.`);
      parts.push('--data-binary', '@FILE');
    } else {
      if (/… \(\d+ bytes in all\)$/.test(e.requestBody))
        notes.push(
          `${e.method} ${e.url}: the request body is cut in the evidence; the curl sends the excerpt.`,
        );
      parts.push('--data-raw', doubleQuoted(bodyWithVariables(e.requestBody)));
    }
  }
  if (e.url.includes(REDACTED))
    notes.push(`${e.method} ${e.url}: a signature in the URL is redacted; ask the API for a fresh URL.`);
  parts.push(singleQuoted(e.url));
  return { command: parts.join(' '), notes };
}

export interface ReproductionOptions {
  /** `--ca-file`: the private CA the run trusted for https. */
  caFile?: string;
}

/** The reproduction of the given exchanges (those of a failed requirement's tests). */
export function reproductionOf(
  evidence: readonly EvidenceEntry[],
  o: ReproductionOptions = {},
): Reproduction {
  // A 429 or 503 was back-pressure the client waited out and sent again (src/client/http.ts): the
  // retry is in the evidence too, so replaying the throttled attempt would send it twice.
  const answered = evidence.filter((e) => e.status !== 429 && e.status !== 503);
  const kept =
    answered.length > MAX_REPRODUCED_EXCHANGES ? answered.slice(-MAX_REPRODUCED_EXCHANGES) : answered;
  const out: Reproduction = { curl: [], websocket: [], transcript: [], notes: [] };
  if (kept.length < answered.length)
    out.notes.push(`Only the last ${kept.length} of ${answered.length} exchanges are reproduced.`);
  for (const e of kept) {
    if (e.method.startsWith('WS ') && e.requestBody) out.websocket.push(e.requestBody);
    if (isWebsocketEntry(e)) out.transcript.push(transcriptLine(e));
    const curl = curlFor(e, o);
    if (!curl) continue;
    out.curl.push(curl.command);
    out.notes.push(...curl.notes);
  }
  return out;
}

function transcriptLine(e: EvidenceEntry): string {
  const answer = e.method.startsWith('WS ')
    ? e.body
    : `HTTP ${e.status ?? 'no answer'}${e.body ? ` ${e.body}` : ''}`;
  return `${e.method} ${e.url}: ${answer}${e.error ? ` (${e.error})` : ''}`;
}

/**
 * A Node script replaying the websocket requests: it connects to $SPEAK_WS_URL (a secret, so never
 * in the report: get a fresh one from the API, see the curl lines), sends each request and prints
 * every message until the socket has been quiet for 10 s.
 */
export function websocketScript(requirement: string, requests: readonly string[]): string {
  return `// Replays the websocket requests of ${requirement} (speakcheck reproduction).
// Usage: SPEAK_WS_URL='wss://…' node ${requirement}.mjs   (needs the ws package: npm install ws)
import WebSocket from 'ws';

const url = process.env.SPEAK_WS_URL;
if (!url) {
  console.error('Set SPEAK_WS_URL to a fresh websocket URL of the server under test.');
  process.exit(2);
}
const requests = ${JSON.stringify(
    requests.map((r) => safeJson(r)),
    null,
    2,
  )};
const socket = new WebSocket(url);
let quiet;
const idle = () => {
  clearTimeout(quiet);
  quiet = setTimeout(() => socket.close(), 10_000);
};
socket.on('open', () => {
  for (const request of requests) socket.send(JSON.stringify(request));
  idle();
});
socket.on('message', (data, isBinary) => {
  console.log(isBinary ? \`<\${data.length} bytes of audio>\` : data.toString());
  idle();
});
socket.on('unexpected-response', (_req, res) => {
  console.error(\`upgrade refused: HTTP \${res.statusCode}\`);
  process.exitCode = 1;
});
socket.on('error', (error) => {
  console.error(error.message);
  process.exitCode = 1;
});
socket.on('close', (code, reason) => {
  clearTimeout(quiet);
  console.log(\`closed \${code} \${reason}\`);
});
`;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
