import type {
  DeleteSourceResponse,
  LastSync,
  ProcessSourcesRequest,
  ProcessSourcesResponse,
  Source,
  SourceList,
  SourceListQuery,
} from '@adam/contracts';
import type { z } from 'zod';
import { NotFound, Unprocessable, type FieldError } from '../lib/errors.js';
import { withoutCredentials } from '../lib/url.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import type { SourceRepository, SourceRow } from '../store/source.repository.js';
import type { IndexService } from './index.service.js';
import type { JobService } from './job.service.js';
import { SnippetDeleter } from './snippet-deleter.js';

/**
 * The URLs of an add-sources form: one per line or an array; blanks dropped, duplicates once.
 * A URL with a user name or password is refused: it would be stored in the job and shown in the
 * console, and ADAM keeps no credentials.
 */
function parseUrls(input: string | string[]): { urls: string[]; errors: FieldError[] } {
  const raw = (Array.isArray(input) ? input : input.split(/\r?\n/)).map((u) => u.trim());
  const urls: string[] = [];
  const errors: FieldError[] = [];
  raw.forEach((u, i) => {
    if (!u) return;
    let parsed: URL | null = null;
    try {
      parsed = new URL(u);
    } catch {
      // reported below
    }
    if (
      !parsed ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      !parsed.hostname
    ) {
      errors.push({
        field: `urls[${i}]`,
        message: `'${withoutCredentials(u.slice(0, 200))}' is not a valid http(s) URL`,
      });
      return;
    }
    if (parsed.username || parsed.password) {
      errors.push({
        field: `urls[${i}]`,
        message: `'${withoutCredentials(parsed.href.slice(0, 200))}' carries a user name or password: remove it, ADAM does not store credentials`,
      });
      return;
    }
    parsed.hash = '';
    if (!urls.includes(parsed.href)) urls.push(parsed.href);
  });
  return { urls, errors };
}

function toSource(r: SourceRow, lastSync: LastSync | null = null): Source {
  return {
    id: r.id,
    url: r.url,
    kind: r.kind,
    domain: r.domain,
    title: r.title,
    language: r.language,
    segments_count: r.segments_count,
    last_job_id: r.last_job_id,
    last_status: r.last_status,
    last_error: r.last_error,
    created_at: r.created_at,
    updated_at: r.updated_at,
    schedule: r.schedule,
    last_sync_at: r.last_sync_at,
    next_sync_at: r.next_sync_at,
    missing_count: r.missing_count,
    last_sync: lastSync,
  };
}

export class SourceService {
  private readonly deleter: SnippetDeleter;

  constructor(
    private readonly deps: {
      sources: SourceRepository;
      snippets: SnippetRepository;
      index: IndexService;
      jobs: JobService;
      bus: EventBus;
      log: Logger;
      /** Each source's latest sync (SourceSyncService.lastSyncs). */
      lastSyncs?: (ids: readonly number[]) => Map<number, LastSync>;
    },
  ) {
    this.deleter = new SnippetDeleter(deps);
  }

  get(id: number): Source {
    const row = this.deps.sources.findById(id);
    if (!row) throw new NotFound('source', id);
    return toSource(row, this.deps.lastSyncs?.([id]).get(id) ?? null);
  }

  process(req: z.output<typeof ProcessSourcesRequest>): ProcessSourcesResponse {
    const { urls, errors } = parseUrls(req.urls);
    if (errors.length) {
      throw new Unprocessable(`Invalid URLs: ${errors.map((e) => e.message).join('; ')}`, errors);
    }
    if (urls.length === 0) {
      throw new Unprocessable('Please enter at least one URL', [
        { field: 'urls', message: 'Please enter at least one URL' },
      ]);
    }
    const filters = { language: req.language, min_quality: req.min_quality ?? null };
    const job = this.deps.jobs.create({
      type: 'process_urls',
      priority: req.priority,
      urls,
      input: filters,
      filters,
    });
    return { job_id: job.id, urls, status: job.status };
  }

  list(q: z.output<typeof SourceListQuery>): SourceList {
    const { rows, total } = this.deps.sources.list(
      { search: q.search || undefined, domain: q.domain || undefined, kind: q.kind },
      q.per_page,
      (q.page - 1) * q.per_page,
    );
    const last = this.deps.lastSyncs?.(rows.map((r) => r.id));
    return { sources: rows.map((r) => toSource(r, last?.get(r.id) ?? null)), total };
  }

  delete(id: number, deleteSnippets: boolean): DeleteSourceResponse {
    const source = this.deps.sources.findById(id);
    if (!source) throw new NotFound('source', id);
    const deleted = deleteSnippets
      ? this.deleter.delete(this.deps.snippets.idsMatching({ source_url: source.url }))
      : { snippets_deleted: 0, vectors_deleted: 0 };
    this.deps.sources.deleteById(id);
    this.deps.log.info(
      { component: 'sources' },
      `Source ${source.url} deleted${deleteSnippets ? ` with ${deleted.snippets_deleted} snippets` : ''}`,
    );
    return { id, deleted: true as const, ...deleted };
  }
}
