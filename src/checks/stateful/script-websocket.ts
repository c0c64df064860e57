/**
 * The websocket steps of a sequence's reproduction script (script.ts). curl cannot send websocket
 * frames, and a connection must outlive the steps between its requests (the n-th request of one
 * connection is what SEQ-WS-REQUESTS-ANY-COUNT speaks of), so the script starts one Node process
 * (`node -e`, Node's own WebSocket: global from Node 22, behind --experimental-websocket from 20.10)
 * that holds the connections; each websocket step writes one line to it through a fifo ("open K
 * URL", "send K FRAME") and prints what it answers through another, until a line starting with "."
 * ends the step (with the take id the request made, when one did). POSIX sh: mkfifo, fds 3 and 4.
 * The helper bounds every wait itself (the run's --request-timeout for a first message, its
 * --ready-timeout for the end), so a request the server never answers ends the step with that said.
 */
import type { AccountName } from './model.ts';
import { apiCall, capture, quoted } from './script-words.ts';

/** How long the helper waits, in seconds: for the first message of a request (and an open), and for its end. */
export interface WebsocketBounds {
  firstMessageS: number;
  endS: number;
}

/**
 * The helper, CommonJS for `node -e` (argv: the two bounds). It prints every text message, a sum of
 * the audio messages of the request, and how the request ended. No single quote inside: the script
 * holds it in single quotes as it is.
 */
const HELPER_JS = String.raw`
const [first, end] = process.argv.slice(1).map(Number);
const sockets = new Map();
const say = (line) => process.stdout.write(line + "\n");
const short = (text) => (text.length > 600 ? text.slice(0, 600) + " ..." : text);
const parsed = (text) => { try { return JSON.parse(text); } catch { return undefined; } };
function frameOf(data) {
  const b = Buffer.from(data);
  if (b.length < 8 || b.toString("ascii", 0, 4) !== "JSON") return { bytes: b.length };
  const n = b.readUInt32LE(4);
  const meta = parsed(b.toString("utf8", 8, 8 + n));
  return meta ? { meta, audio: b.length - 8 - n } : { bytes: b.length };
}
function open(key, url) {
  return new Promise((resolve) => {
    const s = { inbox: [], wake: () => {}, closed: "" };
    let settled = false;
    const settle = (line) => { if (!settled) { settled = true; clearTimeout(timer); say(line); resolve(); } };
    const timer = setTimeout(() => settle("W" + key + " did not open within " + first + " s"), first * 1000);
    let ws;
    try { ws = new WebSocket(url); } catch (e) { return settle("W" + key + " could not open: " + e.message); }
    s.ws = ws;
    ws.binaryType = "arraybuffer";
    ws.onopen = () => { sockets.set(key, s); settle("W" + key + " open"); };
    ws.onmessage = (e) => { s.inbox.push(e.data); s.wake(); };
    ws.onclose = (e) => {
      s.closed = "W" + key + " closed " + e.code + (e.reason ? " " + e.reason : "");
      settle("W" + key + " could not open (" + s.closed + ")");
      s.wake();
    };
  });
}
async function send(key, frame) {
  const s = sockets.get(key);
  if (!s) { say("W" + key + " is not open"); return ""; }
  if (s.closed) { say(s.closed); return ""; }
  const id = (parsed(frame) || {}).request_id;
  s.ws.send(frame);
  say("-> " + short(frame));
  const started = Date.now();
  let answered = false, status = "", takeId = "", audio = 0, bytes = 0, marker = false, doneAt = 0;
  for (;;) {
    while (s.inbox.length > 0) {
      const data = s.inbox.shift();
      if (typeof data === "string") {
        say("<- " + short(data));
        const m = parsed(data);
        if (!m || m.request_id !== id) continue;
        answered = true;
        const take = m.data && typeof m.data === "object" ? m.data : m;
        if (typeof take.take_id === "string") takeId = take.take_id;
        if (typeof take.status === "string") status = take.status;
        continue;
      }
      const f = frameOf(data);
      if (f.meta && (f.meta.request_id === id || (takeId && f.meta.take_id === takeId))) {
        answered = true;
        if (f.audio === 0) marker = true; else { audio += 1; bytes += f.audio; }
      } else say("<- a binary message of no request of this step (" + (f.bytes ?? f.audio) + " bytes)");
    }
    const done = ["ready", "error", "timeout"].includes(status);
    if (done && !doneAt) doneAt = Date.now();
    if (done && (marker || status !== "ready")) break;
    if (doneAt && Date.now() - doneAt >= 5000) { say("(no end-of-take audio message within 5 s of the ready status)"); break; }
    if (s.closed) { say(s.closed); break; }
    const left = (answered ? started + end * 1000 : started + first * 1000) - Date.now();
    if (left <= 0) {
      say(answered
        ? "(request " + id + " did not end within " + end + " s; its last status: " + (status || "none") + ")"
        : "(no message answered request " + id + " on W" + key + " within " + first + " s)");
      break;
    }
    const wait = doneAt ? Math.min(left, doneAt + 5000 - Date.now()) : left;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, wait);
      s.wake = () => { clearTimeout(timer); resolve(); };
    });
  }
  if (audio > 0 || marker) say("<- " + audio + " audio message(s), " + bytes + " bytes" + (marker ? ", then the end-of-take message" : ""));
  if (status) say("request " + id + " ended with status " + status + (takeId ? " (take " + takeId + ")" : ""));
  return takeId;
}
let queue = Promise.resolve();
const lines = require("node:readline").createInterface({ input: process.stdin });
lines.on("line", (line) => {
  queue = queue.then(async () => {
    const [verb, key, ...rest] = line.split(" ");
    let take = "";
    try {
      if (verb === "open") await open(key, rest.join(" "));
      else if (verb === "send") take = await send(key, rest.join(" "));
      else say("unknown helper command " + verb);
    } catch (e) { say("! " + e.message); }
    say("." + take);
  });
});
lines.on("close", () => queue.then(() => { for (const s of sockets.values()) s.ws.close(); process.exit(0); }));
`.trim();

/**
 * The prelude's lines when a step uses a websocket: the helper's source, `wsstart` (the helper and
 * its fifos), `ws LINE` (one line to the helper, its answer printed, the take id in $WSTAKE) and
 * `wsstop` (the helper's input closed: it closes the connections and ends).
 */
export function websocketPrelude(bounds: WebsocketBounds): string[] {
  const first = Math.max(1, Math.ceil(bounds.firstMessageS));
  const end = Math.max(1, Math.ceil(bounds.endS));
  return [
    '# The websocket steps: one node process (Node >= 20.10, its own WebSocket) holds the connections; each step talks to it through two fifos.',
    `WSJS=${quoted(HELPER_JS)}`,
    `wsstart() { D="\${TMPDIR:-/tmp}/speakcheck-ws.$$"; rm -rf "$D"; mkdir "$D" && mkfifo "$D/in" "$D/out" || return 1; if node -e 'typeof WebSocket === "function" || process.exit(1)' 2>/dev/null; then NODE_WS=; else NODE_WS=--experimental-websocket; fi; node $NODE_WS -e "$WSJS" ${first} ${end} <"$D/in" >"$D/out" & WSPID=$!; exec 3>"$D/in" 4<"$D/out"; rm -rf "$D"; }`,
    `ws() { WSTAKE=; kill -0 "$WSPID" 2>/dev/null || { echo '   (the websocket helper is not running: node >= 20.10 is needed)'; return 1; }; printf '%s\\n' "$1" >&3; while IFS= read -r L <&4; do case "$L" in .*) WSTAKE=\${L#.}; return 0;; esac; printf '   %s\\n' "$L"; done; echo '   (the websocket helper ended)'; }`,
    'wsstop() { exec 3>&- 4<&-; wait "$WSPID" 2>/dev/null; }',
    'wsstart',
  ];
}

/** The lines opening connection W`key` as `account`: a fresh URL from the API, then the helper connects. */
export function websocketOpenLines(account: AccountName, key: number, model: string): string[] {
  return [
    apiCall(account, 'GET', `/v1/speak/websocket?model=${encodeURIComponent(model)}`),
    capture('URL', 'websocket_url'),
    `ws "open ${key} $URL"`,
  ];
}

/**
 * The lines of one take request on W`socket`, as the run sent it (the same request id, no `stream`:
 * the default mode), the voice the script made; the take it made becomes T`take`.
 */
export function websocketRequestLines(o: {
  account: AccountName;
  socket: number;
  take: number;
  requestId: number;
  text: string;
}): string[] {
  const placeholder = '@@VOICE@@';
  const frame = JSON.stringify({
    command: '/takes/generate',
    request_id: o.requestId,
    data: { text: o.text, voice_id: placeholder },
  });
  const [before, after] = frame.split(placeholder) as [string, string];
  const voice = o.account === 'primary' ? '$V1' : '$V2';
  return [
    `FRAME=${quoted(before)}"${voice}"${quoted(after)}`,
    `ws "send ${o.socket} $FRAME"`,
    `T${o.take}=$WSTAKE`,
  ];
}
