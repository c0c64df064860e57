/**
 * The preflight against a server that leaves one of its questions unanswered (issue 49): the
 * version, the login or the model list hanging is a verdict of its own (the run goes on, the route
 * learned once); a server that answers none of the API's questions is not judged (exit 3).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { closeHttp } from '../../src/client/http.ts';
import { resetObservedAnswers } from '../../src/client/route-silence.ts';
import { runOutages } from '../../src/facts/outages.ts';
import { resetMemoryFacts } from '../../src/facts/run-facts.ts';
import { PreflightError, preflight, preflightHungLine } from '../../src/run/preflight.ts';
import type { FakeServer } from '../support/fake-server.ts';
import { FAKE_EMAIL, FAKE_PASSWORD, startFakeSpeak } from '../support/fake-speak.ts';

/** Short bounds: a question unanswered within 150 ms is a hang here. */
const BOUNDS = { requestMs: 150, totalMs: 5_000 };

let server: FakeServer | undefined;

async function against(hangPaths: readonly string[]) {
  resetMemoryFacts();
  resetObservedAnswers();
  server = await startFakeSpeak({ hangPaths });
  const access = { baseUrl: server.url, authUrl: server.url, email: FAKE_EMAIL, password: FAKE_PASSWORD };
  return preflight(access, BOUNDS);
}

afterEach(async () => {
  await server?.close();
  server = undefined;
  await closeHttp();
  resetMemoryFacts();
  resetObservedAnswers();
});

describe('a preflight question left unanswered', () => {
  test('the version: the run goes on to a verdict, the route learned once', async () => {
    const result = await against(['/v1/speak/version']);
    expect(result.version).toBeUndefined();
    expect(result.hung).toMatch(/GET \/v1\/speak\/version/);
    expect(preflightHungLine(result.hung!)).toContain('answered the preflight only in part');
    // The suites' requests to it conclude at once: the route is a run-wide fact, named once.
    expect(runOutages().map((o) => o.route)).toEqual(['GET /v1/speak/version']);
  });

  test('the model list after the version answered: the run goes on', async () => {
    const result = await against(['/v1/speak/models']);
    expect(result.version).toEqual({ version: 1, minor: 0 });
    expect(result.hung).toMatch(/models/);
  });

  test('the version and the model list: nothing of the API answered, not judged', async () => {
    await expect(against(['/v1/speak/version', '/v1/speak/models'])).rejects.toThrow(PreflightError);
  });

  test('a server that answers everything: no hang', async () => {
    const result = await against([]);
    expect(result.hung).toBeUndefined();
    expect(result.version).toEqual({ version: 1, minor: 0 });
    expect(runOutages()).toEqual([]);
  });
});
