/**
 * How `speakcheck load` drives k6, checked with a stand-in executable that records what it was given
 * (the real k6 runs in k6-smoke.test.ts): the secrets travel in the environment and never in argv,
 * usage reporting is off, k6's exit code (99 = thresholds failed) comes back unchanged, and a missing
 * k6 gives the distinct "unavailable" code without starting anything.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/exit-codes.ts';
import { readK6Points, runCrosscheck } from '../../src/load/crosscheck.ts';
import { runK6, runLoad } from '../../src/load/run-load.ts';

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
    const { bin } = standIn(EXIT.thresholdsFailed);
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
    expect(r.exitCode).toBe(EXIT.toolMissing);
    expect(r.reason).toMatch(/definitely-not-k6 does not exist/);
  });
});

describe('the target of a load command (k6 stand-in, given base URL: no stack)', () => {
  const saved = process.env.K6_BIN;
  const dirs: string[] = [];
  const outDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    if (saved === undefined) delete process.env.K6_BIN;
    else process.env.K6_BIN = saved;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('runLoad without credentials: target unavailable, k6 not started', async () => {
    const { bin, record } = standIn(0);
    process.env.K6_BIN = bin;
    const r = await runLoad({
      scenario: 'ttfb-wav',
      baseUrl: 'http://127.0.0.1:1',
      outDir: outDir('load-out-'),
      log: () => {},
    });
    expect(r.exitCode).toBe(EXIT.targetUnavailable);
    expect(r.reason).toMatch(/no credentials: give --email and --password, or --token/);
    expect(existsSync(record)).toBe(false);
  });

  it('runCrosscheck without credentials: the same answer, before any measurement', async () => {
    const { bin, record } = standIn(0);
    process.env.K6_BIN = bin;
    const r = await runCrosscheck({
      requests: 1,
      baseUrl: 'http://127.0.0.1:1',
      outDir: outDir('crosscheck-out-'),
      log: () => {},
    });
    expect(r.exitCode).toBe(EXIT.targetUnavailable);
    expect(r.reason).toMatch(/no credentials/);
    expect(existsSync(record)).toBe(false);
  });

  it('runLoad hands k6 the target, the threshold profile and the SLO as -e knobs, the secrets only in its environment', async () => {
    const { bin, record } = standIn(EXIT.thresholdsFailed);
    process.env.K6_BIN = bin;
    const out = outDir('load-out-');
    const r = await runLoad({
      scenario: 'ttfb-wav',
      baseUrl: 'http://127.0.0.1:1',
      authUrl: 'http://127.0.0.1:2',
      email: 'me@example.test',
      password: 'hunter2-secret',
      model: 'm-1',
      vus: 2,
      env: { RATE: '8', BASE_URL: 'http://127.0.0.1:3' },
      slo: { text: 'wav_first_byte_p95<2s', source: 'flag --slo' },
      outDir: out,
      log: () => {},
    });
    expect(r.exitCode).toBe(EXIT.thresholdsFailed);
    expect(r.reason).toBe(`k6 exited with ${EXIT.thresholdsFailed} and wrote no summary.json`);
    const seen = readFileSync(record, 'utf8').split('\n');
    const knobs = seen.filter((_, i) => seen[i - 1] === '-e');
    expect(knobs.sort()).toEqual(
      [
        'AUTH_URL=http://127.0.0.1:2',
        'BASE_URL=http://127.0.0.1:1', // the target flag wins over an --env knob of the same name
        'MODEL=m-1',
        'RATE=8',
        `SUMMARY_DIR=${out}`,
        // A given base URL is a server not ours: errors and completeness, plus the user's SLO.
        'THRESHOLDS=errors-only',
        `SLO_JSON=${JSON.stringify({
          text: 'wav_first_byte_p95<2s',
          source: 'flag --slo',
          terms: [
            {
              kind: 'latency',
              figure: 'wav_first_byte',
              percentile: 95,
              maxMs: 2000,
              text: 'wav_first_byte_p95<2s',
            },
          ],
        })}`,
        'VUS=2',
      ].sort(),
    );
    expect(seen).toContain('ENV_PASSWORD=hunter2-secret');
    expect(seen.filter((l) => !l.startsWith('ENV_')).join(' ')).not.toMatch(/hunter2|me@example/);
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
