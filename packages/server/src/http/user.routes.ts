import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  CreatedUser,
  CreateUser,
  ErrorBody,
  IdParams,
  NoContent,
  UpdateUser,
  UserAccount,
  UserAccountList,
} from '@adam/contracts';
import type { UserAdminService } from '../services/user-admin.service.js';
import { requireAuth } from './auth-guard.js';

const tags = ['users'];
const config = { role: 'administrator' } as const;
const errors = { 404: ErrorBody, 409: ErrorBody, 422: ErrorBody };

/** User administration: an administrator's only. */
export function userRoutes(users: UserAdminService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/users',
      { config, schema: { tags, response: { 200: UserAccountList } } },
      async () => ({ items: users.list() }),
    );

    app.post(
      '/admin/users',
      {
        config,
        schema: {
          tags,
          summary: 'Create a user with a one-time password',
          description:
            'The password is shown once; the user must change it at first login (until then every call but POST /auth/password answers 403).',
          body: CreateUser,
          response: { 201: CreatedUser, ...errors },
        },
      },
      async (req, reply) =>
        reply.status(201).send(await users.create(req.body, requireAuth(req).user)),
    );

    app.patch(
      '/admin/users/:id',
      {
        config,
        schema: {
          tags,
          summary: 'Rename, change the role of, disable or enable a user',
          description:
            "Disabling ends the user's sessions at once. The last active administrator cannot be disabled or demoted (409).",
          params: IdParams,
          body: UpdateUser,
          response: { 200: UserAccount, ...errors },
        },
      },
      async (req) => users.update(req.params.id, req.body, requireAuth(req).user),
    );

    app.delete(
      '/admin/users/:id',
      {
        config,
        schema: {
          tags,
          summary: 'Delete a user (the last active administrator cannot be deleted: 409)',
          params: IdParams,
          response: { 204: NoContent, ...errors },
        },
      },
      async (req, reply) => {
        users.delete(req.params.id, requireAuth(req).user);
        return reply.status(204).send(null);
      },
    );
  };
}
