/** The websocket part of a reproduction: a Node script replaying a failing test's websocket requests. */

/** Where the replay connects: the server of the run, and the model whose URL the test asked for. */
export interface ReplayTarget {
  baseUrl: string;
  /** The authentication server when it is not the base URL (--auth-url). */
  authUrl?: string;
  /** The model of the websocket address the test asked for, when its evidence shows it. */
  model?: string;
}

/** The model of a websocket address request among a reproduction's lines (`/v1/speak/websocket?model=M`). */
export function websocketModelOf(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    // A model name is a URL query value: unreserved characters or percent escapes (a line may go on
    // with ": HTTP 200" or a quote).
    const match = /\/v1\/speak\/websocket\?(?:[^\s'"]*&)?model=([\w.~%-]+)/.exec(line);
    if (match) return decodeURIComponent(match[1]!);
  }
  return undefined;
}

/**
 * A Node script replaying the websocket requests, runnable as written (issue 41): it logs in with
 * SPEAK_EMAIL/SPEAK_PASSWORD (else SPEAK_TOKEN), asks the server for a fresh websocket URL of the
 * model the test used (a URL is a secret that expires, so the report never holds one; SPEAK_WS_URL
 * overrides), sends each request and prints every message until the socket has been quiet for 10 s.
 */
export function websocketScript(
  requirement: string,
  requests: readonly string[],
  target: ReplayTarget,
): string {
  const requestsJson = JSON.stringify(
    requests.map((r) => safeJson(r)),
    null,
    2,
  );
  return `// Replays the websocket requests of ${requirement} (speakcheck reproduction).
// Usage: SPEAK_EMAIL=… SPEAK_PASSWORD=… node ${requirement}.mjs   (or SPEAK_TOKEN=…; SPEAK_WS_URL='wss://…'
// to use a URL of your own). Needs the ws package (npm install ws); a private CA: NODE_EXTRA_CA_CERTS=ca.pem.
// A voice_id below may be gone: the run deleted what it made (speakcheck run --keep keeps it).
import WebSocket from 'ws';

const BASE = process.env.SPEAK_BASE_URL ?? ${JSON.stringify(target.baseUrl)};
const AUTH = process.env.SPEAK_AUTH_URL ?? ${JSON.stringify(target.authUrl ?? target.baseUrl)};
const MODEL = ${JSON.stringify(target.model ?? null)};
const requests = ${requestsJson};

async function json(response, what) {
  const text = await response.text();
  if (!response.ok) throw new Error(\`\${what} answered HTTP \${response.status}: \${text.slice(0, 200)}\`);
  return JSON.parse(text);
}

async function accessToken() {
  const { SPEAK_EMAIL: email, SPEAK_PASSWORD: password, SPEAK_TOKEN: token } = process.env;
  if (email && password) {
    const login = await fetch(\`\${AUTH}/auth/login\`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    return (await json(login, 'POST /auth/login')).access_token;
  }
  if (token) return token;
  throw new Error('set SPEAK_EMAIL and SPEAK_PASSWORD (or SPEAK_TOKEN, or SPEAK_WS_URL)');
}

async function websocketUrl() {
  if (process.env.SPEAK_WS_URL) return process.env.SPEAK_WS_URL;
  const headers = { authorization: \`Bearer \${await accessToken()}\` };
  const model = MODEL ?? (await json(await fetch(\`\${BASE}/v1/speak/models\`, { headers }), 'GET /v1/speak/models'))[0]?.name;
  const address = await fetch(\`\${BASE}/v1/speak/websocket?model=\${encodeURIComponent(model)}\`, { headers });
  return (await json(address, 'GET /v1/speak/websocket')).websocket_url;
}

let url;
try {
  url = await websocketUrl();
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
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
