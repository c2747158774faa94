import { createHash } from 'node:crypto';
import type { FetchResult } from './safe-fetcher.js';

/** What a page answered, for the next conditional request of a sync. */
export interface Validators {
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
}

/** The hash a sync compares a page's body with: the same bytes are the same page. */
const bodyHash = (body: Buffer) => createHash('sha256').update(body).digest('hex');

/**
 * A fetched page's validators. Stored at ingest (process_urls, crawl_site) and at each sync,
 * so that even a page's first sync is a conditional request (304) or a hash comparison.
 */
export function validatorsOf(res: Pick<FetchResult, 'headers' | 'body'>): Validators {
  return {
    etag: res.headers['etag'] ?? null,
    last_modified: res.headers['last-modified'] ?? null,
    content_hash: bodyHash(res.body),
  };
}
