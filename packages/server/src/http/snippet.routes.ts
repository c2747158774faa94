import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CleanupOrphansBody,
  CleanupOrphansQuery,
  CleanupOrphansResponse,
  ConsistencyReport,
  DeleteSnippetResponse,
  ErrorBody,
  ExportRequest,
  IdParams,
  IndexEntriesQuery,
  IndexEntryList,
  IndexInspection,
  IndexSearchRequest,
  IndexStats,
  ReconcileReport,
  Snippet,
  SnippetIndexInfo,
  SnippetList,
  SnippetListQuery,
  SnippetSearchRequest,
  SnippetSearchResponse,
} from '@adam/contracts';
import type { IndexMeasures } from '../services/index.service.js';
import type { SnippetService } from '../services/snippet.service.js';

const tags = ['snippets'];
const e = { 404: ErrorBody, 422: ErrorBody };
const ExportFile = z.unknown().describe('The file: JSON, JSON Lines or CSV');

export function snippetRoutes(snippets: SnippetService, index: Pick<IndexMeasures, 'stats'>) {
  return async (root: FastifyInstance) => {
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/snippets',
      {
        config: { role: 'viewer' },
        schema: { tags, querystring: SnippetListQuery, response: { 200: SnippetList, ...e } },
      },
      async (req) => snippets.list(req.query),
    );
    app.post(
      '/snippets/search',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          body: SnippetSearchRequest,
          // 409: a rerank asked for with no reranker configured.
          response: { 200: SnippetSearchResponse, 409: ErrorBody, ...e },
        },
      },
      async (req) => snippets.search(req.body),
    );
    app.get(
      '/snippets/consistency-check',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: ConsistencyReport } } },
      async () => snippets.consistency(),
    );
    app.post(
      '/snippets/cleanup-orphaned',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          querystring: CleanupOrphansQuery,
          body: CleanupOrphansBody,
          response: { 200: CleanupOrphansResponse, ...e },
        },
      },
      async (req) => snippets.cleanupOrphans(req.query.cleanup_type, req.body ?? {}),
    );
    app.get(
      '/snippets/index-inspection',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: IndexInspection } } },
      async () => snippets.inspection(),
    );
    app.post(
      '/snippets/export',
      // The 200 is a file (JSON, JSON Lines or CSV), streamed as its rows are read on the
      // export's own thread: no schema to serialise it. 429 past the running exports' limit,
      // with Retry-After.
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          body: ExportRequest,
          response: { 200: ExportFile, 404: ErrorBody, 429: ErrorBody },
        },
      },
      async (req, reply) => {
        const file = await snippets.openExport(req.body);
        return reply
          .header('content-type', file.contentType)
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .send(file.stream);
      },
    );
    app.get(
      '/snippets/:id',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: Snippet, ...e } },
      },
      async (req) => snippets.get(req.params.id),
    );
    app.get(
      '/snippets/:id/index',
      {
        config: { role: 'viewer' },
        schema: { tags, params: IdParams, response: { 200: SnippetIndexInfo, ...e } },
      },
      async (req) => snippets.indexInfo(req.params.id),
    );
    app.delete(
      '/snippets/:id',
      {
        config: { role: 'operator' },
        schema: { tags, params: IdParams, response: { 200: DeleteSnippetResponse, ...e } },
      },
      async (req) => snippets.delete(req.params.id),
    );
    app.post(
      '/admin/refresh-snippet-state',
      { config: { role: 'operator' }, schema: { tags, response: { 200: ReconcileReport } } },
      async () => snippets.refreshState(),
    );

    const indexTags = ['index'];
    app.get(
      '/admin/index/stats',
      { config: { role: 'viewer' }, schema: { tags: indexTags, response: { 200: IndexStats } } },
      async () => index.stats(),
    );
    app.get(
      '/admin/index/entries',
      {
        config: { role: 'viewer' },
        schema: {
          tags: indexTags,
          querystring: IndexEntriesQuery,
          response: { 200: IndexEntryList, 422: ErrorBody },
        },
      },
      async (req) => snippets.indexEntries(req.query),
    );
    app.post(
      '/admin/index/search',
      {
        config: { role: 'viewer' },
        schema: {
          tags: indexTags,
          body: IndexSearchRequest,
          response: { 200: SnippetSearchResponse, 422: ErrorBody },
        },
      },
      async (req) => snippets.search({ ...req.body }),
    );
  };
}
