import { API_KEY_COOKIE, CONSOLE_HEADER } from '@adam/contracts';
import type { FastifyInstance } from 'fastify';
import { foreignOriginDetail, originAllowed, originSet } from '../lib/origin.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery, refused before any route runs:
 * - a change (any method but GET/HEAD/OPTIONS) without X-API-Key from a foreign Origin answers
 *   403 (the realtime socket refuses upgrades from one the same way); the login cookie is
 *   SameSite=Strict, but another port of the same host is the same site to a browser;
 * - a change authenticated by the login cookie (no X-API-Key) must carry the console's header:
 *   a form or a `text/plain` fetch from another page cannot.
 * API clients that send X-API-Key, and requests without Origin, are unaffected.
 */
export function registerCrossSiteGuard(
  app: FastifyInstance,
  allowedOrigins: readonly string[],
): void {
  const allowed = originSet(allowedOrigins);
  app.addHook('onRequest', async (req, reply) => {
    // The realtime socket checks the Origin of its upgrades itself (ws-channel.ts).
    if (SAFE_METHODS.has(req.method)) return;
    // A request carrying the key in its header cannot be forged by another page: it has the key.
    if (req.headers['x-api-key']) return;
    if (!originAllowed(req.headers, allowed)) {
      return reply.status(403).send({ detail: foreignOriginDetail(req.headers.origin) });
    }
    // Login and the other public routes do not act on the cookie: it cannot be abused there.
    const config = req.routeOptions.config;
    if (config?.public && !config.readsKey) return;
    if (req.cookies[API_KEY_COOKIE] && !req.headers[CONSOLE_HEADER.toLowerCase()]) {
      return reply.status(403).send({
        detail: `A change authenticated by the login cookie must carry the ${CONSOLE_HEADER} header, as the console does; API clients send their key in X-API-Key`,
      });
    }
  });
}
