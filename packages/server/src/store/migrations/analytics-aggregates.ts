/**
 * SQL of migration 5: aggregate tables kept by triggers on `snippets`, so analytics read a few
 * hundred rows instead of scanning the snippets, and every write path (jobs, deletes,
 * maintenance cleanups, restore) keeps them right without knowing about them.
 *
 * Frozen with the migration: a change is a new migration, never an edit here.
 */

/** EMOTION_PRESENT_THRESHOLD of @adam/contracts when this migration was written. */
const PRESENT = 0.1;

type Row = 'new' | 'old' | 's';

/** The row's metadata if it is valid JSON (a malformed one must not make the write fail). */
const meta = (r: Row) => `CASE WHEN json_valid(${r}.metadata) THEN ${r}.metadata ELSE '{}' END`;
/** Numeric emotion scores of the row, as json_each rows (key, value). */
const emotions = (r: Row) =>
  `json_each(${meta(r)}, '$.emotions') WHERE typeof(key) = 'text' AND type IN ('integer', 'real')`;
const hasEmotion = (r: Row) => `EXISTS (SELECT 1 FROM ${emotions(r)} AND value >= ${PRESENT})`;
/** The strongest present emotion; ties go to the first name in alphabetical order. */
const dominant = (r: Row) =>
  `(SELECT key FROM ${emotions(r)} AND value >= ${PRESENT} ORDER BY value DESC, key LIMIT 1)`;
const bucket = (r: Row) => `MIN(9, MAX(0, CAST(${r}.quality_score * 10 AS INTEGER)))`;
const hour = (r: Row) => `substr(${r}.created_at, 1, 13)`;
const language = (r: Row) => `COALESCE(${r}.language, '')`;

/** Adds (sign 1) or takes away (sign -1) one row's share of every aggregate. */
function apply(r: 'new' | 'old', sign: 1 | -1): string {
  const sg = sign === 1 ? '' : '-';
  return `
  INSERT INTO snippet_stats (theme, language, quality_bucket, n, quality_sum, with_emotion)
    VALUES (${r}.theme, ${language(r)}, ${bucket(r)}, ${sign}, ${sg}${r}.quality_score, ${sg}${hasEmotion(r)})
    ON CONFLICT (theme, language, quality_bucket) DO UPDATE SET n = n + excluded.n,
      quality_sum = quality_sum + excluded.quality_sum, with_emotion = with_emotion + excluded.with_emotion;
  INSERT INTO snippet_hourly (hour, n, with_emotion, quality_sum)
    VALUES (${hour(r)}, ${sign}, ${sg}${hasEmotion(r)}, ${sg}${r}.quality_score)
    ON CONFLICT (hour) DO UPDATE SET n = n + excluded.n, with_emotion = with_emotion + excluded.with_emotion,
      quality_sum = quality_sum + excluded.quality_sum;
  INSERT INTO emotion_hourly (hour, emotion, n, n_present, n_dominant, score_sum, present_sum)
    SELECT ${hour(r)}, key, ${sign}, ${sg}(value >= ${PRESENT}), ${sg}(key IS ${dominant(r)}), ${sg}value,
      ${sg}IIF(value >= ${PRESENT}, value, 0)
    FROM ${emotions(r)}
    ON CONFLICT (hour, emotion) DO UPDATE SET n = n + excluded.n, n_present = n_present + excluded.n_present,
      n_dominant = n_dominant + excluded.n_dominant, score_sum = score_sum + excluded.score_sum,
      present_sum = present_sum + excluded.present_sum;
  INSERT INTO emotion_totals (emotion, n, n_present, n_dominant, score_sum, present_sum)
    SELECT key, ${sign}, ${sg}(value >= ${PRESENT}), ${sg}(key IS ${dominant(r)}), ${sg}value,
      ${sg}IIF(value >= ${PRESENT}, value, 0)
    FROM ${emotions(r)}
    ON CONFLICT (emotion) DO UPDATE SET n = n + excluded.n, n_present = n_present + excluded.n_present,
      n_dominant = n_dominant + excluded.n_dominant, score_sum = score_sum + excluded.score_sum,
      present_sum = present_sum + excluded.present_sum;`;
}

/** Drops what a removal emptied, so no rounding residue of a sum outlives its rows. */
const cleanup = (r: 'old') => `
  DELETE FROM snippet_stats WHERE theme = ${r}.theme AND language = ${language(r)}
    AND quality_bucket = ${bucket(r)} AND n <= 0;
  DELETE FROM snippet_hourly WHERE hour = ${hour(r)} AND n <= 0;
  DELETE FROM emotion_hourly WHERE hour = ${hour(r)} AND n <= 0;
  DELETE FROM emotion_totals WHERE n <= 0;`;

export const ANALYTICS_MIGRATION_SQL = `
-- All-time breakdown: themes, languages ('' when unknown), quality deciles.
CREATE TABLE snippet_stats (
  theme TEXT NOT NULL,
  language TEXT NOT NULL,
  quality_bucket INTEGER NOT NULL,
  n INTEGER NOT NULL,
  quality_sum REAL NOT NULL,
  with_emotion INTEGER NOT NULL,
  PRIMARY KEY (theme, language, quality_bucket)
) WITHOUT ROWID;

-- Per clock hour of created_at ('YYYY-MM-DDTHH').
CREATE TABLE snippet_hourly (
  hour TEXT PRIMARY KEY,
  n INTEGER NOT NULL,
  with_emotion INTEGER NOT NULL,
  quality_sum REAL NOT NULL
) WITHOUT ROWID;

-- n: snippets with a score for the emotion; n_present: of those, scores at the threshold or
-- above; n_dominant: snippets whose strongest present emotion it is.
CREATE TABLE emotion_hourly (
  hour TEXT NOT NULL,
  emotion TEXT NOT NULL,
  n INTEGER NOT NULL,
  n_present INTEGER NOT NULL,
  n_dominant INTEGER NOT NULL,
  score_sum REAL NOT NULL,
  present_sum REAL NOT NULL,
  PRIMARY KEY (hour, emotion)
) WITHOUT ROWID;

CREATE TABLE emotion_totals (
  emotion TEXT PRIMARY KEY,
  n INTEGER NOT NULL,
  n_present INTEGER NOT NULL,
  n_dominant INTEGER NOT NULL,
  score_sum REAL NOT NULL,
  present_sum REAL NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER snippets_analytics_ai AFTER INSERT ON snippets BEGIN${apply('new', 1)}
END;
CREATE TRIGGER snippets_analytics_ad AFTER DELETE ON snippets BEGIN${apply('old', -1)}${cleanup('old')}
END;
CREATE TRIGGER snippets_analytics_au AFTER UPDATE OF theme, language, quality_score, metadata, created_at
ON snippets BEGIN${apply('old', -1)}${cleanup('old')}${apply('new', 1)}
END;

-- Backfill from the rows already stored.
INSERT INTO snippet_stats (theme, language, quality_bucket, n, quality_sum, with_emotion)
  SELECT s.theme, ${language('s')}, ${bucket('s')}, COUNT(*), SUM(s.quality_score), SUM(${hasEmotion('s')})
  FROM snippets s GROUP BY 1, 2, 3;
INSERT INTO snippet_hourly (hour, n, with_emotion, quality_sum)
  SELECT ${hour('s')}, COUNT(*), SUM(${hasEmotion('s')}), SUM(s.quality_score) FROM snippets s GROUP BY 1;
INSERT INTO emotion_hourly (hour, emotion, n, n_present, n_dominant, score_sum, present_sum)
  SELECT ${hour('s')}, e.key, COUNT(*), SUM(e.value >= ${PRESENT}), SUM(e.key IS s.dominant), SUM(e.value),
    SUM(IIF(e.value >= ${PRESENT}, e.value, 0))
  FROM (SELECT s.created_at, s.metadata, ${dominant('s')} AS dominant FROM snippets s) s,
    json_each(${meta('s')}, '$.emotions') e
  WHERE typeof(e.key) = 'text' AND e.type IN ('integer', 'real')
  GROUP BY 1, 2;
INSERT INTO emotion_totals (emotion, n, n_present, n_dominant, score_sum, present_sum)
  SELECT emotion, SUM(n), SUM(n_present), SUM(n_dominant), SUM(score_sum), SUM(present_sum)
  FROM emotion_hourly GROUP BY emotion;

-- Counters that no table holds: segments ever stored by jobs (duplicates included).
CREATE TABLE analytics_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO analytics_counters (name, value) SELECT 'segments_total', MAX(
  (SELECT COUNT(*) FROM snippets),
  (SELECT COALESCE(SUM(COALESCE(json_extract(stats, '$.segments_created'), 0)
     + COALESCE(json_extract(stats, '$.duplicates'), 0)), 0)
   FROM jobs WHERE status IN ('completed', 'failed', 'cancelled') AND json_valid(stats)));

-- What the operator and the jobs did, newest last; pruned to the newest rows by the service.
CREATE TABLE activity (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  message TEXT NOT NULL,
  level TEXT NOT NULL CHECK (level IN ('success', 'info', 'warning', 'error')),
  job_id INTEGER,
  created_at TEXT NOT NULL
);

-- Throughput and the activity timeline count finished jobs by time.
CREATE INDEX jobs_completed ON jobs(completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX jobs_failed ON jobs(failed_at) WHERE failed_at IS NOT NULL;
CREATE INDEX sources_segments ON sources(segments_count);
`;
