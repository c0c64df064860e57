/**
 * Nothing secret may reach evidence, logs or reports: tokens, passwords, URL signatures and
 * websocket secrets are replaced before anything is recorded. Two nets: known secret values
 * (registered as the session learns them) are replaced wherever they appear, and anything that
 * looks secret by its name (header, JSON key, query parameter) or shape (a JWT) is replaced too.
 */

export const REDACTED = '‹redacted›';

const knownSecrets = new Set<string>();

/** Remember a secret value (a token, a password) so it is replaced wherever it shows up later. */
export function registerSecret(value: string | undefined | null): void {
  // Very short values would redact ordinary words; they are caught by name instead.
  if (typeof value === 'string' && value.length >= 6) knownSecrets.add(value);
}

const SECRET_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-amz-security-token)$/i;
const SECRET_KEY = /(token|password|passwd|secret|signature|credential|api[_-]?key)$/i;
const SECRET_QUERY = /(signature|^sig$|token|secret|credential|password|^key$|^x-amz-security-token$)/i;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const WEBSOCKET_URL_KEY = /websocket_url$/i;

/** Whether `text` holds a secret the run has registered (a token, a password). */
export function carriesKnownSecret(text: string): boolean {
  for (const secret of knownSecrets) if (text.includes(secret)) return true;
  return false;
}

export function redactText(text: string): string {
  let out = text;
  for (const secret of knownSecrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  out = out.replace(JWT, REDACTED);
  // Query parameters named like secrets, wherever a URL appears inside text.
  out = out.replace(/([?&])([^=&#\s"'<>]+)=([^&#\s"'<>]*)/g, (whole, sep: string, name: string) =>
    SECRET_QUERY.test(decodeURIComponentSafe(name)) ? `${sep}${name}=${REDACTED}` : whole,
  );
  // JSON written as text: "password":"...", "refresh_token": "..."
  out = out.replace(/"([A-Za-z0-9_-]*)"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g, (whole, key: string, colon: string) =>
    SECRET_KEY.test(key) ? `"${key}"${colon}"${REDACTED}"` : whole,
  );
  return out;
}

export function redactUrl(url: string): string {
  return redactText(url);
}

export function redactHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(', ') : String(value);
    if (SECRET_HEADER.test(name)) {
      const scheme = /^(Bearer|Basic)\s/i.exec(joined)?.[1];
      out[name] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
    } else {
      out[name] = redactText(joined);
    }
  }
  return out;
}

/** A deep copy with secret-named keys and secret-looking strings replaced. */
export function redactJson(value: unknown, key = ''): unknown {
  if (typeof value === 'string') {
    if (SECRET_KEY.test(key)) return REDACTED;
    if (WEBSOCKET_URL_KEY.test(key)) return describeWebsocketUrl(value);
    return redactText(value);
  }
  if (Array.isArray(value)) return value.map((item) => redactJson(item, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJson(v, k)]));
  }
  return value;
}

/**
 * A websocket URL is a secret by itself (spec: "contains a secret"): keep only where it points
 * (for evidence, messages and reports).
 */
export function describeWebsocketUrl(value: string): string {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}/${REDACTED}`;
  } catch {
    return REDACTED;
  }
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A copy of `err` fit for what prints a thrown error whole, outside the reports that redact it
 * (vitest's JUnit reporter, allure-vitest): the message, the stack and every own property (vitest
 * prints them as the "Serialized Error", e.g. a diagnostic's raw `url`) redacted, the cause chain
 * and an AggregateError's errors too. The copy keeps the error's class (its prototype, so
 * `instanceof` and the class's name hold), its `name` and its `code`: what tells what it is.
 */
export function redactError(err: unknown, depth = 0): unknown {
  if (typeof err === 'string') return redactText(err);
  if (!(err instanceof Error)) return err;
  // A longer cause chain is cut: a cycle (an error its own cause) must not recurse forever.
  if (depth > 5) return undefined;
  const copy = Object.create(Object.getPrototypeOf(err)) as Error;
  for (const key of Object.getOwnPropertyNames(err)) {
    const descriptor = Object.getOwnPropertyDescriptor(err, key)!;
    // An accessor (V8's `stack` may be one) is read once: the copy holds what it read, redacted.
    const value = (err as unknown as Record<string, unknown>)[key];
    Object.defineProperty(copy, key, {
      value: redactedProperty(key, value, depth),
      enumerable: descriptor.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function redactedProperty(key: string, value: unknown, depth: number): unknown {
  // The facts that tell what the error is are no secrets, and a code is compared whole.
  if (key === 'name' || key === 'code') return value;
  if (value instanceof Error) return redactError(value, depth + 1);
  if (Array.isArray(value)) return value.map((item) => redactedProperty(key, item, depth));
  return redactJson(value, key);
}
