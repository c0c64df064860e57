/**
 * `--ca-file`: the file is read and checked when the config is resolved (a bad path is a config
 * error before anything runs) and again when src/client/tls-trust.ts installs it for the run's
 * connections; config/ sits below client/, so the one reader lives here.
 */
import { readFileSync } from 'node:fs';

/** Reads a PEM CA file (or throws a plain Error saying why it cannot be used). */
export function readCaFile(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error('it holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  return pem;
}
