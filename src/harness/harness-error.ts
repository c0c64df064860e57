/**
 * A harness error: the harness itself broke (a bug of ours), never blamed on the server. Kept
 * conservative: only a programming error (TypeError, ReferenceError, RangeError) whose innermost
 * stack frame is in speakcheck's own src/ or suites/ code counts. A Finding or an assertion is a
 * verdict about the server; an error thrown inside a library or by Node (undici's "fetch failed",
 * JSON.parse of a garbage body) is not provably ours, and neither is anything without a stack.
 */
import { Finding } from '../checks/finding.ts';

const PROGRAMMING_ERRORS = new Set(['TypeError', 'ReferenceError', 'RangeError']);

/** One line naming the bug and where it was thrown, or undefined when `err` is not provably ours. */
export function harnessBug(err: unknown): string | undefined {
  if (!(err instanceof Error) || err instanceof Finding) return undefined;
  if (!PROGRAMMING_ERRORS.has(err.name) || err.constructor.name !== err.name) return undefined;
  const frame = innermostFrame(err.stack);
  const where = frame ? ownCode(frame) : undefined;
  return where === undefined ? undefined : `${err.name}: ${err.message} (at ${where})`;
}

/** The first `at …` line of a V8 stack. */
function innermostFrame(stack: string | undefined): string | undefined {
  return stack
    ?.split('\n')
    .find((line) => line.trimStart().startsWith('at '))
    ?.trim();
}

/** `src/x.ts:12:3` when the frame is in our src/ or suites/ (not node_modules), else undefined. */
function ownCode(frame: string): string | undefined {
  const match = /(?:file:\/\/)?(\/[^\s()]*?\/((?:src|suites)\/[^\s()]+?):(\d+):(\d+))\)?$/.exec(frame);
  if (!match || match[1]!.includes('/node_modules/')) return undefined;
  return `${match[2]}:${match[3]}`;
}
