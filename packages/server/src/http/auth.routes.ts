import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  API_KEY_COOKIE,
  ChangePasswordRequest,
  ErrorBody,
  LoginRequest,
  LoginResponse,
  NoContent,
  RefreshResponse,
  TwoFactorCodeRequest,
  TwoFactorSetupResponse,
  TwoFactorStatus,
  User,
  WsTicketResponse,
} from '@adam/contracts';
import { presentedKey } from '../lib/presented-key.js';
import type { AuthService } from '../services/auth.service.js';
import { requireAuth } from './auth-guard.js';

const errors = { 401: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const tags = ['auth'];

export function authRoutes(auth: AuthService, cookieMaxAgeSeconds: number) {
  // Secure when the request came over TLS: `request.protocol` is https on a TLS socket, or
  // behind a proxy trusted by ADAM_TRUST_PROXY that says X-Forwarded-Proto: https.
  const cookieFlags = {
    httpOnly: true,
    sameSite: 'strict',
    path: '/api',
    secure: 'auto',
  } as const;
  const setCookie = (reply: FastifyReply, key: string) =>
    reply.setCookie(API_KEY_COOKIE, key, { ...cookieFlags, maxAge: cookieMaxAgeSeconds });

  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/auth/login',
      {
        config: { public: true },
        schema: { tags, body: LoginRequest, response: { 200: LoginResponse, ...errors } },
      },
      async (req, reply) => {
        const result = await auth.login(req.body, req.ip, req.headers['user-agent']);
        if (result.api_key) setCookie(reply, result.api_key);
        return result;
      },
    );

    app.post(
      '/auth/refresh',
      {
        config: { public: true, readsKey: true },
        schema: { tags, response: { 200: RefreshResponse, 401: ErrorBody } },
      },
      async (req, reply) => {
        const result = auth.refresh(presentedKey(req));
        setCookie(reply, result.api_key);
        return result;
      },
    );

    app.post(
      '/auth/logout',
      {
        config: { role: 'viewer', beforePasswordChange: true },
        schema: { tags, response: { 204: NoContent, 401: ErrorBody } },
      },
      async (req, reply) => {
        auth.logout(requireAuth(req));
        // With the same flags as the cookie it clears: a browser only replaces its exact match.
        reply.clearCookie(API_KEY_COOKIE, cookieFlags);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/auth/ws-ticket',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          summary: 'A single-use ticket for the realtime socket',
          description:
            'Open GET /api/v1/ws?ticket=... within expires_in seconds. The socket then lives and dies with the key that asked for the ticket; the ticket works once.',
          response: { 200: WsTicketResponse, 401: ErrorBody },
        },
      },
      // The guard has authenticated the presented key: the ticket is bound to that key.
      async (req) => {
        requireAuth(req);
        return auth.issueTicket(presentedKey(req)!);
      },
    );

    app.get(
      '/auth/me',
      {
        config: { role: 'viewer', beforePasswordChange: true },
        schema: { tags, response: { 200: User, 401: ErrorBody } },
      },
      async (req) => auth.toUser(requireAuth(req).user),
    );

    app.post(
      '/auth/password',
      {
        config: { role: 'viewer', beforePasswordChange: true, sessionOnly: true },
        schema: { tags, body: ChangePasswordRequest, response: { 204: NoContent, ...errors } },
      },
      async (req, reply) => {
        await auth.changePassword(
          requireAuth(req),
          req.body.current_password,
          req.body.new_password,
        );
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/auth/2fa/setup',
      {
        config: { role: 'viewer', sessionOnly: true },
        schema: { tags, response: { 200: TwoFactorSetupResponse, 401: ErrorBody, 409: ErrorBody } },
      },
      async (req) => auth.setupTwoFactor(requireAuth(req)),
    );

    app.post(
      '/auth/2fa/enable',
      {
        config: { role: 'viewer', sessionOnly: true },
        schema: {
          tags,
          body: TwoFactorCodeRequest,
          response: { 200: TwoFactorStatus, 400: ErrorBody, 409: ErrorBody, ...errors },
        },
      },
      async (req) => {
        auth.enableTwoFactor(requireAuth(req), req.body.code);
        return { totp_enabled: true };
      },
    );

    app.post(
      '/auth/2fa/disable',
      {
        config: { role: 'viewer', sessionOnly: true },
        schema: {
          tags,
          body: TwoFactorCodeRequest,
          response: { 200: TwoFactorStatus, 409: ErrorBody, ...errors },
        },
      },
      async (req) => {
        auth.disableTwoFactor(requireAuth(req), req.body.code);
        return { totp_enabled: false };
      },
    );
  };
}
