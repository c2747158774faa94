/**
 * The export bench's data: a data dir with 1,000,000 snippets, cached under the temporary
 * directory and rebuilt when its marker's version differs. The first 250,000 rows are written
 * through SnippetRepository.insertMany in chunks (every trigger a real ingestion fires, FTS
 * included), without vectors: an export never reads them. The rest are copies of those made by
 * SQL, text and hash suffixed (generating every row took over 30 minutes on the shared 2-core
 * machine). Texts are 40–120 words of consecutive sentences of the fixture pages, one in ten led
 * by a sentence of the evaluation documents (commas and quotes, so the CSV escaping is
 * exercised); one row in five has a source (its title quoted), metadata has a few fields.
 *
 * The bench builds it on first use; later runs reuse it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { THEMES } from '@adam/contracts';
import { EVAL_SET } from '../src/embedding/eval/evaluate.js';
import { textHash } from '../src/services/ingestion.service.js';
import { openDatabase } from '../src/store/db.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import {
  BENCH_MODEL_ROOT,
  pageSentences,
  pageTexts,
  rng,
  seconds,
  sharedModel,
  splitSentences,
  TOPIC_THEME,
} from './common.js';

export const EXPORT_ROWS = 1_000_000;
/** Bump when the generated rows change: the cached dir is then rebuilt. */
const DATA_VERSION = 'export-v1';
const dataDir = (rows: number) =>
  path.join(
    os.tmpdir(),
    rows === EXPORT_ROWS ? 'adam-bench-export-1m' : `adam-bench-export-${rows}`,
  );
const CHUNK = 5_000;

/** Deterministic rows; the few repeated texts are dropped by insertMany. */
function* snippetRows(): Generator<NewSnippet> {
  const rand = rng(23);
  const evalSentences = EVAL_SET.docs.flatMap((d) => splitSentences(d.text));
  for (let n = 1; ; n++) {
    const { topic, sentences } = pageSentences(n);
    const sourced = n % 5 === 0;
    for (const { text, words } of pageTexts(sentences, rand, evalSentences)) {
      const quality = Math.round(rand() * 10_000) / 10_000;
      yield {
        text,
        text_hash: textHash(text),
        theme: rand() < 0.15 ? THEMES[Math.floor(rand() * THEMES.length)]! : TOPIC_THEME[topic]!,
        quality_score: quality,
        language: 'en',
        word_count: words,
        size_bytes: Buffer.byteLength(text, 'utf8'),
        source_title: sourced ? `Article ${n}, "${topic}"` : null,
        source_url: sourced ? `https://bench.example/articles/${n}` : null,
        job_id: 1 + Math.floor(n / 2_000),
        metadata: JSON.stringify({
          segmentation_method: 'semantic',
          quality_score_detailed: { length: quality, lexical_diversity: 0.5 },
        }),
        embedding: null,
        embedder_id: null,
      };
    }
  }
}

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
  fs.rmSync(dir, { recursive: true, force: true });
  const link = path.join(dir, 'models', 'builtin');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.join(BENCH_MODEL_ROOT, 'models', 'builtin'), link, 'dir');
  const db = openDatabase(dir);
  try {
    const repo = new SnippetRepository(db);
    const source = snippetRows();
    const target = Math.min(rows, GENERATED);
    let inserted = 0;
    const started = performance.now();
    while (inserted < target) {
      const chunk: NewSnippet[] = [];
      while (chunk.length < Math.min(CHUNK, target - inserted)) chunk.push(source.next().value!);
      inserted += repo.insertMany(chunk).filter((id) => id !== null).length;
      if (inserted % 50_000 < CHUNK)
        console.log(
          `data: ${inserted.toLocaleString('en')} rows generated, ${seconds(performance.now() - started)}`,
        );
    }
  } finally {
    db.close();
  }
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
