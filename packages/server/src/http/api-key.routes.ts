import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ApiKeyList,
  CreateApiKey,
  CreatedApiKey,
  ErrorBody,
  IdParams,
  NoContent,
  RevokedCount,
  SessionList,
  UserKeyParams,
} from '@adam/contracts';
import type { ApiKeyService } from '../services/api-key.service.js';
import type { SessionService } from '../services/session.service.js';
import { requireAuth } from './auth-guard.js';

const errors = { 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };
/** One's own keys and sessions: any role; changes from a login session only (not an API key). */
const own = { role: 'viewer', sessionOnly: true } as const;
const admin = { role: 'administrator' } as const;

/** Programs' API keys and login sessions: the user's own, then an administrator's of anyone. */
export function apiKeyRoutes(keys: ApiKeyService, sessions: SessionService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();
    const tags = ['auth'];

    app.get(
      '/auth/api-keys',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: ApiKeyList } } },
      async (req) => ({ items: keys.list(requireAuth(req).user.id) }),
    );

    app.post(
      '/auth/api-keys',
      {
        config: own,
        schema: {
          tags,
          summary: 'Create an API key for a program (from a login session only)',
          description:
            "The secret is answered once; only its hash is kept. A call with the key acts with the lesser of its scope (read: viewer, write: operator, admin: administrator) and the user's role; a scope above the user's role is refused (403).",
          body: CreateApiKey,
          response: { 201: CreatedApiKey, ...errors },
        },
      },
      async (req, reply) => reply.status(201).send(keys.create(requireAuth(req), req.body, req.ip)),
    );

    app.delete(
      '/auth/api-keys/:id',
      {
        config: own,
        schema: {
          tags,
          summary: 'Revoke one of your API keys at once (its open sockets close)',
          params: IdParams,
          response: { 204: NoContent, ...errors },
        },
      },
      async (req, reply) => {
        const ctx = requireAuth(req);
        keys.revoke(ctx.user.id, req.params.id, ctx);
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/auth/sessions',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          summary: 'Your live login sessions (current: the one asking)',
          response: { 200: SessionList },
        },
      },
      async (req) => {
        const ctx = requireAuth(req);
        return { items: sessions.list(ctx.user.id, ctx) };
      },
    );

    app.delete(
      '/auth/sessions/:id',
      {
        config: own,
        schema: {
          tags,
          summary: 'End one of your sessions',
          params: IdParams,
          response: { 204: NoContent, ...errors },
        },
      },
      async (req, reply) => {
        const ctx = requireAuth(req);
        sessions.revoke(ctx.user.id, req.params.id, ctx);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/auth/sessions/revoke-others',
      {
        config: own,
        schema: {
          tags,
          summary: 'End all your sessions but this one',
          response: { 200: RevokedCount },
        },
      },
      async (req) => {
        const ctx = requireAuth(req);
        return { revoked: sessions.revokeAll(ctx.user.id, ctx, ctx.key.id) };
      },
    );

    const adminTags = ['users'];

    app.get(
      '/admin/users/:id/api-keys',
      {
        config: admin,
        schema: {
          tags: adminTags,
          params: IdParams,
          response: { 200: ApiKeyList, 404: ErrorBody },
        },
      },
      async (req) => ({ items: keys.list(req.params.id) }),
    );

    app.delete(
      '/admin/users/:id/api-keys/:keyId',
      {
        config: admin,
        schema: {
          tags: adminTags,
          summary: "Revoke a user's API key at once",
          params: UserKeyParams,
          response: { 204: NoContent, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        keys.revoke(req.params.id, req.params.keyId, requireAuth(req));
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/admin/users/:id/sessions',
      {
        config: admin,
        schema: {
          tags: adminTags,
          params: IdParams,
          response: { 200: SessionList, 404: ErrorBody },
        },
      },
      async (req) => ({ items: sessions.list(req.params.id, requireAuth(req)) }),
    );

    app.delete(
      '/admin/users/:id/sessions',
      {
        config: admin,
        schema: {
          tags: adminTags,
          summary: "End all of a user's sessions (their sockets close)",
          params: IdParams,
          response: { 200: RevokedCount, 404: ErrorBody },
        },
      },
      async (req) => ({ revoked: sessions.revokeAll(req.params.id, requireAuth(req)) }),
    );

    app.delete(
      '/admin/users/:id/sessions/:keyId',
      {
        config: admin,
        schema: {
          tags: adminTags,
          summary: "End one of a user's sessions (its sockets close)",
          params: UserKeyParams,
          response: { 204: NoContent, 404: ErrorBody },
        },
      },
      async (req, reply) => {
        sessions.revoke(req.params.id, req.params.keyId, requireAuth(req));
        return reply.status(204).send(null);
      },
    );
  };
}
