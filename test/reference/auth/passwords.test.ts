/** A password that matched is remembered; a wrong one never is (reference/auth/passwords.ts). */
import { expect, test } from 'vitest';
import { hashPassword, verifyPassword } from '../../../reference/auth/passwords.ts';

test('the right password matches again and again, a wrong one never, even after the right one', async () => {
  const stored = await hashPassword('correct horse');
  expect(await verifyPassword('correct horse', stored)).toBe(true);
  expect(await verifyPassword('correct horse', stored)).toBe(true);
  expect(await verifyPassword('correct hors', stored)).toBe(false);
  // The same password against another user's hash is judged by that hash.
  expect(await verifyPassword('correct horse', await hashPassword('another'))).toBe(false);
});
