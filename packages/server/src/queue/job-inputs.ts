/**
 * The inputs of the jobs a service queues itself (a crawl, a crawl's sync): the service writes
 * them, the job (jobs/) parses them back, so the schema lives below both.
 */
import { CRAWL_SCOPES, CrawlerSettings, DEFAULT_CRAWLER_SETTINGS } from '@adam/contracts';
import { z } from 'zod';

export const CrawlSiteInput = z.object({
  start_urls: z.array(z.string()).min(1),
  scope: z.enum(CRAWL_SCOPES).default('host'),
  max_depth: z.number().int().min(0).default(3),
  max_pages: z.number().int().min(1).default(500),
  include_patterns: z.array(z.string()).default([]),
  exclude_patterns: z.array(z.string()).default([]),
  use_sitemaps: z.boolean().default(true),
  language: z.string().default('auto'),
  min_quality: z.number().min(0).max(1).nullish(),
  /** The crawler settings as of the crawl's start (see CrawlService.start). */
  crawler: CrawlerSettings.default(DEFAULT_CRAWLER_SETTINGS),
});
export type CrawlSiteInput = z.input<typeof CrawlSiteInput>;

export const SyncCrawlInput = z.object({
  crawl_id: z.number().int(),
  reason: z.enum(['schedule', 'manual']).default('manual'),
  /** The crawl's plan (its first crawl_site job's input). */
  plan: CrawlSiteInput,
});
export type SyncCrawlInput = z.input<typeof SyncCrawlInput>;
