import type {
  CrawlerSettings,
  CrawlRequest,
  CrawlResponse,
  FrontierList,
  FrontierQuery,
} from '@adam/contracts';
import type { z } from 'zod';
import { compilePatterns } from '../crawl/scope.js';
import { normaliseUrl } from '../crawl/url-normalise.js';
import { NotFound, Unprocessable, type FieldError } from '../lib/errors.js';
import { withoutCredentials } from '../lib/url.js';
import type { CrawlSiteInput } from '../queue/job-inputs.js';
import type { CrawlFrontierRepository } from '../store/crawl-frontier.repository.js';
import type { JobService } from './job.service.js';

type Parsed<T extends z.ZodType> = z.output<T>;

/** Crawl jobs: their start (validated, with the crawler settings of the moment) and frontier. */
export class CrawlService {
  constructor(
    private readonly deps: {
      jobs: JobService;
      frontier: CrawlFrontierRepository;
      crawler: () => CrawlerSettings;
    },
  ) {}

  start(req: Parsed<typeof CrawlRequest>): CrawlResponse {
    const errors: FieldError[] = [];
    const starts: string[] = [];
    req.start_urls.forEach((raw, i) => {
      const u = raw.trim();
      let parsed: URL | null = null;
      try {
        parsed = new URL(u);
      } catch {
        // reported below
      }
      const key = parsed ? normaliseUrl(u) : null;
      if (!parsed || !key) {
        errors.push({
          field: `start_urls[${i}]`,
          message: `'${withoutCredentials(u.slice(0, 200))}' is not a valid http(s) URL`,
        });
      } else if (parsed.username || parsed.password) {
        errors.push({
          field: `start_urls[${i}]`,
          message: `'${withoutCredentials(u.slice(0, 200))}' carries a user name or password: remove it, ADAM does not store credentials`,
        });
      } else if (!starts.includes(key)) starts.push(key);
    });
    if (errors.length) {
      throw new Unprocessable(
        `Invalid start URLs: ${errors.map((e) => e.message).join('; ')}`,
        errors,
      );
    }
    // Throws a 422 naming the first unusable pattern.
    compilePatterns(req.include_patterns, req.exclude_patterns);
    const input: CrawlSiteInput = {
      start_urls: starts,
      scope: req.scope,
      max_depth: req.max_depth,
      max_pages: req.max_pages,
      include_patterns: req.include_patterns,
      exclude_patterns: req.exclude_patterns,
      use_sitemaps: req.use_sitemaps,
      language: req.language,
      min_quality: req.min_quality ?? null,
      // As of the crawl's start: a crawl keeps the politeness it began with, wherever it runs.
      crawler: this.deps.crawler(),
    };
    const job = this.deps.jobs.create({
      type: 'crawl_site',
      priority: req.priority,
      urls: starts,
      input,
      filters: { language: req.language, min_quality: req.min_quality ?? null },
    });
    return { job_id: job.id, start_urls: starts, status: job.status };
  }

  frontier(jobId: number, q: Parsed<typeof FrontierQuery>): FrontierList {
    const job = this.deps.jobs.get(jobId);
    if (job.type !== 'crawl_site') throw new NotFound('crawl', jobId);
    const { rows, total } = this.deps.frontier.listPage(
      jobId,
      { status: q.status, reason: q.reason },
      q.per_page,
      (q.page - 1) * q.per_page,
    );
    return { entries: rows, total, page: q.page, per_page: q.per_page };
  }
}
