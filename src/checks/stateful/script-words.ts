/**
 * The shell words of a sequence's reproduction script (script.ts): quoting, the calls with an
 * account's token or none, and reading a field of the last answer. They use the helpers of the
 * script's prelude (`call`, `auth`, `field`).
 */
import type { AccountName } from './model.ts';

/** 'text' in single quotes for sh: nothing inside is expanded. */
export function quoted(text: string): string {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

const token = (account: AccountName) => (account === 'primary' ? '"$A1"' : '"$A2"');

/**
 * A call with the account's access token: `call METHOD PATH [JSON]` keeps the answer in $BODY/$STATUS.
 * PATH may name shell variables (`/v1/speak/takes/$T1`); JSON is taken as it is.
 */
export function apiCall(account: AccountName, method: string, path: string, json?: unknown): string {
  const body = json === undefined ? '' : ` ${quoted(JSON.stringify(json))}`;
  // Double quotes: the path names the ids the script read into variables ($T1 …).
  return `TOKEN=${token(account)}; call ${method} "${path.replaceAll('"', '\\"')}"${body}`;
}

/** An auth call (no bearer): `auth PATH JSON`; the JSON may name shell variables, so it is double-quoted. */
export function authCall(path: string, jsonWithVariables: string): string {
  return `auth ${quoted(path)} "${jsonWithVariables.replaceAll('"', '\\"')}"`;
}

/** Reads a string field of $BODY into a variable. */
export function capture(variable: string, field: string): string {
  return `${variable}=$(printf '%s' "$BODY" | field ${field})`;
}
