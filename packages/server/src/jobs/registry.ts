import type { JobType } from '@adam/contracts';
import type { AnyJobDefinition } from './define-job.js';
import { crawlSiteJob } from './crawl-site.job.js';
import { evaluationRunJob } from './evaluation-run.job.js';
import { importSnippetsJob } from './import-snippets.job.js';
import { installModelJob } from './install-model.job.js';
import { optimizeIndexJob } from './optimize-index.job.js';
import { processDocumentsJob } from './process-documents.job.js';
import { processUrlsJob } from './process-urls.job.js';
import { rebuildIndexJob } from './rebuild-index.job.js';
import { saveSegmentsJob } from './save-segments.job.js';
import { switchEmbedderJob } from './switch-embedder.job.js';
import { syncCrawlJob } from './sync-crawl.job.js';
import { syncSourcesJob } from './sync-sources.job.js';

/** Every job type and its one definition; both queue drivers run them from here. */
export const JOB_REGISTRY: { readonly [T in JobType]: AnyJobDefinition } = {
  process_urls: processUrlsJob,
  save_segments: saveSegmentsJob,
  rebuild_index: rebuildIndexJob,
  optimize_index: optimizeIndexJob,
  // After the jobs that store pages: job-drivers.test.ts syncs what they stored.
  sync_sources: syncSourcesJob,
  switch_embedder: switchEmbedderJob,
  install_model: installModelJob,
  import_snippets: importSnippetsJob,
  crawl_site: crawlSiteJob,
  process_documents: processDocumentsJob,
  // After crawl_site: job-drivers.test.ts syncs the crawl it ran.
  sync_crawl: syncCrawlJob,
  // Last: it searches what the jobs before it stored.
  evaluation_run: evaluationRunJob,
};

const ALL_TYPES = Object.keys(JOB_REGISTRY) as JobType[];

export function jobDefinition(type: string): AnyJobDefinition | null {
  return ALL_TYPES.includes(type as JobType) ? JOB_REGISTRY[type as JobType] : null;
}

/** Job types that only the server can run (they rewrite the whole index, or the data directory's models). */
export const SERVER_ONLY_JOB_TYPES: readonly JobType[] = ALL_TYPES.filter(
  (t) => JOB_REGISTRY[t].runsOn === 'server',
);

/** Job types whose working half an `adam worker` may run. */
export const DISTRIBUTED_JOB_TYPES: readonly JobType[] = ALL_TYPES.filter(
  (t) => JOB_REGISTRY[t].runsOn === 'any',
);
