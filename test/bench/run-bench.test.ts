/** What the bench reads of a run's output (src/bench/run-bench.ts). */
import { expect, test } from 'vitest';
import { parsePhases } from '../../src/bench/run-bench.ts';

test("the timing line's phases, the suites included, up to the traffic after the `;`", () => {
  const output = [
    'characters synthesized: 2799',
    "timing: stack start 0.9 s, preflight 0.1 s, suites 9.4 s; 977 requests, waited 0.0 s on the server's rate limit (429: 0, 503: 0)",
    'verdict: CONFORMS',
  ].join('\n');
  expect(parsePhases(output)).toEqual({ 'stack start': 0.9, preflight: 0.1, suites: 9.4 });
  expect(parsePhases('verdict: CONFORMS')).toEqual({});
});
