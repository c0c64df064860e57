/**
 * The route of a request: its method and its path with every id replaced by a placeholder, so every
 * request to "the flac audio of a take" is one route whatever the take
 * (`GET /v1/speak/takes/{take_id}/flac`). Derived from the URL alone (any server, any path): a
 * segment is an id when it looks like one (a UUID, a number, a long token with digits), and its
 * placeholder is named after the collection before it (`takes/…` → `{take_id}`), else `{id}`.
 * The query is never part of a route (it carries signatures and secrets).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The prefix of every id the harness itself puts in a path (a probe's unknown id, a made-up voice):
 * `speakcheck-probe-unknown` is a take id to the route as much as the server's own ids are.
 */
export const HARNESS_ID_PREFIX = 'speakcheck-';

/** Whether a path segment is an id rather than a name of the API. */
export function isIdSegment(segment: string): boolean {
  if (UUID.test(segment) || /^\d+$/.test(segment)) return true;
  if (segment.startsWith(HARNESS_ID_PREFIX)) return true;
  // A hex digest or a token: long, with digits (API names like `v1`, `m4a` are short).
  if (/^[0-9a-f]{8,}$/i.test(segment) && /\d/.test(segment)) return true;
  return segment.length >= 16 && /\d/.test(segment) && /^[A-Za-z0-9._~%-]+$/.test(segment);
}

/** `/v1/speak/takes/3f0c…/flac` → `/v1/speak/takes/{take_id}/flac`. */
export function pathTemplate(pathname: string): string {
  const segments = pathname.split('/');
  return segments
    .map((segment, i) => {
      if (segment === '' || !isIdSegment(segment)) return segment;
      const before = segments[i - 1] ?? '';
      const singular = /^[a-z]+s$/i.test(before) ? before.slice(0, -1).toLowerCase() : '';
      return singular ? `{${singular}_id}` : '{id}';
    })
    .join('/');
}

/** An HTTP method (RFC 9110 §9), as a request names it. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

const METHODS: ReadonlySet<string> = new Set<HttpMethod>([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

/** A request's method, typed: `post` → `POST`; undefined for one that is no method of RFC 9110. */
export function httpMethod(method: string): HttpMethod | undefined {
  const upper = method.toUpperCase();
  return METHODS.has(upper) ? (upper as HttpMethod) : undefined;
}

/** Methods a request may be sent again with after no answer (RFC 9110 §9.2.2). */
const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set<HttpMethod>(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export function isIdempotent(method: HttpMethod): boolean {
  return IDEMPOTENT.has(method);
}

/** `GET /v1/speak/takes/{take_id}/flac` for a request's method and URL. */
export function routeOf(method: string, url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    pathname = url.split('?')[0] ?? url;
  }
  return `${method.toUpperCase()} ${pathTemplate(pathname)}`;
}

/**
 * The websocket upgrade as one route: its URL (path included) is the server's secret and each worker
 * may have its own address, so every upgrade of the run is the same route.
 */
export const WEBSOCKET_UPGRADE_ROUTE = 'GET (websocket upgrade) {worker url}';
/** A take (or voice) request on an open websocket: its own route, beside the upgrade. */
export const WEBSOCKET_REQUEST_ROUTE = 'websocket request {command} on an open connection';
