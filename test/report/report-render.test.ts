import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildReport } from '../../src/report/model.ts';
import { escapeHtml, HTML_MAX_BODY_CHARS, renderHtml } from '../../src/report/render-html.ts';
import { mdCell, renderMarkdown } from '../../src/report/render-md.ts';
import { verdictLine } from '../../src/report/verdict-line.ts';
import { writeReport } from '../../src/report/write.ts';
import type { Requirement } from '../../src/requirements/types.ts';
import { computeVerdicts, type TestOutcome } from '../../src/verdict/verdict.ts';
import { fabricated } from '../support/fabricated-id.ts';
import { said } from '../support/said.ts';
import { testOutcome } from '../support/test-outcome.ts';

const hostile = '<script>alert("x")</script> & | pipe';
const requirement: Requirement = {
  id: fabricated('AUTH-HOSTILE'),
  area: 'auth',
  section: 'Authentication <1>',
  level: 'MUST',
  source: 'speak-v1',
  text: hostile,
};
const huge = 'A'.repeat(200_000);
const outcome: TestOutcome = testOutcome('suites/auth.spec.ts > hostile', 'failed', ['AUTH-HOSTILE'], {
  name: `hostile ${hostile}`,
  durationMs: 3,
  errors: [`expected <b>200</b>, got 500 with refresh_token "r" and "access_token":"abc123secret"`],
  observations: [said(hostile)],
  evidence: Array.from({ length: 30 }, (_, i) => ({
    method: 'GET',
    url: `http://127.0.0.1:1/x?i=${i}&X-Amz-Signature=abc`,
    requestHeaders: { authorization: 'Bearer ‹redacted›' },
    status: 500,
    headers: { 'content-type': 'text/html' },
    body: `<img src=x onerror=alert(1)>${huge}`,
    ms: 1,
  })),
  droppedEvidence: 5,
  characters: 7,
});

function report() {
  const verdicts = computeVerdicts([requirement], [outcome]);
  return buildReport(verdicts, [outcome], {
    runId: 'abc123',
    harness: '0.1.0 (abc1234)',
    baseUrl: 'http://127.0.0.1:1',
    serverVersion: '{"major":1,"minor":<b>0</b>}',
    target: 'remote',
    profile: 'strict',
    only: [],
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:10.000Z',
    durationMs: 10_000,
    exitCode: 1,
    errors: [],
  });
}

describe('report rendering', () => {
  test("md and html say the terminal's verdict line, word for word, MUSTs first", () => {
    const r = report();
    r.run = {
      ...r.run,
      verdict: 'DOES NOT CONFORM',
      verdictReasons: ['1 MUST failed, 2 MUST blocked', '1 security check failed'],
    };
    const sentence =
      'DOES NOT CONFORM (exit 1, strict profile; 1 MUST failed, 2 MUST blocked; 1 security check failed)';
    expect(verdictLine(r.run)).toBe(`verdict: ${sentence}`);
    expect(renderMarkdown(r).replace(/\*\*/g, '')).toContain(`- Verdict: ${sentence}`);
    expect(renderHtml(r)).toContain(`<p class="why">Verdict: ${sentence}</p>`);
  });

  test('md and html name the speakcheck that ran and the server /version, escaped', () => {
    const r = report();
    const md = renderMarkdown(r);
    expect(md).toContain('- speakcheck 0.1.0 (abc1234)');
    expect(md).toContain('/version {"major":1,"minor":&lt;b>0&lt;/b>}');
    const html = renderHtml(r);
    expect(html).toContain('speakcheck 0.1.0 (abc1234)');
    expect(html).toContain(
      '/version <code>{&quot;major&quot;:1,&quot;minor&quot;:&lt;b&gt;0&lt;/b&gt;}</code>',
    );
  });

  test('json: the summary shape, and secrets redacted even inside messages', () => {
    const r = report();
    expect(r.summary).toMatchObject({ requirements: 1, passed: 0, failed: 1, skipped: 0, info: 0 });
    expect(r.requirements[0]).toMatchObject({ id: 'AUTH-HOSTILE', level: 'MUST', status: 'failed' });
    expect(r.requirements[0]!.tests).toEqual(['suites/auth.spec.ts > hostile']);
    const json = JSON.stringify(r);
    expect(json).not.toContain('abc123secret');
    expect(json).not.toContain('X-Amz-Signature=abc&');
  });

  test('html: everything escaped, self-contained, evidence capped and bodies cut', () => {
    const html = renderHtml(report());
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(escapeHtml(hostile));
    expect(html).not.toMatch(/<(link|img|iframe)\b|\ssrc=["']?http/);
    expect(html.match(/<script>/g)).toHaveLength(1); // only the inline filter script
    expect(html.length).toBeLessThan(200_000);
    expect(html).toContain(`${200_000 + 28 - HTML_MAX_BODY_CHARS} more characters not shown`);
    expect(html).toContain('23 more exchanges not shown'); // 30 - 12 shown + 5 dropped at record time
    expect(html).toContain('?i=0&amp;'); // the first exchanges (setup) ...
    expect(html).toContain('?i=29&amp;'); // ... and the last ones (where it failed)
    expect(html).not.toContain('?i=15&amp;');
    expect(html).toMatch(/data-area="auth" data-status="failed"/);
  });

  test('markdown: cells cannot break the table or inject HTML', () => {
    expect(mdCell('a|b\nc <x>')).toBe('a\\|b c &lt;x>');
    const md = renderMarkdown(report());
    expect(md).toContain('| AUTH-HOSTILE | MUST |');
    expect(md).not.toContain('<script>');
    expect(md).toMatch(/Verdict: \*\*DOES NOT CONFORM\*\* \(exit 1, strict profile\)/);
  });
});

describe('reproduction in the reports', () => {
  test('a failed requirement carries its shell lines in json, md and html; the token is a variable', async () => {
    const r = report();
    const failed = r.requirements.find((x) => x.id === fabricated('AUTH-HOSTILE'));
    const script = failed?.reproduction?.curl ?? [];
    // The failure names no request: the test's last 12 exchanges, after the login step.
    expect(script[0]).toMatch(/^# Account A: log in with \$SPEAK_EMAIL and \$SPEAK_PASSWORD/);
    const curl = script.filter((line) => line.startsWith('curl '));
    expect(curl).toHaveLength(12);
    expect(curl[0]).toBe(
      `curl -sS -i -H "Authorization: Bearer \${SPEAK_TOKEN}" 'http://127.0.0.1:1/x?i=18&X-Amz-Signature=‹redacted›'`,
    );
    expect(failed?.reproduction?.notes).toContain('Only the last 12 of 30 HTTP exchanges are reproduced.');
    const md = renderMarkdown(r);
    expect(md).toContain(`## Reproduction\n`);
    expect(md).toContain(`Paste it into a shell with SPEAK_EMAIL and SPEAK_PASSWORD set`);
    // The whole script in one sh block, as pasted.
    expect(md).toContain(`\`\`\`sh\n${script.join('\n')}\n\`\`\``);
    const html = renderHtml(r);
    expect(html).toContain(escapeHtml(script.join('\n')));
    expect(html).toContain(escapeHtml('Paste it into a shell with SPEAK_EMAIL and SPEAK_PASSWORD set'));
  });

  test('websocket requests of a failure become repro/<id>.mjs beside the reports', async () => {
    const wsOutcome: TestOutcome = {
      ...outcome,
      evidence: [
        {
          method: 'WS take',
          url: 'ws://127.0.0.1:1/‹redacted›',
          requestHeaders: {},
          requestBody: '{"command":"take","text":"hi"}',
          status: null,
          headers: {},
          body: 'outcome closed',
          ms: 1,
        },
      ],
    };
    const r = buildReport(computeVerdicts([requirement], [wsOutcome]), [wsOutcome], report().run);
    const dir = mkdtempSync(join(tmpdir(), 'speakcheck-ws-repro-'));
    try {
      const files = await writeReport(dir, r);
      expect(files).toContain(join(dir, 'repro', 'AUTH-HOSTILE.mjs'));
      expect(readFileSync(join(dir, 'repro', 'AUTH-HOSTILE.mjs'), 'utf8')).toContain('"text": "hi"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('judged / not judged: the headline words, the count, the gaps with their remedy, a bar per area', () => {
    const must = (id: string, area: Requirement['area']): Requirement => ({
      ...requirement,
      id: fabricated(id),
      area,
      text: id,
    });
    const skipped: TestOutcome = {
      ...outcome,
      key: 'suites/expiry.spec.ts > waits',
      name: 'waits',
      state: 'passed',
      errors: [],
      evidence: [],
      requirements: ['AUTH-WAITS'],
      conclusions: {
        'AUTH-WAITS': [
          {
            kind: 'not-observed',
            reason: 'access tokens live 900 s <JWT exp>',
            wouldJudge: '--profile acceptance (waits 902 s)',
          },
        ],
      },
    };
    const passed: TestOutcome = {
      ...skipped,
      key: 'suites/x > ok',
      state: 'passed',
      requirements: ['MODELS-OK'],
      observations: [],
      conclusions: { 'MODELS-OK': [{ kind: 'held' }] },
    };
    const verdicts = computeVerdicts(
      [must('AUTH-WAITS', 'auth'), must('MODELS-OK', 'models')],
      [skipped, passed],
    );
    const r = buildReport(verdicts, [skipped, passed], {
      ...report().run,
      exitCode: 0,
      verdict: 'NO MUST OR SHOULD FAILED — 1 MUST NOT JUDGED',
    });
    const md = renderMarkdown(r);
    expect(md).toContain(
      '- Verdict: **NO MUST OR SHOULD FAILED — 1 MUST NOT JUDGED** (exit 0, strict profile)',
    );
    expect(md).toContain('- judged: 1 of 2 MUST, 0 of 0 SHOULD');
    expect(md).toMatch(
      /## Not judged \(1\)[\s\S]*\| AUTH-WAITS \| MUST \| not-observed \| .*access tokens live 900 s &lt;JWT exp>.* \| --profile acceptance \(waits 902 s\) \|/,
    );
    const html = renderHtml(r);
    expect(html).toContain(
      '<title>Speak v1 conformance: NO MUST OR SHOULD FAILED — 1 MUST NOT JUDGED</title>',
    );
    expect(html).toContain('<td>auth</td><td><span class="jbar" title="0% judged">');
    expect(html).toContain('0/1 judged, <b>1 not</b>');
    expect(html).toContain(
      '<td>models</td><td><span class="jbar" title="100% judged"><i style="width:100%"></i></span></td><td>1/1 judged</td>',
    );
    expect(html).toContain('What would judge it: --profile acceptance (waits 902 s)');
    expect(html).not.toContain('<JWT exp>');
  });
});
