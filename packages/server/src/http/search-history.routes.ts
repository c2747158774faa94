import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  IdParams,
  SearchHistoryCleared,
  SearchHistoryPage,
  SearchHistoryQuery,
  SearchHistorySummary,
  SearchHistorySummaryQuery,
} from '@adam/contracts';
import type {
  SearchAnswer,
  SearchAsked,
  SearchHistoryService,
} from '../services/search-history.service.js';

const tags = ['search-history'];

/** The searches of snippets that are recorded (the evaluation runs call the service directly). */
const RECORDED = new Set(['/api/v1/snippets/search', '/api/v1/admin/index/search']);

/**
 * Records each successful search of the API scope. A preSerialization hook keeps a reference to
 * the answer's object (before it becomes JSON); the record itself is made in onResponse, once
 * the answer has gone out, so even the buffer append is off the search's response time.
 */
export function registerSearchRecorder(api: FastifyInstance, history: SearchHistoryService): void {
  const answers = new WeakMap<object, SearchAnswer>();
  api.addHook('preSerialization', (req, reply, payload, done) => {
    if (
      req.method === 'POST' &&
      reply.statusCode === 200 &&
      RECORDED.has(req.routeOptions.url ?? '')
    ) {
      answers.set(req, payload as SearchAnswer);
    }
    done(null, payload);
  });
  api.addHook('onResponse', (req, reply, done) => {
    const answer = answers.get(req);
    if (answer && reply.statusCode === 200) {
      try {
        history.record(req.body as SearchAsked, answer, req.auth?.user.id ?? null);
      } catch (e) {
        // The history never costs a search its answer.
        req.log.warn({ component: 'search-history', err: e }, 'Recording a search failed');
      }
    }
    done();
  });
}

export function searchHistoryRoutes(history: SearchHistoryService) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/search-history',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          description: 'Recorded searches, newest first, a page at a time (keyset cursor).',
          querystring: SearchHistoryQuery,
          response: { 200: SearchHistoryPage, 422: ErrorBody },
        },
      },
      async (req) => history.list(req.query),
    );
    app.get(
      '/search-history/summary',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          description:
            'The last N days: top queries, slowest searches, queries that found nothing or only weak matches.',
          querystring: SearchHistorySummaryQuery,
          response: { 200: SearchHistorySummary, 422: ErrorBody },
        },
      },
      async (req) => history.summary(req.query),
    );
    app.delete(
      '/search-history',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          description: 'Clears the whole history.',
          response: { 200: SearchHistoryCleared },
        },
      },
      async () => history.clear(),
    );
    app.delete(
      '/search-history/:id',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: IdParams,
          response: { 200: SearchHistoryCleared, 404: ErrorBody, 422: ErrorBody },
        },
      },
      async (req) => history.delete(req.params.id),
    );
  };
}
