import { ImportResult, type Job } from '@adam/contracts';
import { formatNumber } from '../../lib/format';

/** One figure of a followed job; null while the job has not counted it yet. */
export interface JobFigure {
  label: string;
  value: number | null;
}

/** An import's final counts (job.metadata.result), once it has them. */
function importResultOf(job: Job): ImportResult | null {
  const parsed = ImportResult.safeParse(job.metadata.result);
  return parsed.success ? parsed.data : null;
}

/**
 * The figures a job of each type really has. An import counts its records when the file is
 * checked (metadata.records) and the rest once it commits (all or nothing: metadata.result); an
 * upload counts files in the URL fields of the stats (a file's source URL stands for it). A file
 * with bad lines never becomes a job: the form names them.
 */
export function jobFigures(job: Job): JobFigure[] {
  const s = job.stats;
  if (job.type === 'import_snippets') {
    const r = importResultOf(job);
    const records = typeof job.metadata.records === 'number' ? job.metadata.records : null;
    return [
      { label: 'Records', value: r?.records ?? records },
      { label: 'Imported', value: r?.imported ?? null },
      { label: 'Duplicates', value: r?.duplicates ?? null },
      { label: 'Vectors reused', value: r?.vectors_reused ?? null },
      { label: 'Re-embedded', value: r?.reembedded ?? null },
      { label: 'Analysed', value: r?.analysed ?? null },
      { label: 'Rejected segments', value: r?.rejected ?? null },
      { label: 'Sources', value: r?.sources ?? null },
    ];
  }
  if (job.type === 'process_documents') {
    return [
      { label: 'Files', value: s.urls_total ?? job.urls.length },
      { label: 'Parsed', value: s.urls_done ?? 0 },
      { label: 'Failed', value: s.urls_failed ?? 0 },
      { label: 'Segments', value: s.segments_created ?? 0 },
      { label: 'Duplicates', value: s.duplicates ?? 0 },
    ];
  }
  return [
    { label: 'URLs', value: s.urls_total ?? job.urls.length },
    { label: 'Done', value: s.urls_done ?? 0 },
    { label: 'Failed', value: s.urls_failed ?? 0 },
    { label: 'Segments', value: s.segments_created ?? 0 },
  ];
}

/** The toast of a completed job, in what its type produced. */
export function completedMessage(job: Job): string {
  const n = (v: number | null | undefined) => formatNumber(v ?? 0);
  if (job.type === 'import_snippets') {
    return `Import done: ${n(importResultOf(job)?.imported ?? job.stats.snippets_added)} snippets imported`;
  }
  if (job.type === 'process_documents') {
    return `Files processed: ${n(job.stats.urls_done)} parsed, ${n(job.stats.segments_created)} segments`;
  }
  return `Sources processed: ${n(job.stats.segments_created)} segments`;
}
