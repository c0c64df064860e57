/**
 * `--ca-file`: a private CA trusted in addition to the system roots, for https and wss alike (REST,
 * signed URLs, the websocket). The PEM travels in node:worker_threads environment data, so every
 * module instance of the run's process (the CLI, vitest's global setup, each suite thread started
 * afterwards) sees the one set by `trustCaFile`. There is deliberately no way to turn certificate
 * verification off.
 */
import { rootCertificates } from 'node:tls';
import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import { readCaFile } from '../config/ca-file.ts';

const ENVIRONMENT_KEY = 'speakcheck:ca-pem';

/** Trusts the CA in `path` (besides the system roots) for every request of this process from now on. */
export function trustCaFile(path: string | undefined): void {
  setEnvironmentData(ENVIRONMENT_KEY, path === undefined ? '' : readCaFile(path));
  cachedPem = undefined;
}

let cachedPem: string | undefined;
let cachedList: readonly string[] | undefined;

/**
 * The CA list for a TLS connection: the system roots plus the private CA, or undefined when no CA
 * file was given (then Node's defaults apply, NODE_EXTRA_CA_CERTS included). The same array while
 * the CA does not change, so a connection pool can tell when to start over.
 */
export function trustedCa(): readonly string[] | undefined {
  const pem = getEnvironmentData(ENVIRONMENT_KEY);
  if (typeof pem !== 'string' || pem === '') return undefined;
  if (pem !== cachedPem) {
    cachedPem = pem;
    cachedList = [...rootCertificates, pem];
  }
  return cachedList;
}
