import type { FastifyInstance, FastifyRequest } from 'fastify';
import { presentedKey } from '../lib/presented-key.js';
import type { AuthContext, AuthService } from '../services/auth.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without an API key. */
    public?: boolean;
    /** Public, yet acts on the key it is presented (refresh): guarded like a keyed route. */
    readsKey?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

/** Everything in this scope needs a valid key unless its route says `config: { public: true }`. */
export function registerAuthGuard(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('auth', null);
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.config.public) return;
    req.auth = auth.authenticate(presentedKey(req));
  });
}

export function requireAuth(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new Error('route needs the auth guard');
  return req.auth;
}
