/** Model Cleanup's filters, sort and grouping (spec 001 §2.3), as pure functions. */
import { MODEL_TYPES, type UnusedFileType, type UnusedModelFile } from '@adam/contracts';

/** The type filter: all, then every model type. */
export const CLEANUP_TYPE_FILTERS = ['all', ...MODEL_TYPES] as const;

/** Groups in this order; files in no type's folder come last, on their own. */
const FILE_GROUP_ORDER: readonly UnusedFileType[] = [...MODEL_TYPES, 'other'];

export const FILE_GROUP_LABELS: Record<UnusedFileType, string> = {
  embedding: 'Embedding',
  spacy: 'SpaCy',
  emotion: 'Emotion',
  sentiment: 'Sentiment',
  transformer: 'Transformer',
  reranker: 'Reranker',
  other: 'Other files',
};

export interface CleanupFilters {
  type: string;
  language: string;
  /** Size order within each group; descending by default. */
  sizeDescending: boolean;
}

export interface FileGroup {
  type: UnusedFileType;
  files: UnusedModelFile[];
  totalSize: number;
}

export function groupFiles(
  files: readonly UnusedModelFile[],
  filters: CleanupFilters,
): FileGroup[] {
  const kept = files.filter(
    (f) =>
      (filters.type === 'all' || f.type === filters.type) &&
      (filters.language === 'all' || f.language === filters.language),
  );
  const sign = filters.sizeDescending ? -1 : 1;
  return FILE_GROUP_ORDER.map((type) => {
    const group = kept
      .filter((f) => f.type === type)
      .sort((a, b) => sign * (a.size - b.size) || a.path.localeCompare(b.path));
    return { type, files: group, totalSize: group.reduce((sum, f) => sum + f.size, 0) };
  }).filter((g) => g.files.length > 0);
}
