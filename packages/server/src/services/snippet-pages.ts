/**
 * A snippet row as the API answers it, and an export's pages read from a repository. Kept apart
 * from SnippetService (and free of its imports: the index, the embedder) because an export runs
 * on a thread of its own (snippet-export.worker.ts), which loads this module and no more.
 */
import type { ExportedSnippet, Snippet } from '@adam/contracts';
import type { SnippetRepository, SnippetRow } from '../store/snippet.repository.js';

/** Rows read from the store at a time by an export (one page is what its thread holds). */
const EXPORT_PAGE_ROWS = 100;
/** A refused export names at most this many of the ids it did not find. */
const MISSING_IDS_NAMED = 10;

/** An export under way: its pages, pulled one at a time by whoever writes the file. */
export interface SnippetExport {
  /** The next page of snippets, or null once every row was read (the slot is then free). */
  nextPage(): Snippet[] | null;
  /** Stops reading and frees the slot (the client went away, or writing failed); idempotent. */
  close(): void;
}

export function toSnippet(r: SnippetRow): Snippet {
  let metadata: Record<string, unknown> = {};
  try {
    metadata = JSON.parse(r.metadata) as Record<string, unknown>;
  } catch {
    // a damaged metadata column must not hide the snippet
  }
  return {
    id: r.id,
    text: r.text,
    theme: r.theme,
    quality_score: r.quality_score,
    language: r.language,
    word_count: r.word_count,
    size_bytes: r.size_bytes,
    created_at: r.created_at,
    updated_at: r.updated_at,
    indexed_at: r.indexed_at,
    faiss_id: r.faiss_id,
    index_pending: r.index_pending === 1,
    source_info: { title: r.source_title, url: r.source_url },
    job_id: r.job_id,
    section: r.section ?? null,
    metadata,
  };
}

/** The first of `ids` that have no row (at most MISSING_IDS_NAMED), in the order asked. */
export function missingIds(repo: SnippetRepository, ids: readonly number[]): number[] {
  const found = repo.existingIds(ids);
  const missing: number[] = [];
  for (const id of ids) {
    if (found.has(id)) continue;
    missing.push(id);
    if (missing.length === MISSING_IDS_NAMED) break;
  }
  return missing;
}

/**
 * An export's pages: the ids asked for (in that order), or every snippet in id (= created_at)
 * order. It sees the rows that exist when it starts: rows added later are left out, rows
 * deleted before their page is read are skipped.
 */
export function snippetPages(
  repo: SnippetRepository,
  ids: readonly number[] | undefined,
  opts: { embeddings?: boolean } = {},
): SnippetExport {
  const pages = ids?.length ? pagesOfIds(repo, ids) : pagesOfAll(repo);
  let open = true;
  return {
    nextPage: () => {
      if (!open) return null;
      const next = pages.next();
      if (next.done) open = false;
      if (next.done) return null;
      return opts.embeddings ? withEmbeddings(repo, next.value) : next.value;
    },
    close: () => void (open = false),
  };
}

function* pagesOfAll(repo: SnippetRepository): Generator<Snippet[]> {
  const through = repo.maxId();
  for (let after = 0; ;) {
    const rows = repo.pageAfterId(after, through, EXPORT_PAGE_ROWS);
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!.id;
    yield rows.map(toSnippet);
  }
}

function* pagesOfIds(repo: SnippetRepository, ids: readonly number[]): Generator<Snippet[]> {
  for (let i = 0; i < ids.length; i += EXPORT_PAGE_ROWS) {
    const chunk = ids.slice(i, i + EXPORT_PAGE_ROWS);
    const rows = new Map(repo.findByIds(chunk).map((r) => [r.id, r]));
    yield chunk.flatMap((id) => {
      const r = rows.get(id);
      return r ? [toSnippet(r)] : [];
    });
  }
}

/** A page of rows with their stored vectors, as numbers (float32 → JSON is exact both ways). */
function withEmbeddings(repo: SnippetRepository, page: Snippet[]): ExportedSnippet[] {
  const stored = repo.embeddings(page.map((s) => s.id));
  return page.map((s) => {
    const e = stored.get(s.id);
    return {
      ...s,
      embedding: e?.embedding ? Array.from(blobToFloats(e.embedding)) : null,
      embedder_id: e?.embedding ? e.embedder_id : null,
    };
  });
}

/** index.service's blobToVector, here so that the export thread need not load the index. */
const blobToFloats = (b: Buffer): Float32Array =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
