/**
 * `speakcheck serve --defect`: an unknown name is refused with the known ones; a defective stack
 * announces itself (`defects=` line, `x-speak-defects` on every answer) and its switch really acts,
 * here at the HTTP level without the harness; a clean stack carries neither.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFECTS } from '../../../reference/defects/index.ts';
import { REPO_ROOT, SPEAKCHECK_BIN } from '../../../src/stack/embedded.ts';
import { runToEnd } from '../../../src/stack/launcher.ts';
import { type DefectiveStack, startDefectiveStack } from './defective-stack.ts';

test('an unknown defect is refused, listing the known ones, and nothing starts', async () => {
  const result = await runToEnd({
    args: [SPEAKCHECK_BIN, 'serve', '--port', '0', '--defect', 'no-such-defect'],
    cwd: REPO_ROOT,
    timeoutMs: 60_000,
  });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('unknown defect "no-such-defect"');
  for (const defect of DEFECTS) expect(result.stderr).toContain(defect.name);
});

describe('a stack with two defects', () => {
  let stack: DefectiveStack;
  beforeAll(async () => {
    stack = await startDefectiveStack(['version-needs-token', 'audio-302']);
  }, 130_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('prints defects= and marks every answer, also refusals', async () => {
    expect(stack.defectsLine).toBe('version-needs-token,audio-302');
    const version = await fetch(`${stack.baseUrl}/v1/speak/version`);
    expect(version.headers.get('x-speak-defects')).toBe('version-needs-token,audio-302');
    const missing = await fetch(`${stack.baseUrl}/no/such/route`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-speak-defects')).toBe('version-needs-token,audio-302');
  });

  test('the switch acts: /version now wants a token', async () => {
    const version = await fetch(`${stack.baseUrl}/v1/speak/version`);
    expect(version.status).toBe(401);
    expect(await version.json()).toHaveProperty('detail');
  });
});

describe('a clean stack', () => {
  let stack: DefectiveStack;
  beforeAll(async () => {
    stack = await startDefectiveStack([]);
  }, 130_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('prints no defects= line and sends no x-speak-defects header', async () => {
    expect(stack.defectsLine).toBe('');
    const version = await fetch(`${stack.baseUrl}/v1/speak/version`);
    expect(version.status).toBe(200);
    expect(version.headers.get('x-speak-defects')).toBeNull();
  });
});
