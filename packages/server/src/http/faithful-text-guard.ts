import type { FastifyInstance } from 'fastify';
import { BadRequest, Unprocessable } from '../lib/errors.js';
import { findUnfaithfulText } from '../lib/faithful-text.js';

// ignoreBOM keeps a leading BOM in the text, so JSON.parse refuses it as it did before.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Text reaches the store as it was sent, or not at all. Every route, present and future:
 * a JSON body or a query string that is not valid UTF-8 answers 400 (the default decoding would turn the bad
 * bytes into U+FFFD), and a body or query holding a NUL, an unpaired surrogate or a
 * `__proto__` key answers 422 naming the field. The body is checked as it is parsed, before any
 * hook or schema, so no route can forget it and the zod schemas (and the OpenAPI document) stay
 * as they are.
 */
export function registerFaithfulTextGuard(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      return done(new BadRequest('Request body is not valid UTF-8'), undefined);
    }
    if (text.length === 0) {
      return done(
        new BadRequest('Request body is empty but Content-Type is application/json'),
        undefined,
      );
    }
    let value: unknown;
    try {
      // JSON.parse makes `__proto__` an own property (no pollution); findUnfaithfulText refuses it.
      value = JSON.parse(text);
    } catch (err) {
      return done(new BadRequest(`Invalid JSON body: ${(err as Error).message}`), undefined);
    }
    const bad = findUnfaithfulText(value);
    if (bad) return done(new Unprocessable(`${bad.field} ${bad.message}`, [bad]), undefined);
    done(null, value);
  });

  // Only routes that read the query: parameters a route ignores never reach the store.
  app.addHook('preValidation', async (req) => {
    if (!req.routeOptions.schema?.querystring) return;
    const at = req.url.indexOf('?');
    if (at !== -1 && !isUtf8Escaped(req.url.slice(at + 1))) {
      throw new BadRequest('Query string is not valid UTF-8');
    }
    const bad = findUnfaithfulText(req.query);
    if (bad) throw new Unprocessable(`${bad.field} ${bad.message}`, [bad]);
  });
}

/**
 * Whether every run of %XX escapes decodes as UTF-8. The query parser turns bad bytes into
 * U+FFFD without a word; a lone `%` it keeps as it is, and so does this check.
 */
function isUtf8Escaped(query: string): boolean {
  for (const run of query.match(/(?:%[0-9A-Fa-f]{2})+/g) ?? []) {
    try {
      decodeURIComponent(run);
    } catch {
      return false;
    }
  }
  return true;
}
