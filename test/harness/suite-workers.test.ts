/** Suite files at a time from what the server showed (src/harness/suite-workers.ts). */
import { expect, test } from 'vitest';
import { runsExpiryFile, suiteFilters } from '../../src/harness/suite-files.ts';
import {
  expiryThreads,
  LOCAL_SUITE_WORKERS,
  NETWORK_ROUND_TRIP_MS,
  REMOTE_SUITE_WORKERS,
  suiteWorkersFor,
} from '../../src/harness/suite-workers.ts';

test('a stack sharing the cores keeps two files at a time, however slowly it answers', () => {
  expect(suiteWorkersFor('embedded', 300)).toBe(LOCAL_SUITE_WORKERS);
  expect(suiteWorkersFor('container', 300)).toBe(LOCAL_SUITE_WORKERS);
});

test('a remote server answering like a process on this machine: two; at a network round trip: more', () => {
  expect(suiteWorkersFor('remote', 2)).toBe(LOCAL_SUITE_WORKERS);
  expect(suiteWorkersFor('remote', NETWORK_ROUND_TRIP_MS - 1)).toBe(LOCAL_SUITE_WORKERS);
  expect(suiteWorkersFor('remote', NETWORK_ROUND_TRIP_MS)).toBe(REMOTE_SUITE_WORKERS);
  expect(REMOTE_SUITE_WORKERS).toBeGreaterThan(LOCAL_SUITE_WORKERS);
});

test('the expiry file gets a thread of its own only when it waits real lifetimes out', () => {
  expect(expiryThreads({ expiryFileRuns: true, waitsLong: true })).toBe(1);
  // The run's own short lifetimes, or a quick run that does not wait a server's out: a shared thread.
  expect(expiryThreads({ expiryFileRuns: true, waitsLong: false })).toBe(0);
  expect(expiryThreads({ expiryFileRuns: false, waitsLong: true })).toBe(0);
});

test('the expiry file runs with every area, or with one of its own areas', () => {
  expect(runsExpiryFile([])).toBe(true);
  expect(runsExpiryFile(['websocket'])).toBe(true);
  expect(runsExpiryFile(['lists', 'voices'])).toBe(false);
  expect(suiteFilters([])).toEqual([]);
  expect(suiteFilters(['auth'])).toEqual(['suites/auth', 'suites/expiry']);
  expect(suiteFilters(['lists'])).toEqual(['suites/lists']);
});
