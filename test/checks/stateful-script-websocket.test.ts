/**
 * The websocket steps of a sequence's reproduction script (src/checks/stateful/script-websocket.ts):
 * real steps through the script's node helper, not comments. Running them is
 * test/report/reproduction-sequence-websocket.int.test.ts.
 */
import { expect, test } from 'vitest';
import { sequenceScript } from '../../src/checks/stateful/script.ts';
import {
  websocketOpenLines,
  websocketPrelude,
  websocketRequestLines,
} from '../../src/checks/stateful/script-websocket.ts';

const script = (websocket: boolean) =>
  sequenceScript({
    steps: [
      { title: 'W1 = open', lines: websocketOpenLines('primary', 1, 'm 1'), websocket },
      { title: 'GET', lines: ['TOKEN="$A1"; call GET /x'] },
    ],
    accounts: ['primary'],
    model: 'm 1',
    gender: 'female',
    seed: 1,
    failure: 'f',
    websocket: { firstMessageS: 15, endS: 60 },
  }).join('\n');

test('a script with a websocket step starts the helper before the logins and stops it after the last step', () => {
  const s = script(true);
  expect(s.indexOf('\nwsstart\n')).toBeGreaterThan(0);
  expect(s.indexOf('\nwsstart\n')).toBeLessThan(s.indexOf('== log in'));
  expect(s.indexOf('\nwsstop\n')).toBeGreaterThan(s.indexOf('step 2: GET'));
  expect(s).toContain('node >= 20.10');
  // Node's WebSocket is global from 22; 20.10-21 need the flag, chosen at run time.
  expect(s).toContain('NODE_WS=--experimental-websocket');
});

test('a script without websocket steps has no helper', () => {
  const s = script(false);
  expect(s).not.toContain('WSJS=');
  expect(s).not.toContain('wsstart');
  expect(s).not.toContain('node');
});

test('the helper is one single-quoted word with the bounds as its arguments', () => {
  const [, source, start] = websocketPrelude({ firstMessageS: 14.2, endS: 60 });
  expect(source).toMatch(/^WSJS='[^']*'$/s);
  expect(start).toContain('-e "$WSJS" 15 60 <"$D/in" >"$D/out" &');
});

test('opening asks the API for a URL with the account token, then the helper connects', () => {
  expect(websocketOpenLines('second', 2, 'm 1')).toEqual([
    'TOKEN="$A2"; call GET "/v1/speak/websocket?model=m%201"',
    `URL=$(printf '%s' "$BODY" | field websocket_url)`,
    'ws "open 2 $URL"',
  ]);
});

test("a request is the run's frame with the script's voice, its take read into T<n>", () => {
  const lines = websocketRequestLines({
    account: 'primary',
    socket: 1,
    take: 3,
    requestId: 7,
    text: `It's "one".`,
  });
  expect(lines).toEqual([
    `FRAME='{"command":"/takes/generate","request_id":7,"data":{"text":"It'"'"'s \\"one\\".","voice_id":"'"$V1"'"}}'`,
    'ws "send 1 $FRAME"',
    'T3=$WSTAKE',
  ]);
});
