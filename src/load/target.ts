/**
 * What every k6-driven command needs before it measures anything: k6 itself, and a target with
 * credentials (the embedded reference stack when no base URL is given). A command that cannot have
 * them ends with its distinct exit code and one reason; a stack started here is always stopped.
 */

import type { TargetFlags } from '../config/types.ts';
import { EXIT } from '../exit-codes.ts';
import { type StartedTarget, startTarget } from '../stack/target.ts';
import { ensureK6, K6UnavailableError } from './k6-binary.ts';

/** The server and the credentials a load run targets (the CLI's flags, as typed). */
export type TargetCredentials = TargetFlags;

export interface LoadTarget {
  k6: string;
  target: TargetCredentials & { baseUrl: string };
  /** Set when the target is the embedded reference stack started for this run. */
  stack?: StartedTarget;
  /** SPEAK_EMAIL / SPEAK_PASSWORD / SPEAK_TOKEN for k6's environment, never its argv. */
  secrets: Record<string, string>;
  /** BASE_URL, plus AUTH_URL and MODEL when given, for k6's -e. */
  vars: Record<string, string>;
}

export interface Unavailable {
  exitCode: number;
  runDir: string;
  reason: string;
}

export async function withLoadTarget<R>(
  o: TargetCredentials,
  runDir: string,
  log: (line: string) => void,
  use: (t: LoadTarget) => Promise<R>,
): Promise<R | Unavailable> {
  let k6: string;
  try {
    k6 = await ensureK6(log);
  } catch (err) {
    if (err instanceof K6UnavailableError) return { exitCode: EXIT.toolMissing, runDir, reason: err.message };
    throw err;
  }
  let stack: StartedTarget | undefined;
  try {
    let target = { ...o };
    if (!o.baseUrl) {
      log('no --base-url: starting the reference stack (speakcheck serve --port 0)');
      try {
        stack = await startTarget('embedded');
      } catch (err) {
        return { exitCode: EXIT.targetUnavailable, runDir, reason: (err as Error).message };
      }
      target = { ...o, baseUrl: stack.baseUrl, email: stack.email, password: stack.password };
      log(`reference stack at ${stack.baseUrl}`);
    }
    const { baseUrl } = target;
    if (!baseUrl) throw new Error('unreachable: a base URL is given or the stack provides one');
    if (!target.token && !(target.email && target.password)) {
      return {
        exitCode: EXIT.targetUnavailable,
        runDir,
        reason: 'no credentials: give --email and --password, or --token',
      };
    }
    const secrets: Record<string, string> = {};
    if (target.email) secrets.SPEAK_EMAIL = target.email;
    if (target.password) secrets.SPEAK_PASSWORD = target.password;
    if (target.token) secrets.SPEAK_TOKEN = target.token;
    const vars: Record<string, string> = { BASE_URL: baseUrl };
    if (target.authUrl) vars.AUTH_URL = target.authUrl;
    if (target.model) vars.MODEL = target.model;
    return await use({ k6, target: { ...target, baseUrl }, ...(stack ? { stack } : {}), secrets, vars });
  } finally {
    await stack?.stop();
  }
}
