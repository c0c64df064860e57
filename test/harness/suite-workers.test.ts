/** Suite files at a time from what the server showed (src/harness/suite-workers.ts). */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { areasOfRequirements } from '../../src/config/requirement-selection.ts';
import {
  EXPIRY_AREAS,
  EXPIRY_REQUIREMENTS,
  runsExpiryFile,
  suiteFilters,
} from '../../src/harness/suite-files.ts';
import {
  expiryThreads,
  LOCAL_SUITE_WORKERS,
  NETWORK_ROUND_TRIP_MS,
  REMOTE_SUITE_WORKERS,
  suiteWorkersFor,
} from '../../src/harness/suite-workers.ts';

const REPO = join(import.meta.dirname, '..', '..');

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
  expect(runsExpiryFile({ only: [] })).toBe(true);
  expect(runsExpiryFile({ only: ['websocket'] })).toBe(true);
  expect(runsExpiryFile({ only: ['lists', 'voices'] })).toBe(false);
  expect(suiteFilters({ only: [] })).toEqual([]);
  expect(suiteFilters({ only: ['auth'] })).toEqual(['suites/auth', 'suites/expiry']);
  expect(suiteFilters({ only: ['lists'] })).toEqual(['suites/lists']);
});

test('a requirement selection loads the expiry file only for a requirement it judges', () => {
  expect(suiteFilters({ only: ['auth'], requirements: ['AUTH-LOGIN-FAIL-401'] })).toEqual(['suites/auth']);
  expect(suiteFilters({ only: ['auth'], requirements: ['AUTH-EXPIRED-TOKEN-401'] })).toEqual([
    'suites/auth',
    'suites/expiry',
  ]);
  expect(runsExpiryFile({ only: ['websocket', 'lists'], requirements: ['WS-OPEN-PAST-EXPIRY'] })).toBe(true);
  expect(runsExpiryFile({ only: ['websocket'], requirements: ['WS-SERIALIZED'] })).toBe(false);
});

test('EXPIRY_REQUIREMENTS are the ids the expiry file covers, and EXPIRY_AREAS their areas', () => {
  const source = readFileSync(join(REPO, 'suites', 'expiry.spec.ts'), 'utf8');
  const covered = [...source.matchAll(/covers\(\s*\[([^\]]*)\]/g)].flatMap((m) =>
    [...m[1]!.matchAll(/'([A-Z0-9-]+)'/g)].map((id) => id[1]!),
  );
  expect([...covered].sort()).toEqual([...EXPIRY_REQUIREMENTS].sort());
  expect(areasOfRequirements(EXPIRY_REQUIREMENTS).sort()).toEqual([...EXPIRY_AREAS].sort());
});
