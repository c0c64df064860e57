/**
 * The reproduction of a shrunk sequence (suites/sequences.spec.ts): one POSIX sh + curl script that
 * runs as pasted with SPEAK_BASE_URL, SPEAK_EMAIL and SPEAK_PASSWORD set (and SPEAK_SECOND_EMAIL /
 * SPEAK_SECOND_PASSWORD when a step runs as the second customer). It logs in, makes the voice it needs,
 * then runs each step of the sequence in order, printing every answer and its status; the last step
 * is the failing one, with what the model expected. Secrets are never in it: they are variables.
 * Websocket steps run through one node helper the script starts (script-websocket.ts): the
 * connection lives across the steps between its requests, as it did in the run.
 * The report finds it among the test's observations by its key (SEQUENCE_SCRIPT_KEY), never by its text.
 */
import type { AccountName } from './model.ts';
import { type WebsocketBounds, websocketPrelude } from './script-websocket.ts';
import { apiCall, authCall, capture, quoted } from './script-words.ts';

export const SEQUENCE_SCRIPT_HEAD = '#!/bin/sh';
/** The observation keys of a shrunk sequence's script and of its steps (src/report/reproduction-sequence.ts). */
export const SEQUENCE_SCRIPT_KEY = 'sequence.script';
export const SEQUENCE_SHRUNK_KEY = 'sequence.shrunk';

/** One step of a sequence as the report shows it and the script replays it. */
export interface ScriptStep {
  /** `T2 = generate take as primary, text "One."` */
  title: string;
  /** The shell lines of the step (they use the helpers of the prelude). */
  lines: string[];
  /** The step talks to a websocket (script-websocket.ts): the script starts its helper. */
  websocket?: boolean;
}

/** The script: prelude (helpers, logins, the voice of each account used), the steps, the failure. */
export function sequenceScript(o: {
  steps: readonly ScriptStep[];
  accounts: readonly AccountName[];
  model: string;
  gender: string;
  seed: number;
  path?: string;
  failure: string;
  /** The run's auth host when it is not the API's (--auth-url): the script's default for SPEAK_AUTH_URL. */
  authUrl?: string;
  /** The run's bounds of a websocket request (its --request-timeout and --ready-timeout, in seconds). */
  websocket: WebsocketBounds;
}): string[] {
  const websocket = o.steps.some((step) => step.websocket);
  const head = [
    SEQUENCE_SCRIPT_HEAD,
    `# speakcheck stateful sequence: ${o.steps.length} step(s), seed ${o.seed}${o.path ? `, path ${o.path}` : ''}.`,
    '# Needs SPEAK_BASE_URL, SPEAK_EMAIL, SPEAK_PASSWORD' +
      (o.accounts.includes('second') ? ', SPEAK_SECOND_EMAIL, SPEAK_SECOND_PASSWORD' : '') +
      ' (SPEAK_AUTH_URL when auth lives on another host); POSIX sh, curl, sed' +
      (websocket ? ', node >= 20.10 (the websocket steps).' : '.'),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's own parameter expansion
    'B="${SPEAK_BASE_URL%/}"',
    // The auth endpoints live at {auth_url}/auth/… (the API's host unless the run was given another).
    `A="\${SPEAK_AUTH_URL:-${o.authUrl ? o.authUrl.replace(/\/+$/, '').replaceAll('"', '') : '$B'}}"`,
    `field() { sed -n "s/.*\\"$1\\" *: *\\"\\([^\\"]*\\)\\".*/\\1/p"; }`,
    "split() { STATUS=$(printf '%s\\n' \"$BODY\" | tail -n 1); BODY=$(printf '%s\\n' \"$BODY\" | sed '$d'); }",
    'show() { printf \'   -> %s %s\\n\' "$STATUS" "$BODY"; }',
    'call() { if [ $# -ge 3 ]; then BODY=$(curl -sS -X "$1" "$B$2" -H "authorization: Bearer $TOKEN" -H "content-type: application/json" --data-raw "$3" -w "\\n%{http_code}"); else BODY=$(curl -sS -X "$1" "$B$2" -H "authorization: Bearer $TOKEN" -w "\\n%{http_code}"); fi; split; show; }',
    'auth() { BODY=$(curl -sS -X POST "$A$1" -H "content-type: application/json" --data-raw "$2" -w "\\n%{http_code}"); split; show; }',
    'ready() { i=0; while [ $i -lt 120 ]; do S=$(curl -sS "$B$1" -H "authorization: Bearer $TOKEN" | field status); [ "$S" = ready ] && return 0; i=$((i+1)); sleep 1; done; echo "   (not ready after 120 s)"; }',
  ];
  const logins = o.accounts.flatMap((account, i) => {
    const n = i + 1;
    const email = account === 'primary' ? '$SPEAK_EMAIL' : '$SPEAK_SECOND_EMAIL';
    const password = account === 'primary' ? '$SPEAK_PASSWORD' : '$SPEAK_SECOND_PASSWORD';
    const a = account === 'primary' ? 'A1' : 'A2';
    const v = account === 'primary' ? 'V1' : 'V2';
    return [
      `echo "== log in as the ${account} customer, make a voice and wait until it is ready"`,
      authCall('/auth/login', `{"email":"${email}","password":"${password}"}`),
      capture(a, 'access_token'),
      apiCall(account, 'POST', '/v1/speak/voices/generate', {
        name: `speakcheck-sequence-${n}`,
        gender: o.gender,
        model: o.model,
      }),
      capture(v, 'voice_id'),
      `TOKEN="$${a}"; ready "/v1/speak/voices/$${v}"`,
    ];
  });
  const steps = o.steps.flatMap((step, i) => [
    `echo ${quoted(`== step ${i + 1}: ${step.title}`)}`,
    ...step.lines,
  ]);
  const tail = [
    ...(websocket ? ['wsstop'] : []),
    `echo ${quoted(`== the last answer is the failure: ${o.failure}`)}`,
  ];
  return [...head, ...(websocket ? websocketPrelude(o.websocket) : []), ...logins, ...steps, ...tail];
}
