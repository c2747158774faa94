import type { FastifyInstance } from 'fastify';
import { BadRequest, Unprocessable } from '../lib/errors.js';
import { findUnfaithfulText } from '../lib/faithful-text.js';

// ignoreBOM keeps a leading BOM in the text, so JSON.parse refuses it as it did before.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Text reaches the store as it was sent, or not at all. Every route, present and future:
 * a JSON body that is not valid UTF-8 answers 400 (the default decoding would turn the bad
 * bytes into U+FFFD), and a body or query holding a NUL or an unpaired surrogate answers 422
 * naming the field. Checked on the parsed request before any schema, so no route can forget it
 * and the zod schemas (and the OpenAPI document) stay as they are.
 */
export function registerFaithfulTextGuard(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(body as Buffer);
    } catch {
      return done(new BadRequest('Request body is not valid UTF-8'), undefined);
    }
    parseJson(req, text, done);
  });

  app.addHook('preValidation', async (req) => {
    const bad = findUnfaithfulText(req.body) ?? findUnfaithfulText(req.query);
    if (bad) throw new Unprocessable(`${bad.field} ${bad.message}`, [bad]);
  });
}
