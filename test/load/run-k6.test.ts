/**
 * How `speakcheck load` drives k6, checked with a stand-in executable that records what it was given
 * (the real k6 runs in k6-smoke.test.ts): the secrets travel in the environment and never in argv,
 * usage reporting is off, k6's exit code (99 = thresholds failed) comes back unchanged, and a missing
 * k6 gives the distinct "unavailable" code without starting anything.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readK6Points } from '../../src/load/crosscheck.ts';
import { EXIT_K6_UNAVAILABLE, EXIT_THRESHOLDS_FAILED, runK6, runLoad } from '../../src/load/run-load.ts';

function standIn(exitCode: number): { bin: string; record: string } {
  const dir = mkdtempSync(join(tmpdir(), 'k6-stand-in-'));
  const record = join(dir, 'record.txt');
  const bin = join(dir, 'k6');
  writeFileSync(
    bin,
    `#!/bin/bash\nprintf '%s\\n' "$@" > ${record}\necho "ENV_PASSWORD=$SPEAK_PASSWORD" >> ${record}\necho "ENV_USAGE=$K6_NO_USAGE_REPORT" >> ${record}\necho "a line of output"\nexit ${exitCode}\n`,
  );
  chmodSync(bin, 0o755);
  return { bin, record };
}

describe('runK6', () => {
  it('passes knobs as -e, secrets only through the environment, and turns usage reports off', async () => {
    const { bin, record } = standIn(0);
    const lines: string[] = [];
    const code = await runK6(
      bin,
      'load/scenarios/ramp.ts',
      { BASE_URL: 'http://127.0.0.1:1', STEPS: '1,2' },
      { SPEAK_PASSWORD: 'hunter2-secret' },
      { timeoutMs: 10_000, tag: 'run-1', log: (l) => lines.push(l) },
    );
    expect(code).toBe(0);
    const seen = readFileSync(record, 'utf8').split('\n');
    expect(seen.slice(0, 11)).toEqual([
      'run',
      '--quiet',
      '--no-usage-report',
      '--tag',
      'testid=run-1',
      '-e',
      'BASE_URL=http://127.0.0.1:1',
      '-e',
      'STEPS=1,2',
      'load/scenarios/ramp.ts',
      'ENV_PASSWORD=hunter2-secret',
    ]);
    expect(seen).toContain('ENV_USAGE=true');
    expect(seen.slice(0, 10).join(' ')).not.toContain('hunter2');
    expect(lines).toEqual(['a line of output']);
  });

  it("returns k6's exit code unchanged (99: thresholds failed)", async () => {
    const { bin } = standIn(EXIT_THRESHOLDS_FAILED);
    const code = await runK6(bin, 's.ts', {}, {}, { timeoutMs: 10_000, tag: 't', log: () => {} });
    expect(code).toBe(99);
  });

  it('stops a k6 that outlives its bound', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-hang-'));
    const bin = join(dir, 'k6');
    writeFileSync(bin, '#!/bin/bash\nexec sleep 30\n');
    chmodSync(bin, 0o755);
    const lines: string[] = [];
    const started = Date.now();
    const code = await runK6(bin, 's.ts', {}, {}, { timeoutMs: 300, tag: 't', log: (l) => lines.push(l) });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(code).not.toBe(0);
    expect(lines[0]).toMatch(/still running after 300 ms/);
  });
});

describe('runLoad without k6', () => {
  const saved = process.env.K6_BIN;
  afterEach(() => {
    if (saved === undefined) delete process.env.K6_BIN;
    else process.env.K6_BIN = saved;
  });

  it('reports k6 as unavailable with its distinct exit code and starts no stack', async () => {
    process.env.K6_BIN = join(tmpdir(), 'definitely-not-k6');
    const r = await runLoad({ scenario: 'ttfb-wav', log: () => {} });
    expect(r.exitCode).toBe(EXIT_K6_UNAVAILABLE);
    expect(r.reason).toMatch(/definitely-not-k6 does not exist/);
  });
});

describe('readK6Points (k6 --out json)', () => {
  it('returns the values of one metric, filtered by tag, skipping metric declarations and other metrics', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'k6-points-'));
    const file = join(dir, 'points.json');
    const lines = [
      { type: 'Metric', metric: 'speak_ws_ttfc', data: { type: 'trend', contains: 'time' } },
      {
        type: 'Point',
        metric: 'speak_ws_ttfc',
        data: { time: 't', value: 7, tags: { mode: 'chunks', model: 'm' } },
      },
      {
        type: 'Point',
        metric: 'speak_ws_ttfc',
        data: { time: 't', value: 400, tags: { mode: 'parts', model: 'm' } },
      },
      {
        type: 'Point',
        metric: 'speak_ws_first_status',
        data: { time: 't', value: 1, tags: { mode: 'chunks' } },
      },
      {
        type: 'Point',
        metric: 'speak_ws_ttfc',
        data: { time: 't', value: 9, tags: { mode: 'chunks', model: 'm' } },
      },
    ];
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    expect(await readK6Points(file, 'speak_ws_ttfc', { mode: 'chunks' })).toEqual([7, 9]);
    expect(await readK6Points(file, 'speak_ws_ttfc')).toEqual([7, 400, 9]);
  });
});
