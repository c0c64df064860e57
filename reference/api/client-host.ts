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
