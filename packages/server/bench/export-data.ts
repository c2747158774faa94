/**
 * The export bench's data: a data dir with 1,000,000 snippets, cached under the temporary
 * directory and rebuilt when its marker's version differs. The first 250,000 rows are the
 * benches' generated snippets (bench/snippet-data.ts: written through insertMany, every trigger
 * a real ingestion fires, FTS included), without vectors: an export never reads them. The rest
 * are copies of those made by SQL, text and hash suffixed (generating every row took over 30
 * minutes on the shared 2-core machine). The evaluation sentences bring commas and quotes, so
 * the CSV escaping is exercised; one row in five has a source (its title quoted), metadata has a
 * few fields.
 *
 * The bench builds it on first use; later runs reuse it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/store/db.js';
import { seconds, sharedModel } from './common.js';
import { benchSnippets, writeBenchSnippets } from './snippet-data.js';

export const EXPORT_ROWS = 1_000_000;
/** Bump when the generated rows change: the cached dir is then rebuilt. */
const DATA_VERSION = 'export-v2';
const dataDir = (rows: number) =>
  path.join(
    os.tmpdir(),
    rows === EXPORT_ROWS ? 'adam-bench-export-1m' : `adam-bench-export-${rows}`,
  );

/** One row in five has a source (its title quoted); metadata has a few fields. */
const exportRows = () =>
  benchSnippets(23, ({ n, topic, quality }) => {
    const sourced = n % 5 === 0;
    return {
      source_title: sourced ? `Article ${n}, "${topic}"` : null,
      source_url: sourced ? `https://bench.example/articles/${n}` : null,
      job_id: 1 + Math.floor(n / 2_000),
      metadata: JSON.stringify({
        segmentation_method: 'semantic',
        quality_score_detailed: { length: quality, lexical_diversity: 0.5 },
      }),
    };
  });

/** Rows past this many are copies of the generated ones (SQL, much faster than generating). */
const GENERATED = 250_000;
const COPY_CHUNK = 50_000;

/**
 * Fills the data dir (adam-bench-export-1m, or adam-bench-export-<rows> for a quick try) unless
 * its marker says it holds this version's rows; answers the dir.
 */
export async function ensureExportData(rows = EXPORT_ROWS): Promise<string> {
  const dir = dataDir(rows);
  const marker = readMarker(dir);
  if (marker?.version === DATA_VERSION && marker.rows === rows) {
    console.log(`data: reusing ${dir} (${marker.rows.toLocaleString('en')} rows)`);
    return dir;
  }
  await sharedModel();
  writeBenchSnippets(dir, exportRows(), Math.min(rows, GENERATED), 50_000);
  completeExportData(dir, rows);
  return dir;
}

/**
 * Brings a dir of generated rows up to `rows` with copies of them (text and hash suffixed, so all
 * distinct; the triggers fire as for any insert), marks 98% indexed, writes the marker.
 */
export function completeExportData(dir: string, rows: number): void {
  const db = openDatabase(dir);
  try {
    const count = () => db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
    const generated = count();
    const copy = db.prepare(
      `INSERT INTO snippets (text, text_hash, theme, quality_score, language, word_count, size_bytes,
         source_title, source_url, job_id, metadata, index_pending, created_at, updated_at)
       SELECT text || ' (copy ' || @round || ')', text_hash || '-' || @round, theme, quality_score,
         language, word_count + 2, length(CAST(text || ' (copy ' || @round || ')' AS BLOB)),
         source_title, source_url, job_id, metadata, 1, @now, @now
       FROM snippets WHERE id > @from AND id <= @to ORDER BY id`,
    );
    const started = performance.now();
    for (let n = generated; n < rows; n = count()) {
      const from = (n - generated) % generated;
      const take = Math.min(COPY_CHUNK, generated - from, rows - n);
      const round = 1 + Math.floor((n - generated) / generated);
      // Later than every row so far: id order stays created_at order, as insertMany keeps it.
      copy.run({ round, from, to: from + take, now: new Date().toISOString() });
      console.log(
        `data: ${(n + take).toLocaleString('en')} rows, ${seconds(performance.now() - started)} copying`,
      );
    }
    // As after a normal ingestion: indexed rows (an export prints indexed_at).
    db.prepare(
      `UPDATE snippets SET index_pending = 0, faiss_id = id, indexed_at = created_at WHERE id % 50 <> 0`,
    ).run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    fs.writeFileSync(markerFile(dir), JSON.stringify({ version: DATA_VERSION, rows: count() }));
    console.log(`data: ${dir} complete in ${seconds(performance.now() - started)}`);
  } finally {
    db.close();
  }
}

const markerFile = (dir: string) => path.join(dir, 'bench-data.json');

function readMarker(dir: string): { version: string; rows: number } | null {
  try {
    return JSON.parse(fs.readFileSync(markerFile(dir), 'utf8')) as {
      version: string;
      rows: number;
    };
  } catch {
    return null;
  }
}
