/** What each job type is called on screen; the raw type stays visible beside it. */
import type { Job, JobType } from '@adam/contracts';

const JOB_TYPE_LABELS: Record<JobType, string> = {
  process_urls: 'Process URLs',
  save_segments: 'Save text',
  rebuild_index: 'Rebuild index',
  optimize_index: 'Optimize index',
  install_model: 'Install model',
  switch_embedder: 'Switch embedder',
  process_documents: 'Process documents',
  sync_sources: 'Sync sources',
  import_snippets: 'Import snippets',
  crawl_site: 'Crawl site',
  sync_crawl: 'Sync crawl',
  evaluation_run: 'Evaluation run',
};

const isJobType = (type: string): type is JobType => Object.hasOwn(JOB_TYPE_LABELS, type);

/**
 * A job's label. Optimisations queued before optimize_index was its own type are rebuild_index
 * rows whose metadata names the optimize_index action: they read as what they did.
 */
export function jobTypeLabel(job: Pick<Job, 'type' | 'metadata'>): string {
  if (job.type === 'rebuild_index' && job.metadata.action === 'optimize_index') {
    return JOB_TYPE_LABELS.optimize_index;
  }
  return isJobType(job.type) ? JOB_TYPE_LABELS[job.type] : job.type;
}

/** The history filter's choices, by label. */
export const JOB_TYPE_OPTIONS = (Object.keys(JOB_TYPE_LABELS) as JobType[]).map((value) => ({
  value,
  label: JOB_TYPE_LABELS[value],
}));
