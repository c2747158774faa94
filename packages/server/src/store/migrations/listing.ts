/**
 * SQL of migration 7: what listing a million snippets needs.
 *
 * - Embeddings move to `snippet_embeddings`: a 384-d vector is 1.5 KiB, three times the rest of
 *   a row, so every scan of `snippets` read mostly vectors it did not want.
 * - `snippet_counts`, kept by triggers: rows per job, per source and pending rows per theme, so
 *   the totals of those filters are read, not counted (themes and quality deciles are already in
 *   migration 5's `snippet_stats`).
 * - Indexes that let each filter read its page in the order asked for: `(column, id, ...)` walks
 *   one value in id order (the default sort: see SnippetRepository.listPage) and carries the
 *   columns other filters test, so they are checked without reading the row.
 *
 * Frozen with the migration: a change is a new migration, never an edit here.
 */

type Row = 'new' | 'old';

/** Facets counted, each with the value it is counted by and when a row counts. */
const FACETS: { facet: string; value: (r: Row) => string; when: (r: Row) => string }[] = [
  {
    facet: 'job',
    value: (r) => `CAST(${r}.job_id AS TEXT)`,
    when: (r) => `${r}.job_id IS NOT NULL`,
  },
  { facet: 'source', value: (r) => `${r}.source_url`, when: (r) => `${r}.source_url IS NOT NULL` },
  { facet: 'pending', value: (r) => `${r}.theme`, when: (r) => `${r}.index_pending = 1` },
];

const add = (r: Row, f: (typeof FACETS)[number]) => `
  INSERT INTO snippet_counts (facet, value, n) SELECT '${f.facet}', ${f.value(r)}, 1 WHERE ${f.when(r)}
    ON CONFLICT (facet, value) DO UPDATE SET n = n + 1;`;
const remove = (r: Row, f: (typeof FACETS)[number]) => `
  UPDATE snippet_counts SET n = n - 1 WHERE ${f.when(r)} AND facet = '${f.facet}' AND value = ${f.value(r)};
  DELETE FROM snippet_counts WHERE facet = '${f.facet}' AND value = ${f.value(r)} AND n <= 0;`;

/** Columns a facet depends on: an update of other columns leaves the counts alone. */
const COLUMNS: Record<string, string[]> = {
  job: ['job_id'],
  source: ['source_url'],
  pending: ['index_pending', 'theme'],
};

const updateTriggers = FACETS.map(
  (f) => `
CREATE TRIGGER snippets_counts_au_${f.facet} AFTER UPDATE OF ${COLUMNS[f.facet]!.join(', ')} ON snippets
WHEN ${COLUMNS[f.facet]!.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ')}
BEGIN${remove('old', f)}${add('new', f)}
END;`,
).join('\n');

export const LISTING_MIGRATION_SQL = `
CREATE TABLE snippet_embeddings (
  snippet_id INTEGER PRIMARY KEY REFERENCES snippets(id) ON DELETE CASCADE,
  embedding BLOB NOT NULL,
  embedder_id TEXT
);
INSERT INTO snippet_embeddings (snippet_id, embedding, embedder_id)
  SELECT id, embedding, embedder_id FROM snippets WHERE embedding IS NOT NULL;
ALTER TABLE snippets DROP COLUMN embedding;
ALTER TABLE snippets DROP COLUMN embedder_id;

CREATE TABLE snippet_counts (
  facet TEXT NOT NULL,
  value TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (facet, value)
) WITHOUT ROWID;
CREATE TRIGGER snippets_counts_ai AFTER INSERT ON snippets BEGIN${FACETS.map((f) => add('new', f)).join('')}
END;
CREATE TRIGGER snippets_counts_ad AFTER DELETE ON snippets BEGIN${FACETS.map((f) => remove('old', f)).join('')}
END;
${updateTriggers}
INSERT INTO snippet_counts (facet, value, n)
  SELECT 'job', CAST(job_id AS TEXT), COUNT(*) FROM snippets WHERE job_id IS NOT NULL GROUP BY job_id;
INSERT INTO snippet_counts (facet, value, n)
  SELECT 'source', source_url, COUNT(*) FROM snippets WHERE source_url IS NOT NULL GROUP BY source_url;
INSERT INTO snippet_counts (facet, value, n)
  SELECT 'pending', theme, COUNT(*) FROM snippets WHERE index_pending = 1 GROUP BY theme;

DROP INDEX snippets_theme_created;
DROP INDEX snippets_job_created;
DROP INDEX snippets_source_created;
CREATE INDEX snippets_theme_id ON snippets(theme, id, quality_score, index_pending);
CREATE INDEX snippets_theme_quality ON snippets(theme, quality_score);
CREATE INDEX snippets_theme_words ON snippets(theme, word_count);
CREATE INDEX snippets_job_id ON snippets(job_id, id, theme, quality_score);
CREATE INDEX snippets_job_quality ON snippets(job_id, quality_score);
CREATE INDEX snippets_source_id ON snippets(source_url, id, theme, quality_score);
CREATE INDEX snippets_source_quality ON snippets(source_url, quality_score);
`;
