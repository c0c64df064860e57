/**
 * Issue 50's "pasted into `sh`" proof for the sequence-only switches (the opt-in
 * SPEAKCHECK_DEFECT_MATRIX_PASTE mode of defect-matrix.int.test.ts): the failed requirement's
 * reproduction from conformance.json, run by `sh` with only PATH, SPEAK_BASE_URL, SPEAK_EMAIL and
 * SPEAK_PASSWORD in its environment, as a customer pastes it. The one exception: a script whose
 * header asks for the second customer (a switch that breaks the server for that customer only)
 * also gets SPEAK_SECOND_EMAIL / SPEAK_SECOND_PASSWORD, since that customer's bug cannot be shown
 * without logging in as them.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reproduction } from '../../../src/report/reproduction.ts';
import type { DefectiveStack } from './defective-stack.ts';

/** Bound of one pasted script (its own waits: a voice ready within 120 s, websocket bounds). */
export const PASTE_TIMEOUT_MS = 180_000;
/** The line the script prints after its last step (src/checks/stateful/script.ts). */
export const FAILURE_LINE = /^== the last answer is the failure: .+$/m;

export interface Pasted {
  /** stdout then stderr, as the terminal shows them. */
  output: string;
  code: number | null;
  timedOut: boolean;
  ms: number;
  /** The script asked for the second customer (SPEAK_SECOND_* were set). */
  second: boolean;
}

/** The reproduction of the first of `ids` that failed in the run's conformance.json. */
export function failedReproduction(reportDir: string, ids: readonly string[]): Reproduction | undefined {
  const report = JSON.parse(readFileSync(join(reportDir, 'conformance.json'), 'utf8')) as {
    requirements: Array<{ id: string; status: string; reproduction?: Reproduction }>;
  };
  return report.requirements.find((r) => ids.includes(r.id) && r.status === 'failed')?.reproduction;
}

/** The environment of a pasted script: the pasting customer's variables (see the file's comment for the exception). */
export function pasteEnv(script: string, stack: DefectiveStack): Record<string, string> {
  const second = /^# Needs .*SPEAK_SECOND_EMAIL/m.test(script);
  return {
    PATH: process.env.PATH ?? '',
    SPEAK_BASE_URL: stack.baseUrl,
    SPEAK_EMAIL: stack.email,
    SPEAK_PASSWORD: stack.password,
    ...(second ? { SPEAK_SECOND_EMAIL: stack.secondEmail, SPEAK_SECOND_PASSWORD: stack.secondPassword } : {}),
  };
}

/** `sh -c script` with only pasteEnv's variables, as a customer pastes it. */
export function paste(script: string, stack: DefectiveStack): Promise<Pasted> {
  const env = pasteEnv(script, stack);
  const second = 'SPEAK_SECOND_EMAIL' in env;
  const t0 = Date.now();
  return new Promise((resolve) => {
    execFile(
      'sh',
      ['-c', script],
      { env, timeout: PASTE_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const err = error as (Error & { code?: number | string; killed?: boolean }) | null;
        resolve({
          output: `${stdout}${stderr}`,
          code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
          timedOut: Boolean(err?.killed),
          ms: Date.now() - t0,
          second,
        });
      },
    );
  });
}

/** The statuses the logins of the script answered (the first answer after each `== log in` header). */
export function loginStatuses(output: string): string[] {
  const lines = output.split('\n');
  const statuses: string[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('== log in as')) return;
    const answer = lines.slice(i + 1).find((l) => /^ {3}-> /.test(l));
    statuses.push(answer?.match(/^ {3}-> (\S+)/)?.[1] ?? 'none');
  });
  return statuses;
}

/**
 * The output with what differs from stack to stack and run to run made equal: each id (`tk_…`,
 * `v_…`, a uuid) becomes its ordinal of first appearance (so "the same take again" stays visible),
 * timestamps, hosts, ports, signed URLs' queries, timings and the audio's length and size become
 * placeholders.
 */
export function normalised(output: string): string {
  const ids = new Map<string, string>();
  const ordinal = (kind: string) => (id: string) => {
    if (!ids.has(id))
      ids.set(id, `<${kind}${[...ids.values()].filter((v) => v.startsWith(`<${kind}`)).length + 1}>`);
    return ids.get(id)!;
  };
  return (
    output
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?/g, '<time>')
      .replace(/https?:\/\/[^\s"'/]+/g, '<origin>')
      .replace(/\?[^\s"']*/g, '?<query>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, ordinal('uuid'))
      .replace(/\b[a-z]{1,6}_[A-Za-z0-9-]{6,}\b/g, ordinal('id'))
      .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<duration>')
      .replace(/\b\d{10,}\b/g, '<epoch>')
      // What the synthesizer makes differs from take to take: its audio's length and size.
      .replace(/"duration": ?\d+/g, '"duration":<n>')
      .replace(/\b\d+ bytes\b/g, '<n> bytes')
  );
}

/**
 * The failing stretch of the script's output: its last step, from its `== step N:` header to the
 * failure line. A paging walk (`page N of length L` steps) fails as a whole (a page skipped an item
 * the whole list holds), so when the last step is a page, the stretch starts at the walk's first page.
 */
export function lastStep(output: string): string {
  const headers = [...output.matchAll(/^== step \d+: (.*)$/gm)];
  let first = headers.length - 1;
  while (first > 0 && PAGE.test(headers[first]![1]!) && PAGE.test(headers[first - 1]![1]!)) first--;
  const start = headers[first]?.index ?? 0;
  const end = output.search(FAILURE_LINE);
  return output.slice(start, end < start ? undefined : end).trim();
}
const PAGE = /^page \d+ of length \d+$/;
