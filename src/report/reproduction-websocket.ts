/** The websocket part of a reproduction: a Node script replaying a failing test's websocket requests. */

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
