/** The ClientDiagnostic a promise rejects with; the test fails when it resolves or rejects otherwise. */
import { expect } from 'vitest';
import { ClientDiagnostic } from '../../src/client/diagnostics.ts';

export async function failure(p: Promise<unknown>): Promise<ClientDiagnostic> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientDiagnostic);
  return error as ClientDiagnostic;
}
