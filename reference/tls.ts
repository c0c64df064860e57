/**
 * `serve --tls`: a throwaway certificate authority and a server certificate for 127.0.0.1, ::1 and
 * localhost, made at start with the `openssl` command-line tool, so the stack serves https and wss
 * the way a hosted server with a private CA does (the harness trusts it through the CA file:
 * NODE_EXTRA_CA_CERTS or --ca-file). The CA key never leaves the directory; a new pair each start.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface StackTls {
  /** The CA certificate (PEM) a client trusts. */
  caFile: string;
  keyFile: string;
  certFile: string;
  key: Buffer;
  cert: Buffer;
}

export class TlsSetupError extends Error {
  /** True when openssl itself is missing (not a failed openssl call). */
  constructor(
    message: string,
    readonly toolMissing = false,
  ) {
    super(message);
  }
}

/** Names the certificate is valid for: the stack only listens on loopback when --tls is used. */
const SUBJECT_ALT_NAMES = 'IP:127.0.0.1,IP:::1,DNS:localhost';
/** A short life: the pair is made again at every start. */
const VALID_DAYS = '7';
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new TlsSetupError(
        '--tls needs the openssl command-line tool to make its throwaway CA, and openssl is not on PATH (install openssl, or serve without --tls)',
        true,
      );
    }
    throw new TlsSetupError(
      `--tls: openssl ${args[0]} failed: ${(e.stderr ?? e.message).trim().split('\n')[0]}`,
    );
  }
}

/** Makes the CA and the server certificate in `dir` (created if missing) and reads them. */
export async function makeThrowawayTls(dir: string): Promise<StackTls> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'server.key');
  const certFile = join(dir, 'server.pem');
  await openssl(
    [
      'req',
      '-x509',
      ...EC_KEY,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      VALID_DAYS,
      '-subj',
      '/CN=speakcheck throwaway CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  await openssl(
    ['req', ...EC_KEY, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'],
    dir,
  );
  writeFileSync(
    join(dir, 'server.ext'),
    `subjectAltName=${SUBJECT_ALT_NAMES}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      VALID_DAYS,
      '-extfile',
      'server.ext',
    ],
    dir,
  );
  return { caFile, keyFile, certFile, key: readFileSync(keyFile), cert: readFileSync(certFile) };
}
