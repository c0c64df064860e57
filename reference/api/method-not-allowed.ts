/**
 * 405 Method Not Allowed with `Allow` (RFC 9110 15.5.6) for a known path asked with a method it
 * does not have, for every route of the app at once: an `onRoute` hook records each route's method
 * and pattern, and the not-found handler asks `allowedMethods` before it answers 404.
 * The target resource is the most specific pattern the path matches (static segments beat
 * parameters, as the router does: `/voices/generate` is POST only even though `/voices/:voice_id`
 * also matches it), so `Allow` lists exactly the methods the document declares for that path.
 * The answer is given in an `onRequest` hook of requests the router sent to the not-found handler:
 * before body parsing, so a method that must carry a body (QUERY) is a 405 too, not a 400.
 */
import type { FastifyInstance } from 'fastify';

interface KnownPath {
  pattern: RegExp;
  /** Static segments: the router prefers the pattern with more of them. */
  staticSegments: number;
  methods: Set<string>;
}

/** A fastify route URL (`/v1/speak/takes/:take_id`) as an anchored regex over the raw path. */
function patternOf(url: string): { pattern: RegExp; staticSegments: number } {
  let staticSegments = 0;
  const parts = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    if (segment.startsWith(':')) return '[^/]+';
    staticSegments += 1;
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return { pattern: new RegExp(`^${parts.join('/')}$`), staticSegments };
}

export interface MethodRegistry {
  /** The methods of the most specific known path matching `path` (empty when none matches). */
  allowedMethods(path: string): string[];
}

/**
 * Call before any route is registered: records every route added afterwards and answers 405 for
 * a known path with an unrecorded method (`detailKey` names the error field).
 */
export function answerMethodNotAllowed(app: FastifyInstance, detailKey: () => string): MethodRegistry {
  const known = new Map<string, KnownPath>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = known.get(route.url);
    if (!entry) {
      entry = { ...patternOf(route.url), methods: new Set() };
      known.set(route.url, entry);
    }
    for (const method of methods) entry.methods.add(method.toUpperCase());
  });
  const registry: MethodRegistry = {
    allowedMethods(path) {
      let best: KnownPath | undefined;
      for (const entry of known.values()) {
        if (!entry.pattern.test(path)) continue;
        if (!best || entry.staticSegments > best.staticSegments) best = entry;
      }
      return best ? [...best.methods].sort() : [];
    },
  };
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404) return;
    const path = request.url.split('?')[0] ?? '';
    const allowed = registry.allowedMethods(path);
    if (allowed.length === 0) return;
    return reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send({
        [detailKey()]: `method ${request.method} not allowed on ${path} (allowed: ${allowed.join(', ')})`,
      });
  });
  return registry;
}
