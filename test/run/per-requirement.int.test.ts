/**
 * Per-requirement verdicts end to end: the real version suite against a fake server whose one field
 * is wrong (`minor` is the string "0"). The suite's test covering VERSION-NO-TOKEN and
 * VERSION-MAJOR-MINOR attributes its assertions with check(): exactly VERSION-MAJOR-MINOR fails,
 * VERSION-NO-TOKEN (same test, same exchange) passes, and the run does not conform.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { FakeServer } from '../support/fake-server.ts';
import { FAKE_EMAIL, FAKE_PASSWORD, startFakeSpeak } from '../support/fake-speak.ts';
import { readVerdicts, speakcheckRun } from '../support/speakcheck-run.ts';

let server: FakeServer | undefined;
const reportDir = mkdtempSync(join(tmpdir(), 'speakcheck-per-requirement-'));
afterAll(async () => {
  await server?.close();
  rmSync(reportDir, { recursive: true, force: true });
});

/** `speakcheck run --requirement IDS` against the fake server, its reports in reportDir. */
function runAgainstFake(requirements: string) {
  return speakcheckRun(
    [
      '--base-url',
      server!.url,
      '--email',
      FAKE_EMAIL,
      '--report-dir',
      reportDir,
      '--requirement',
      requirements,
    ],
    { env: { SPEAK_PASSWORD: FAKE_PASSWORD }, timeoutMs: 110_000 },
  );
}

describe('one bad field fails exactly its own requirement', () => {
  test('minor as a string: VERSION-MAJOR-MINOR fails, VERSION-NO-TOKEN passes', {
    timeout: 120_000,
  }, async () => {
    server = await startFakeSpeak({ minor: '0' });
    const result = await runAgainstFake('VERSION-NO-TOKEN,VERSION-MAJOR-MINOR');
    expect(result.code, result.stderr + result.stdout).toBe(1);
    const verdicts = readVerdicts(reportDir);
    expect(verdicts.get('VERSION-NO-TOKEN')?.status).toBe('passed');
    expect(verdicts.get('VERSION-MAJOR-MINOR')?.status).toBe('failed');
    expect(verdicts.get('VERSION-MAJOR-MINOR')?.message).toMatch(
      /expected integer major \("version"\) and minor numbers, got \{"version":1,"minor":"0"\}/,
    );
    expect([...verdicts.values()].filter((v) => v.status === 'failed')).toHaveLength(1);
    // The test itself fails, naming the one requirement.
    expect(result.stdout).toMatch(/✗ version › the version endpoint answers.*VERSION-MAJOR-MINOR/);
  });
});

describe('JSON declared as text/plain is a verdict, not "not a Speak v1 server"', () => {
  test('API-JSON-BODIES fails (exit 1) where an HTML page stops the run (exit 3)', {
    timeout: 120_000,
  }, async () => {
    await server?.close();
    server = await startFakeSpeak({ jsonContentType: 'text/plain; charset=utf-8' });
    const result = await runAgainstFake('API-JSON-BODIES');
    expect(result.code, result.stderr + result.stdout).toBe(1);
    const verdicts = readVerdicts(reportDir);
    expect(verdicts.get('API-JSON-BODIES')?.status).toBe('failed');
    expect(verdicts.get('API-JSON-BODIES')?.message).toMatch(/text\/plain/);
  });
});

describe('GET of one model answering 404 fails MODELS-GET, not the field types', () => {
  test('the fake answers 404 {"detail"} for /v1/speak/models/{name}', { timeout: 120_000 }, async () => {
    await server?.close();
    server = await startFakeSpeak();
    const result = await runAgainstFake('MODELS-GET,MODEL-FIELD-TYPES');
    expect(result.code, result.stderr + result.stdout).toBe(1);
    const verdicts = readVerdicts(reportDir);
    expect(verdicts.get('MODELS-GET')?.status).toBe('failed');
    expect(verdicts.get('MODELS-GET')?.message).toMatch(/answered 404/);
    expect(verdicts.get('MODEL-FIELD-TYPES')?.status).not.toBe('failed');
  });
});
