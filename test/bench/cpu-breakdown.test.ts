/** What the bench makes of a run's processes, output lines, CPU profiles and pairs (src/bench/cpu-breakdown.ts, cpu-profile.ts, against.ts). */
import { expect, test } from 'vitest';
import { pairedRatios } from '../../src/bench/against.ts';
import { phaseOfLine, processLabel } from '../../src/bench/cpu-breakdown.ts';
import { type CpuProfile, summarize, whereOf } from '../../src/bench/cpu-profile.ts';

test('a process of the tree is named by its command line', () => {
  expect(processLabel(['/usr/bin/node', './bin/speakcheck.js', 'run'], true)).toMatch(/^run/);
  expect(
    processLabel(['/usr/bin/node', '--max-semi-space-size=1', './bin/speakcheck.js', 'serve'], false),
  ).toMatch(/^API/);
  expect(processLabel(['/usr/bin/node', '/cache/bundle/x/y/worker-main.js'], false)).toBe('synthesis worker');
  expect(processLabel(['/nm/@ffmpeg-installer/linux-x64/ffmpeg', '-i', 'pipe:0'], false)).toBe('ffmpeg');
  expect(processLabel(['/nm/@esbuild/linux-x64/bin/esbuild', '--service=0.28.2'], false)).toMatch(/^esbuild/);
});

test("the run's version line ends the start, an area's line its window", () => {
  expect(phaseOfLine('speakcheck: version 0.1.0 (52414b9); the server said …')).toMatch(/^start/);
  expect(phaseOfLine('  webhooks    22 passed   0 failed   0 skipped  6.8 s')).toBe(
    'suites until webhooks ended',
  );
  expect(phaseOfLine('tests: 162 passed, 0 failed, 0 skipped')).toBeUndefined();
});

test('self time is the time to the next sample, summed by function over profiles, idle left out', () => {
  const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', '') },
      { id: 2, callFrame: frame('compileSchema', 'file:///x/node_modules/ajv/dist/compile/index.js') },
      { id: 3, callFrame: frame('(idle)', '') },
    ],
    samples: [2, 2, 3, 2],
    timeDeltas: [0, 1000, 2000, 500_000],
  };
  const s = summarize([
    { file: 'a.cpuprofile', profile },
    { file: 'b.cpuprofile', profile },
  ]);
  // Samples 0 and 1 on compileSchema: 1 ms and 2 ms; the idle one 0.5 s, not counted; the last none.
  expect(s.functions).toEqual([{ name: 'compileSchema compile/index.js:10', where: 'ajv', selfS: 0.006 }]);
  expect(s.profiles[0]).toEqual({
    file: 'a.cpuprofile',
    totalS: 0.003,
    byWhere: [{ where: 'ajv', selfS: 0.003 }],
  });
});

test('a function is placed in its package, in Node, in a folder of the repo or in V8', () => {
  expect(whereOf('file:///r/node_modules/@fastify/websocket/index.js', 'f')).toBe('@fastify/websocket');
  expect(whereOf('node:internal/modules/esm/utils', 'f')).toBe('node:internal');
  expect(whereOf('file:///r/src/client/http.ts', 'f')).toBe('src/client');
  expect(whereOf('', '(garbage collector)')).toBe('(garbage collector)');
});

test('paired ratios are this over the other, pair by pair', () => {
  const run = (cpuS: number, wallS: number, peakTreeMb: number) =>
    ({ cpuS, wallS, peakTreeMb }) as Parameters<typeof pairedRatios>[0][number];
  const p = pairedRatios([run(20, 10, 600), run(30, 12, 500)], [run(10, 8, 450), run(15, 12, 500)]);
  expect(p).toEqual({ cpuRatios: [0.5, 0.5], wallRatios: [0.8, 1], treeRatios: [0.75, 1] });
});
