/** Suite files at a time from what the server showed (src/run/suite-workers.ts). */
import { expect, test } from 'vitest';
import {
  LOCAL_SUITE_WORKERS,
  NETWORK_ROUND_TRIP_MS,
  REMOTE_SUITE_WORKERS,
  suiteWorkersFor,
} from '../../src/run/suite-workers.ts';

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
