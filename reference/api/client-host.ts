/**
 * URLs the API hands to clients for its other listeners (worker websockets, the blob-store listener
 * of signed audio URLs). A listener bound to every interface (`--host 0.0.0.0`, the image's default)
 * knows itself only by that wildcard address, which no client can connect to; such a URL names the
 * host the client used to reach the API (the request's Host) instead, keeping the listener's own
 * scheme and port. A listener bound to a real address keeps it (as the API's own base_url does).
 */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '[::]']);

/** `url` as a client that reached the API at `requestHostname` can reach it. */
export function reachableUrl(url: string | URL, requestHostname: string): URL {
  const reachable = new URL(url);
  if (WILDCARD_HOSTS.has(reachable.hostname))
    reachable.hostname = requestHostname.replace(/:\d+$/, '') || '127.0.0.1';
  return reachable;
}

/**
 * A listener's URL as the stack hands it out (serve's base_url= and blob_url= lines): a wildcard one
 * is named by loopback, which a client on this machine reaches (not every system connects to
 * 0.0.0.0); the API's own answers name the host each request came in by instead (reachableUrl).
 */
export function handedOutUrl(url: string): string {
  const loopback = new URL(url).hostname === '[::]' ? '[::1]' : '127.0.0.1';
  return reachableUrl(url, loopback).href.replace(/\/$/, '');
}
