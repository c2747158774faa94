import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/**
 * The policy of the pages: the console and the API docs (Swagger UI). Scripts only from the
 * server's own files (the built console has no inline script); styles inline too, because
 * Mantine injects `<style>` elements for its theme and components. `connect-src 'self'` covers
 * the realtime socket on the same host and port (CSP 3). The scraped-page preview is a srcdoc
 * frame sandboxed without permissions: it needs no frame-src source, and it inherits this
 * policy on top of its own.
 */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The API answers data, never a page: nothing may load from it or frame it. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const COMMON: Readonly<Record<string, string>> = {
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with the console's own POSTs, and
  // the cross-site guard (cross-site.ts) needs their origin. Other sites get no referrer at all.
  'referrer-policy': 'same-origin',
};

const isApi = (url: string) =>
  (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) &&
  !/^\/api\/docs(?:[/?]|$)/.test(url);

/** Sets the headers of the answer to `url` on the raw response: kept whatever answers it. */
function setSecurityHeaders(url: string, res: ServerResponse): void {
  for (const [name, value] of Object.entries(COMMON)) res.setHeader(name, value);
  res.setHeader('content-security-policy', isApi(url) ? API_CSP : PAGE_CSP);
}

/**
 * Browser security headers on every answer: errors, 404s and streamed or hijacked answers too,
 * since they are set on the raw response before any route runs (a route may still replace them).
 */
export function registerSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    setSecurityHeaders(req.url, reply.raw);
    done();
  });
}

/** The same headers on the errors Fastify answers before any hook runs (a malformed URL). */
export function withSecurityHeaders<R extends { raw: ServerResponse }, Q extends { url: string }>(
  handler: (error: Error, req: Q, reply: R) => void,
): (error: Error, req: Q, reply: R) => void {
  return (error, req, reply) => {
    setSecurityHeaders(req.url, reply.raw);
    handler(error, req, reply);
  };
}
