/** The lifetimes of the stack a conformance run starts itself (src/stack/run-lifetimes.ts). */
import { expect, test } from 'vitest';
import { DEFAULTS } from '../../src/config/resolve.ts';
import {
  lifetimeServeArgs,
  lifetimesSentence,
  QUICK_RUN_LIFETIMES,
  runStackLifetimes,
} from '../../src/stack/run-lifetimes.ts';

test('a quick run gets lifetimes it waits out; --expiry full keeps the real ones', () => {
  expect(runStackLifetimes('quick')).toEqual(QUICK_RUN_LIFETIMES);
  expect(runStackLifetimes(undefined)).toEqual(QUICK_RUN_LIFETIMES);
  expect(runStackLifetimes('full')).toBeUndefined();
});

test('each short lifetime is within what a quick run waits by default (--max-expiry-wait)', () => {
  for (const seconds of Object.values(QUICK_RUN_LIFETIMES))
    expect(seconds).toBeLessThanOrEqual(DEFAULTS.maxExpiryWaitS);
});

test('the serve flags and the header sentence name each lifetime', () => {
  const lifetimes = { accessTokenS: 4, signedUrlS: 5, websocketUrlS: 6 };
  expect(lifetimeServeArgs(lifetimes)).toEqual([
    '--access-token-ttl',
    '4',
    '--signed-url-ttl',
    '5',
    '--websocket-url-ttl',
    '6',
  ]);
  expect(lifetimesSentence(lifetimes)).toMatch(
    /access tokens 4 s, signed audio URLs 5 s, websocket URLs 6 s/,
  );
});
