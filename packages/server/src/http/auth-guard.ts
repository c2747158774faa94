import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { ErrorBody, roleAllows, type Role } from '@adam/contracts';
import { Forbidden } from '../lib/errors.js';
import { presentedKey } from '../lib/presented-key.js';
import { roleOf, type AuthContext, type AuthService } from '../services/auth.service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without an API key. */
    public?: boolean;
    /** Public, yet acts on the key it is presented (refresh): guarded like a keyed route. */
    readsKey?: boolean;
    /** The least role that may call the route. A keyed route without one is refused to all. */
    role?: Role;
    /** Answers a user who must still change their one-time password (the password change itself). */
    beforePasswordChange?: boolean;
    /**
     * A person's own login only, refused to a program's API key: minting keys, the password,
     * 2FA and revoking sessions. A leaked key must not be able to make itself more keys.
     */
    sessionOnly?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

/** The OpenAPI extension naming the role an operation needs (the role-walk test reads it). */
const REQUIRED_ROLE = 'x-required-role';

/**
 * Everything in this scope needs a valid key unless its route says `config: { public: true }`,
 * and a role: deny by default, so a route that forgot to declare one answers 403 to everyone.
 */
export function registerAuthGuard(app: FastifyInstance, auth: AuthService): void {
  app.decorateRequest('auth', null);
  app.addHook('onRoute', documentRole);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    if (config.public) return;
    const ctx = auth.authenticate(presentedKey(req), req.ip);
    req.auth = ctx;
    if (ctx.user.must_change_password && !config.beforePasswordChange) {
      throw new Forbidden('Change your one-time password first (POST /api/v1/auth/password)');
    }
    if (!config.role) {
      throw new Forbidden(`${req.method} ${req.routeOptions.url} declares no role: refused to all`);
    }
    const role = roleOf(ctx);
    if (!roleAllows(role, config.role)) {
      const who =
        ctx.key.kind === 'api'
          ? `the API key "${ctx.key.name}" of ${ctx.user.email} (${ctx.key.scope} scope) acts as ${article(role)} ${role}`
          : `${ctx.user.email} is ${article(role)} ${role}`;
      throw new Forbidden(`This needs the ${config.role} role; ${who}`);
    }
    if (config.sessionOnly && ctx.key.kind !== 'session') {
      throw new Forbidden('This needs a login session: an API key cannot do this');
    }
  });
}

const article = (role: Role) =>
  role === 'operator' ? 'an' : role === 'administrator' ? 'an' : 'a';

/** Puts the role in the OpenAPI document and lists the 403 a keyed route may answer. */
function documentRole(route: RouteOptions): void {
  if (!route.schema || route.config?.public) return;
  const schema = route.schema as Record<string, unknown>;
  schema[REQUIRED_ROLE] = route.config?.role ?? 'none';
  const response = (route.schema.response ?? {}) as Record<string | number, unknown>;
  if (!(403 in response) && !('403' in response)) response[403] = ErrorBody;
  route.schema.response = response;
}

export function requireAuth(req: FastifyRequest): AuthContext {
  if (!req.auth) throw new Error('route needs the auth guard');
  return req.auth;
}
