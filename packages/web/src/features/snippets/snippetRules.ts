/** Display rules of a snippet (spec 002 §2, §3, §9): index status and the diagnostics shown. */
import type { SegmentationDiagnostic, Snippet } from '@adam/contracts';

export type IndexStatus = 'indexed' | 'pending' | 'missing';

/** Indexed when it has indexed_at or faiss_id, else pending when index_pending, else not in index. */
export function indexStatus(
  snippet: Pick<Snippet, 'indexed_at' | 'faiss_id'> & { index_pending?: boolean | null },
): IndexStatus {
  if (snippet.indexed_at || (snippet.faiss_id !== null && snippet.faiss_id !== undefined)) {
    return 'indexed';
  }
  return snippet.index_pending ? 'pending' : 'missing';
}

export const INDEX_STATUS_COLORS: Record<IndexStatus, string> = {
  indexed: 'teal',
  pending: 'yellow',
  missing: 'gray',
};

/** The snippet modal shows the first 5 diagnostics (spec 002 §9). */
export const DIAGNOSTICS_SHOWN = 5;

/** segmentation_diagnostic is one item or a list; always a list here. */
export function diagnosticsOf(metadata: Snippet['metadata'] | undefined): SegmentationDiagnostic[] {
  const value = metadata?.segmentation_diagnostic;
  if (!value) return [];
  return Array.isArray(value) ? value : [value];
}

export function diagnosticColor(status: string): string {
  if (status === 'accepted') return 'teal';
  if (status === 'rejected') return 'red';
  return 'gray';
}
