/**
 * The helpers of the paste proof (paste-reproduction.ts): what a pasted reproduction's output is
 * compared by, and the environment it is pasted with.
 */
import { describe, expect, test } from 'vitest';
import type { DefectiveStack } from './defective-stack.ts';
import { FAILURE_LINE, lastStep, loginStatuses, normalised, pasteEnv } from './paste-reproduction.ts';

const OUTPUT = [
  '== log in as the primary customer, make a voice and wait until it is ready',
  '   -> 200 {"access_token":"(hidden)"}',
  '== log in as the second customer, make a voice and wait until it is ready',
  '   -> 401 {"detail":"wrong password"}',
  '== step 1: T1 = generate a take as primary: "One."',
  '   -> 200 {"take_id":"tk_aaaaaaaaaaaa","timestamp_ms":1795841686477}',
  '== step 2: page 1 of length 1',
  '   -> 200 [{"take_id":"tk_aaaaaaaaaaaa"}]',
  '== step 3: page 2 of length 1',
  '   -> 200 []',
  '== the last answer is the failure: pages skip tk_bbbbbbbbbbbb',
].join('\n');

describe('paste proof helpers', () => {
  test('the first answer after each login header is its status', () => {
    expect(loginStatuses(OUTPUT)).toEqual(['200', '401']);
    expect(loginStatuses('== step 1: nothing')).toEqual([]);
  });

  test('a paging walk is the failing stretch as a whole; another last step alone', () => {
    expect(lastStep(OUTPUT).split('\n')[0]).toBe('== step 2: page 1 of length 1');
    expect(lastStep(OUTPUT)).not.toMatch(FAILURE_LINE);
    const single = OUTPUT.replace('== step 3: page 2 of length 1', '== step 3: DELETE T1 again as primary');
    expect(lastStep(single)).toBe('== step 3: DELETE T1 again as primary\n   -> 200 []');
  });

  test('ids become ordinals of first appearance: the same take again stays visible', () => {
    const again = normalised('"take_id":"tk_aaaaaaaaaaaa" then "take_id":"tk_aaaaaaaaaaaa"');
    const fresh = normalised('"take_id":"tk_aaaaaaaaaaaa" then "take_id":"tk_cccccccccccc"');
    expect(again).not.toBe(fresh);
    expect(normalised('"take_id":"tk_cccccccccccc" at 2026-11-28T04:59:01.123Z, 1795841686477')).toBe(
      normalised('"take_id":"tk_dddddddddddd" at 2026-11-27T01:00:00Z, 1795841999999'),
    );
    expect(normalised('-> 307')).not.toBe(normalised('-> 404'));
    expect(normalised('"duration":14338, 28720 bytes')).toBe(normalised('"duration":12746, 25000 bytes'));
  });

  test('the script gets only PATH and the three variables; the second customer only when it asks', () => {
    const stack = {
      baseUrl: 'http://127.0.0.1:1',
      email: 'a@example.test',
      password: 'pa',
      secondEmail: 'b@example.test',
      secondPassword: 'pb',
    } as DefectiveStack;
    expect(Object.keys(pasteEnv('echo', stack)).sort()).toEqual([
      'PATH',
      'SPEAK_BASE_URL',
      'SPEAK_EMAIL',
      'SPEAK_PASSWORD',
    ]);
    const asks =
      '#!/bin/sh\n# Needs SPEAK_BASE_URL, SPEAK_EMAIL, SPEAK_PASSWORD, SPEAK_SECOND_EMAIL, SPEAK_SECOND_PASSWORD\necho';
    expect(pasteEnv(asks, stack)).toMatchObject({
      SPEAK_SECOND_EMAIL: 'b@example.test',
      SPEAK_SECOND_PASSWORD: 'pb',
    });
  });
});
