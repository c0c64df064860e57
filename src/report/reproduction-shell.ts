/**
 * The shell words and steps of a reproduction (src/report/reproduction.ts): POSIX sh, curl and sed
 * only, so it runs as pasted into any shell. Secrets are shell variables the developer's environment
 * supplies (SPEAK_EMAIL/SPEAK_PASSWORD, or a token), never text of the report; ids the reproduction
 * creates afresh are variables too. Nothing here exits the shell it is pasted into.
 */
import type { EvidenceEntry } from '../evidence/evidence.ts';
import { REDACTED } from '../evidence/redact.ts';

/** Marks a shell variable (private-use characters no evidence holds) in text that is quoted later (`shellWord` turns it into `${NAME}`). */
export function variable(name: string): string {
  return `\uE000${name}\uE001`;
}

/**
 * A shell word in double quotes: everything literal except the variables marked with `variable`.
 * A `!` is closed out into single quotes: inside double quotes an interactive bash expands history
 * on it ("event not found"), and a reproduction is pasted into one.
 */
export function shellWord(text: string): string {
  const escaped = text
    .replace(/[\\"`$]/g, (c) => `\\${c}`)
    .replace(/!/g, `"'!'"`)
    .replace(/\uE000([A-Za-z_][A-Za-z0-9_]*)\uE001/g, (_whole, name: string) => `\${${name}}`);
  return `"${escaped}"`;
}

/**
 * A `#` comment line: text from the evidence (an id the server made, an error) kept on one line, so
 * a line break in it can never start a command of its own in the pasted script.
 */
export function comment(text: string): string {
  return `# ${text.replace(/\p{Cc}+/gu, ' ')}`;
}

/** Which account a request is made with, and the variables that stand for its secrets. */
export interface Account {
  /** How the report names it: "A" (the run's own account) or "B" (its second identity). */
  label: 'A' | 'B';
  token: string;
  refreshToken: string;
  /** The environment variables the login step reads (src/config/options.ts names them). */
  email: string;
  password: string;
  /** An environment variable holding a token to use instead of logging in (--token / --second-token). */
  presetToken: string;
}

/** One account: the plain SPEAK_TOKEN of the run's options. */
const ONLY_ACCOUNT: Account = {
  label: 'A',
  token: 'SPEAK_TOKEN',
  refreshToken: 'SPEAK_REFRESH_TOKEN',
  email: 'SPEAK_EMAIL',
  password: 'SPEAK_PASSWORD',
  presetToken: 'SPEAK_TOKEN',
};
/** Two accounts (a security check): every token says whose it is. */
const ACCOUNT_A: Account = { ...ONLY_ACCOUNT, token: 'SPEAK_TOKEN_A', refreshToken: 'SPEAK_REFRESH_TOKEN_A' };
const ACCOUNT_B: Account = {
  label: 'B',
  token: 'SPEAK_TOKEN_B',
  refreshToken: 'SPEAK_REFRESH_TOKEN_B',
  email: 'SPEAK_SECOND_EMAIL',
  password: 'SPEAK_SECOND_PASSWORD',
  presetToken: 'SPEAK_SECOND_TOKEN',
};

export function accountOf(e: Pick<EvidenceEntry, 'account'>, twoAccounts: boolean): Account {
  if (!twoAccounts) return ONLY_ACCOUNT;
  return e.account === 'second' ? ACCOUNT_B : ACCOUNT_A;
}

/** The variable a redacted JSON field of a request body stands for. */
function variableForKey(key: string, account: Account): string {
  if (/password|passwd/i.test(key)) return account.password;
  if (/refresh/i.test(key)) return account.refreshToken;
  return account.token;
}

/** The request body with every redacted secret field as its account's variable. */
export function bodyWithVariables(body: string, account: Account): string {
  return body.replace(
    new RegExp(`"([A-Za-z0-9_-]*)"(\\s*:\\s*)"${REDACTED}"`, 'g'),
    (_whole, key: string, colon: string) => `"${key}"${colon}"${variable(variableForKey(key, account))}"`,
  );
}

export function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** sed picking a string field out of a JSON answer (the last one on its line). */
function sedField(field: string): string {
  return `sed -n 's/.*"${field}"[^"]*"\\([^"]*\\)".*/\\1/p'`;
}

/**
 * The login step of an account: a fresh token from the login endpoint (spec: POST /auth/login with
 * email and password answers access_token and refresh_token) when its email variable is set, else
 * the token in its token variable (a permanent one: --token / --second-token). A token left from an
 * earlier paste is never reused when the email is set: it may have expired since. A failed login
 * says so on stderr; the requests after it then answer 401.
 */
export function loginStep(account: Account, authUrl: string, o: { refresh: boolean }): string[] {
  // Each value escaped for JSON by sed: a password may hold " or \.
  const json = (name: string) => `$(printf '%s' "$${name}" | sed 's/[\\\\"]/\\\\&/g')`;
  const body = `"{\\"email\\":\\"${json(account.email)}\\",\\"password\\":\\"${json(account.password)}\\"}"`;
  const login = `curl -sS -X POST -H 'content-type: application/json' --data-raw ${body} ${singleQuoted(`${authUrl}/auth/login`)}`;
  const answer = `LOGIN_${account.label}`;
  const lines = [
    `# Account ${account.label}: log in with $${account.email} and $${account.password} (without them: $${account.presetToken}, a token).`,
  ];
  if (account.token !== account.presetToken) lines.push(`${account.token}=$${account.presetToken}`);
  const fields = [`${account.token}=$(printf '%s' "$${answer}" | ${sedField('access_token')})`];
  if (o.refresh)
    fields.push(`${account.refreshToken}=$(printf '%s' "$${answer}" | ${sedField('refresh_token')})`);
  lines.push(
    `[ -z "$${account.email}" ] || { ${answer}=$(${login}); ${fields.join('; ')}; }`,
    `[ -n "$${account.token}" ] || echo 'no token for account ${account.label}: set ${account.email} and ${account.password} (or ${account.presetToken})' >&2`,
  );
  return lines;
}

/** `NAME=$(<create command> | sed …)`: the id a creating request answered, and the id shown. */
export function captureId(name: string, command: string, field: string): string[] {
  return [`${name}=$(${command} | ${sedField(field)})`, `echo "${name}=$${name}"`];
}

/** Polls an item until its status is ready (spec: a voice is ready after a few seconds), at most `seconds`. */
export function waitUntilReady(getCommand: string, seconds: number): string {
  return `i=0; until ${getCommand} | grep -q '"status"[^"]*"ready"'; do i=$((i+1)); [ "$i" -lt ${seconds} ] || break; sleep 1; done`;
}

/** Runs a command keeping its answer (headers and body) in ANSWER, prints it, and keeps its Location. */
export function keepingLocation(command: string): string[] {
  return [
    `ANSWER=$(${command}); printf '%s\\n' "$ANSWER"`,
    `LOCATION=$(printf '%s\\n' "$ANSWER" | sed -n 's/^[Ll]ocation:[[:space:]]*//p' | tr -d '\\r')`,
  ];
}
