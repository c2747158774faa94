import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AuditExportQuery,
  AuditPage,
  AuditSearchQuery,
  AuditVerification,
  SETTINGS_SECTIONS,
} from '@adam/contracts';
import { changedFields, outcomeOf, type AuditService } from '../services/audit.service.js';
import type { SettingsService } from '../services/settings.service.js';

const tags = ['audit'];
const API_PREFIX = '/api/v1';

/**
 * Writes through POST that change nothing: searches, exports, analyses, fetch previews, socket
 * tickets and key refreshes. Like GETs they are recorded only when refused.
 */
const READS = new Set([
  'POST /snippets/search',
  'POST /snippets/export',
  'POST /admin/index/search',
  'POST /playground/analyze',
  'POST /playground/fetch-url',
  'POST /playground/fetch-wikipedia',
  'POST /admin/models/:id/test',
  'POST /auth/ws-ticket',
  'POST /auth/refresh',
]);
/** Reads recorded like changes: a backup's download carries the whole store out. */
const AUDITED_READS = new Set(['GET /admin/maintenance/backups/:id/download']);
const LOGIN = 'POST /auth/login';
const SETTINGS_SAVE = 'PUT /admin/settings/:section';
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** An error answer longer than this is not parsed for its detail. */
const MAX_DETAIL_BYTES = 4096;

/**
 * The one place that records the API's changes: an onResponse hook of the API scope. Every call
 * that is not a read, and every refused call (401, 403) whatever its method, becomes one entry.
 * Settings saves carry the changed fields before and after (a snapshot taken before the handler).
 */
export function registerAuditTrail(
  api: FastifyInstance,
  deps: {
    audit: AuditService;
    settings: SettingsService;
    /** The session a login's answer holds: a successful login is recorded as its user. */
    sessionOf?: (secret: string) => { id: number; user_id: number } | undefined;
  },
): void {
  const settingsBefore = new WeakMap<FastifyRequest, Record<string, unknown>>();
  const errorDetail = new WeakMap<FastifyRequest, string>();
  const loggedIn = new WeakMap<FastifyRequest, { user_id: number; key_id: number }>();

  api.addHook('preHandler', async (req) => {
    if (routeId(req) !== SETTINGS_SAVE) return;
    const section = (req.params as { section?: string }).section;
    if ((SETTINGS_SECTIONS as readonly (string | undefined)[]).includes(section)) {
      settingsBefore.set(req, deps.settings.get(deps.settings.section(section!)));
    }
  });

  api.addHook('onSend', async (req, reply, payload) => {
    if (
      reply.statusCode === 200 &&
      deps.sessionOf &&
      typeof payload === 'string' &&
      routeId(req) === LOGIN
    ) {
      // Read back from the answer: the login route is public, so no req.auth names the user.
      try {
        const secret = (JSON.parse(payload) as { api_key?: unknown }).api_key;
        const session = typeof secret === 'string' ? deps.sessionOf(secret) : undefined;
        if (session) loggedIn.set(req, { user_id: session.user_id, key_id: session.id });
      } catch {
        // not JSON: recorded with the email tried only
      }
    }
    if (
      reply.statusCode >= 400 &&
      typeof payload === 'string' &&
      payload.length < MAX_DETAIL_BYTES
    ) {
      try {
        const detail = (JSON.parse(payload) as { detail?: unknown }).detail;
        if (typeof detail === 'string') errorDetail.set(req, detail);
      } catch {
        // not JSON: nothing to add
      }
    }
    return payload;
  });

  api.addHook('onResponse', async (req, reply) => {
    const status = reply.statusCode;
    const outcome = outcomeOf(status);
    const action = routeId(req);
    const isRead =
      (READ_METHODS.has(req.method) || READS.has(action)) && !AUDITED_READS.has(action);
    if (isRead && outcome !== 'refused') return;

    const detail: Record<string, unknown> = {};
    const message = errorDetail.get(req);
    if (message !== undefined) detail.detail = message;
    const before = settingsBefore.get(req);
    if (before && outcome === 'ok') {
      const section = (req.params as { section: string }).section;
      const after = deps.settings.get(deps.settings.section(section)) as Record<string, unknown>;
      detail.changes = changedFields(before, after);
    }
    const auth = req.auth;
    // A login has no key yet: the address tried is who (never the password); a successful one
    // also names the user and the session it opened.
    const triedEmail =
      action === LOGIN ? String((req.body as { email?: unknown } | null)?.email ?? '') : null;
    const login = loggedIn.get(req);
    if (action === LOGIN && outcome === 'ok' && deps.sessionOf && !login) {
      detail.step = '2FA code asked';
    }
    deps.audit.record({
      user_id: auth?.user.id ?? login?.user_id ?? null,
      user_email: auth?.user.email ?? (triedEmail ? triedEmail.slice(0, 320) : null),
      key_id: auth?.key.id ?? login?.key_id ?? null,
      key_kind: auth ? keyKind(auth.key) : login ? 'session' : null,
      action,
      target: targetOf(req.params),
      address: req.ip,
      status,
      outcome,
      detail: Object.keys(detail).length ? detail : null,
    });
  });
}

/** `PUT /admin/settings/:section`: the route without the API's prefix. */
function routeId(req: FastifyRequest): string {
  const url = req.routeOptions.url ?? req.url.split('?')[0] ?? '';
  return `${req.method} ${url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url}`;
}

/** The route's parameters: the one value (an id, a section), or `name=value&...`. */
function targetOf(params: unknown): string | null {
  if (!params || typeof params !== 'object') return null;
  const entries = Object.entries(params as Record<string, unknown>);
  if (entries.length === 0) return null;
  if (entries.length === 1) return String(entries[0]![1]).slice(0, 500);
  return entries
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('&')
    .slice(0, 500);
}

/** 'session' or 'api' once keys carry a kind (issue 26's API keys); a login's key until then. */
function keyKind(key: object): string {
  const kind = (key as { kind?: unknown }).kind;
  return typeof kind === 'string' ? kind : 'session';
}

export function auditRoutes(audit: AuditService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/admin/audit',
      {
        config: { role: 'administrator' },
        schema: { tags, querystring: AuditSearchQuery, response: { 200: AuditPage } },
      },
      async (req) => audit.search(req.query),
    );

    app.get(
      '/admin/audit/export',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          querystring: AuditExportQuery,
          response: { 200: z.unknown().describe('The file: CSV or JSON Lines') },
        },
      },
      async (req, reply) => {
        const csv = req.query.format === 'csv';
        const stamp = new Date().toISOString().slice(0, 19).replace(/[T:]/g, '-');
        return reply
          .type(csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="audit-${stamp}.${csv ? 'csv' : 'jsonl'}"`,
          )
          .send(Readable.from(audit.exportLines(req.query)));
      },
    );

    app.get(
      '/admin/audit/verify',
      {
        config: { role: 'administrator' },
        schema: { tags, response: { 200: AuditVerification } },
      },
      async () => audit.verify(),
    );
  };
}
