/**
 * The request fields speak-v1.md's tables list, per request body: what a server written from the
 * contract alone knows. Latitude strict-request-fields refuses every other field (a choice the
 * contract leaves open: "Whether `default_style` and `status_webhook` may be sent on generation is
 * not shown as a request rule."), so a harness whose MUST tests send wire-facts-only fields is caught
 * being unfair.
 */
export const TABLE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  '/v1/speak/takes/generate': [
    'text',
    'voice_id',
    'prosody',
    'style',
    'override_language',
    'status_webhook',
    'done_webhook',
  ],
  '/v1/speak/voices/generate': ['name', 'gender', 'model', 'default_prosody', 'done_webhook'],
  '/auth/login': ['email', 'password'],
  '/auth/refresh': ['refresh_token', 'email'],
  '/auth/logout': ['refresh_token'],
};

/** The fields of `body` (an object, or each object of an array) that `listed` does not name. */
export function unknownFields(body: unknown, listed: readonly string[]): string[] {
  const objects = Array.isArray(body) ? body : [body];
  const unknown = new Set<string>();
  for (const item of objects) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) continue;
    for (const key of Object.keys(item)) if (!listed.includes(key)) unknown.add(key);
  }
  return [...unknown];
}
