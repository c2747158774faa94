import { ANALYTICS_MIGRATION_SQL } from './analytics-aggregates.js';
import { LISTING_MIGRATION_SQL } from './listing.js';

/**
 * Plain SQL migrations, applied in order at start inside one transaction each.
 * Append only: never edit a migration that has shipped.
 */
export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    id: 1,
    name: 'users_keys_settings_logs',
    sql: `
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  email TEXT NOT NULL UNIQUE COLLATE NOCASE,
  name TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  totp_secret TEXT,
  totp_pending_secret TEXT,
  totp_enabled INTEGER NOT NULL DEFAULT 0,
  totp_last_step INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT
);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE settings (
  section TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE logs (
  id INTEGER PRIMARY KEY,
  timestamp TEXT NOT NULL,
  level TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warning', 'error')),
  component TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX logs_timestamp ON logs(timestamp);
CREATE INDEX logs_level_timestamp ON logs(level, timestamp);
`,
  },
  {
    id: 2,
    name: 'snippets_rules',
    sql: `
CREATE TABLE snippets (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL,
  text_hash TEXT NOT NULL UNIQUE,
  theme TEXT NOT NULL DEFAULT 'general',
  quality_score REAL NOT NULL DEFAULT 0,
  language TEXT,
  word_count INTEGER NOT NULL DEFAULT 0,
  size_bytes INTEGER NOT NULL DEFAULT 0,
  source_title TEXT,
  source_url TEXT,
  job_id INTEGER,
  metadata TEXT NOT NULL DEFAULT '{}',
  embedding BLOB,
  embedder_id TEXT,
  faiss_id INTEGER,
  index_pending INTEGER NOT NULL DEFAULT 1,
  indexed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX snippets_created ON snippets(created_at);
CREATE INDEX snippets_quality ON snippets(quality_score);
CREATE INDEX snippets_words ON snippets(word_count);
CREATE INDEX snippets_theme_created ON snippets(theme, created_at);
CREATE INDEX snippets_job ON snippets(job_id);
CREATE INDEX snippets_source_url ON snippets(source_url);
CREATE INDEX snippets_pending ON snippets(index_pending) WHERE index_pending = 1;
CREATE UNIQUE INDEX snippets_faiss ON snippets(faiss_id) WHERE faiss_id IS NOT NULL;

CREATE VIRTUAL TABLE snippets_fts USING fts5(text, content='snippets', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER snippets_ai AFTER INSERT ON snippets BEGIN
  INSERT INTO snippets_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER snippets_ad AFTER DELETE ON snippets BEGIN
  INSERT INTO snippets_fts(snippets_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER snippets_au AFTER UPDATE OF text ON snippets BEGIN
  INSERT INTO snippets_fts(snippets_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO snippets_fts(rowid, text) VALUES (new.id, new.text);
END;

CREATE TABLE scraping_rules (
  id INTEGER PRIMARY KEY,
  domain TEXT NOT NULL UNIQUE COLLATE NOCASE,
  mode TEXT NOT NULL DEFAULT 'allow',
  target TEXT,
  enabled INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`,
  },
  {
    id: 3,
    name: 'jobs_sources',
    sql: `
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  type TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled')),
  priority TEXT NOT NULL DEFAULT 'normal' CHECK (priority IN ('high', 'normal', 'low')),
  priority_rank INTEGER NOT NULL DEFAULT 1,
  urls TEXT NOT NULL DEFAULT '[]',
  input TEXT NOT NULL DEFAULT '{}',
  filters TEXT NOT NULL DEFAULT '{}',
  metadata TEXT NOT NULL DEFAULT '{}',
  progress REAL NOT NULL DEFAULT 0,
  stage TEXT,
  stats TEXT NOT NULL DEFAULT '{}',
  errors TEXT NOT NULL DEFAULT '[]',
  done_urls TEXT NOT NULL DEFAULT '[]',
  worker_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  completed_at TEXT,
  failed_at TEXT,
  cancelled_at TEXT,
  heartbeat_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX jobs_claim ON jobs(status, priority_rank, created_at, id);
CREATE INDEX jobs_created ON jobs(created_at);

CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,
  domain TEXT NOT NULL,
  title TEXT,
  language TEXT,
  segments_count INTEGER NOT NULL DEFAULT 0,
  last_job_id INTEGER,
  last_status TEXT,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX sources_domain ON sources(domain);
`,
  },
  {
    id: 4,
    name: 'snippet_filter_indexes',
    // Listing by job or source sorts by date: these let SQLite read rows already in order.
    sql: `
CREATE INDEX snippets_job_created ON snippets(job_id, created_at);
CREATE INDEX snippets_source_created ON snippets(source_url, created_at);
DROP INDEX snippets_job;
DROP INDEX snippets_source_url;
`,
  },
  {
    id: 5,
    name: 'analytics_aggregates_activity',
    // Analytics read these few rows instead of scanning the snippets (see the file).
    sql: ANALYTICS_MIGRATION_SQL,
  },
  {
    id: 6,
    name: 'snippets_fts_porter',
    // Stemmed words ("indexes" finds "indexing"), so questions meet their answers. The table
    // is an external-content index of snippets.text: rebuilt in place from the rows.
    sql: `
DROP TRIGGER IF EXISTS snippets_ai;
DROP TRIGGER IF EXISTS snippets_ad;
DROP TRIGGER IF EXISTS snippets_au;
DROP TABLE IF EXISTS snippets_fts;
CREATE VIRTUAL TABLE snippets_fts USING fts5(text, content='snippets', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO snippets_fts(snippets_fts) VALUES ('rebuild');
CREATE TRIGGER snippets_ai AFTER INSERT ON snippets BEGIN
  INSERT INTO snippets_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER snippets_ad AFTER DELETE ON snippets BEGIN
  INSERT INTO snippets_fts(snippets_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER snippets_au AFTER UPDATE OF text ON snippets BEGIN
  INSERT INTO snippets_fts(snippets_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO snippets_fts(rowid, text) VALUES (new.id, new.text);
END;
`,
  },
  {
    id: 7,
    name: 'listing_indexes_counts_embeddings',
    // Listing at a million rows: side table for vectors, counts kept by triggers, ordered indexes.
    sql: LISTING_MIGRATION_SQL,
  },
  {
    id: 8,
    name: 'models',
    // The model registry. Files live under <dataDir>/models/<repo>/<revision>/, so rows of one
    // repo@revision (language packs of one multilingual model) share one directory. Rows of the
    // catalogue carry its key, which seeding matches on (an operator's edits are kept). IF NOT
    // EXISTS: harmless on a store copy that has the table but not the migration's record.
    sql: `
CREATE TABLE IF NOT EXISTS models (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE COLLATE NOCASE,
  type TEXT NOT NULL,
  language TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'not_installed',
  active INTEGER NOT NULL DEFAULT 0,
  version TEXT NOT NULL DEFAULT '',
  installed_version TEXT,
  description TEXT NOT NULL DEFAULT '',
  load_time_ms REAL,
  memory_mb REAL,
  inference_speed REAL,
  source_url TEXT,
  local_path TEXT,
  repo TEXT,
  revision TEXT NOT NULL DEFAULT 'main',
  dimension INTEGER,
  builtin INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  catalogue TEXT UNIQUE,
  expected_bytes INTEGER NOT NULL DEFAULT 0,
  disk_bytes INTEGER NOT NULL DEFAULT 0,
  downloaded_bytes INTEGER NOT NULL DEFAULT 0,
  total_bytes INTEGER NOT NULL DEFAULT 0,
  job_id INTEGER,
  message TEXT NOT NULL DEFAULT '',
  last_action TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS models_repo ON models(repo, revision);
`,
  },
  {
    id: 9,
    name: 'metrics_history',
    // The machine's metrics, one JSON SystemMetrics per point: raw 5 s samples, per-minute and
    // per-10-minute means (tier). Each tier is read by time from its own index range.
    sql: `
CREATE TABLE IF NOT EXISTS metrics_history (
  id INTEGER PRIMARY KEY,
  tier TEXT NOT NULL CHECK (tier IN ('raw', 'minute', 'ten_minutes')),
  ts INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS metrics_history_tier_ts ON metrics_history(tier, ts);
`,
  },
  {
    id: 10,
    name: 'logs_search_store_probe',
    // The logs' text search: a trigram index of message and component (detail=none: rowids
    // only, about half the table's size) that narrows a rare search term to its candidate
    // lines, which LogRepository checks with LIKE. store_probe: the one row the database
    // panel's write-latency probe rewrites. IF NOT EXISTS, as in migration 8: harmless on a
    // store copy that has them but not the migration's record.
    sql: `
CREATE VIRTUAL TABLE IF NOT EXISTS logs_fts USING fts5(message, component, content='logs', content_rowid='id', tokenize='trigram', detail='none', columnsize=0);
INSERT INTO logs_fts(logs_fts) VALUES ('rebuild');
CREATE TRIGGER IF NOT EXISTS logs_fts_ai AFTER INSERT ON logs BEGIN
  INSERT INTO logs_fts(rowid, message, component) VALUES (new.id, new.message, new.component);
END;
CREATE TRIGGER IF NOT EXISTS logs_fts_ad AFTER DELETE ON logs BEGIN
  INSERT INTO logs_fts(logs_fts, rowid, message, component) VALUES ('delete', old.id, old.message, old.component);
END;
CREATE TABLE IF NOT EXISTS store_probe (id INTEGER PRIMARY KEY, at TEXT NOT NULL);
`,
  },
  {
    id: 11,
    name: 'vector_deletions_snippet_id_floor',
    // vector_deletions: snippets deleted since the last index save, recorded with the rows'
    // deletion: a crash before the next save leaves their vectors in the saved index, and the
    // start removes them (IndexService.reconcile) instead of reporting them as orphans. Emptied
    // after each save. snippet_id_floor: the highest snippet id ever deleted. SQLite gives a new
    // row the highest id + 1, so deleting the newest snippet let the next one take its id (and
    // its vector key); insertMany starts above the floor instead.
    sql: `
CREATE TABLE IF NOT EXISTS vector_deletions (seq INTEGER PRIMARY KEY, key INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS snippet_id_floor (one INTEGER PRIMARY KEY CHECK (one = 1), high INTEGER NOT NULL);
INSERT OR IGNORE INTO snippet_id_floor (one, high) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS snippets_id_floor AFTER DELETE ON snippets
  WHEN old.id > (SELECT high FROM snippet_id_floor) BEGIN
  UPDATE snippet_id_floor SET high = old.id;
END;
`,
  },
  {
    id: 12,
    name: 'job_id_floor',
    // The highest job id ever deleted (as snippet_id_floor for snippets): a deleted job's id is
    // never given again, so a link to it (the activity feed, a source's last job) never names
    // another job. A restore raises it to the highest id handed out before it.
    sql: `
CREATE TABLE IF NOT EXISTS job_id_floor (one INTEGER PRIMARY KEY CHECK (one = 1), high INTEGER NOT NULL);
INSERT OR IGNORE INTO job_id_floor (one, high) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS jobs_id_floor AFTER DELETE ON jobs
  WHEN old.id > (SELECT high FROM job_id_floor) BEGIN
  UPDATE job_id_floor SET high = old.id;
END;
`,
  },
  {
    id: 13,
    name: 'sources_kind',
    // What a source is: a web page (a URL, or a page found by a crawl), an uploaded document, or
    // records of an import. Every source before this one was a web page.
    sql: `
ALTER TABLE sources ADD COLUMN kind TEXT NOT NULL DEFAULT 'web' CHECK (kind IN ('web', 'file', 'import'));
CREATE INDEX IF NOT EXISTS sources_kind ON sources(kind);
`,
  },
  {
    id: 14,
    name: 'source_syncs',
    // Keeping web sources fresh: each source's schedule and the validators of its last fetch
    // (ETag, Last-Modified, a hash of the body) for conditional re-fetches; missing_count counts
    // syncs in a row that found the page gone (404/410), so one bad answer never prunes it;
    // sync_job_id is the sync job that holds the source (one sync of a source at a time).
    // source_syncs: one row per sync of a source, with its counts.
    sql: `
ALTER TABLE sources ADD COLUMN schedule TEXT NOT NULL DEFAULT 'off';
ALTER TABLE sources ADD COLUMN next_sync_at TEXT;
ALTER TABLE sources ADD COLUMN last_sync_at TEXT;
ALTER TABLE sources ADD COLUMN etag TEXT;
ALTER TABLE sources ADD COLUMN last_modified TEXT;
ALTER TABLE sources ADD COLUMN content_hash TEXT;
ALTER TABLE sources ADD COLUMN missing_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN sync_job_id INTEGER;
CREATE INDEX IF NOT EXISTS sources_next_sync ON sources(next_sync_at) WHERE next_sync_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS sources_missing ON sources(missing_count) WHERE missing_count > 0;
CREATE TABLE IF NOT EXISTS source_syncs (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  job_id INTEGER,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('running', 'unchanged', 'changed', 'missing', 'pruned', 'failed', 'skipped')),
  pages_added INTEGER NOT NULL DEFAULT 0,
  pages_changed INTEGER NOT NULL DEFAULT 0,
  pages_unchanged INTEGER NOT NULL DEFAULT 0,
  pages_removed INTEGER NOT NULL DEFAULT 0,
  pages_failed INTEGER NOT NULL DEFAULT 0,
  segments_added INTEGER NOT NULL DEFAULT 0,
  segments_kept INTEGER NOT NULL DEFAULT 0,
  segments_removed INTEGER NOT NULL DEFAULT 0,
  reembedded INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
CREATE INDEX IF NOT EXISTS source_syncs_source ON source_syncs(source_id, id);
CREATE INDEX IF NOT EXISTS source_syncs_job ON source_syncs(job_id);
`,
  },
  {
    id: 17,
    name: 'import_staging',
    // An import's rows wait here, invisible to listings and search, until its job moves them
    // into snippets; each moved row keeps the id it became, so a failure, a cancel or a crash
    // during the move deletes exactly those: an import lands whole or not at all.
    sql: `
CREATE TABLE IF NOT EXISTS import_staging (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL,
  text TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  theme TEXT NOT NULL,
  quality_score REAL NOT NULL,
  language TEXT,
  word_count INTEGER NOT NULL,
  size_bytes INTEGER NOT NULL,
  source_title TEXT,
  source_url TEXT,
  metadata TEXT NOT NULL,
  embedding BLOB,
  embedder_id TEXT,
  vector_origin TEXT NOT NULL CHECK (vector_origin IN ('reused', 'embedded', 'analysed')),
  -- NULL until moved: then the snippet it became, or 0 for a duplicate.
  snippet_id INTEGER
);
CREATE INDEX IF NOT EXISTS import_staging_job ON import_staging(job_id, id);
`,
  },
  {
    id: 15,
    name: 'crawl_frontier',
    // A crawl's frontier: every URL it learnt of, once, with what became of it. The server alone
    // writes it (from the crawl's recorded results), and hands it back to the working half when
    // the crawl resumes after a restart, so recorded pages are not fetched again.
    sql: `
CREATE TABLE IF NOT EXISTS crawl_frontier (
  id INTEGER PRIMARY KEY,
  job_id INTEGER NOT NULL,
  url TEXT NOT NULL,
  depth INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'fetched', 'skipped', 'failed')),
  reason TEXT,
  http_status INTEGER,
  content_hash TEXT,
  detail TEXT,
  discovered_from TEXT,
  fetched_at TEXT,
  UNIQUE (job_id, url)
);
CREATE INDEX IF NOT EXISTS crawl_frontier_status ON crawl_frontier(job_id, status, reason);
CREATE INDEX IF NOT EXISTS crawl_frontier_hash ON crawl_frontier(job_id, content_hash)
  WHERE content_hash IS NOT NULL;
CREATE TRIGGER IF NOT EXISTS crawl_frontier_job_deleted AFTER DELETE ON jobs BEGIN
  DELETE FROM crawl_frontier WHERE job_id = old.id;
END;
`,
  },
  {
    id: 18,
    name: 'source_id_floor',
    // The highest source id ever deleted (as job_id_floor for jobs): a deleted source's id is
    // never given again, so a link to it never opens another source. A restore raises it to the
    // highest id handed out before it.
    sql: `
CREATE TABLE IF NOT EXISTS source_id_floor (one INTEGER PRIMARY KEY CHECK (one = 1), high INTEGER NOT NULL);
INSERT OR IGNORE INTO source_id_floor (one, high) VALUES (1, 0);
CREATE TRIGGER IF NOT EXISTS sources_id_floor AFTER DELETE ON sources
  WHEN old.id > (SELECT high FROM source_id_floor) BEGIN
  UPDATE source_id_floor SET high = old.id;
END;
`,
  },
  {
    id: 19,
    name: 'crawl_syncs',
    // Keeping a crawl fresh. A crawl (named by its first crawl_site job) keeps its plan (that
    // job's input, so deleting the job keeps it), its schedule and the sync job holding it. Its
    // pages: the sources it stored (a pruned source's row goes with it), plus URLs it fetched and
    // skipped (duplicates, noindex…; source_id NULL) that a sync does not fetch again.
    // in_sitemap: the page was listed by the last complete sitemap read (absence counts then).
    sql: `
CREATE TABLE IF NOT EXISTS crawls (
  id INTEGER PRIMARY KEY,
  plan TEXT NOT NULL,
  schedule TEXT NOT NULL DEFAULT 'off',
  next_sync_at TEXT,
  last_sync_at TEXT,
  sync_job_id INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS crawls_next_sync ON crawls(next_sync_at) WHERE next_sync_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS crawl_pages (
  crawl_id INTEGER NOT NULL REFERENCES crawls(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE,
  depth INTEGER NOT NULL DEFAULT 0,
  text_hash TEXT,
  in_sitemap INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (crawl_id, url)
);
CREATE INDEX IF NOT EXISTS crawl_pages_source ON crawl_pages(source_id) WHERE source_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS crawl_syncs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  crawl_id INTEGER NOT NULL REFERENCES crawls(id) ON DELETE CASCADE,
  job_id INTEGER,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  outcome TEXT NOT NULL,
  pages_added INTEGER NOT NULL DEFAULT 0,
  pages_changed INTEGER NOT NULL DEFAULT 0,
  pages_unchanged INTEGER NOT NULL DEFAULT 0,
  pages_removed INTEGER NOT NULL DEFAULT 0,
  pages_failed INTEGER NOT NULL DEFAULT 0,
  segments_added INTEGER NOT NULL DEFAULT 0,
  segments_kept INTEGER NOT NULL DEFAULT 0,
  segments_removed INTEGER NOT NULL DEFAULT 0,
  reembedded INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
CREATE INDEX IF NOT EXISTS crawl_syncs_crawl ON crawl_syncs(crawl_id, id);
`,
  },
  {
    id: 20,
    name: 'keyword_changes',
    // The keyword engine's change log (keyword/keyword.service.ts): every change of a snippet's
    // text, with the text the engine indexed (its remove() takes it, as FTS5's 'delete' does)
    // and the new one. AUTOINCREMENT: a seq is never given twice, even once the log is emptied,
    // so a saved engine's last seq says which rows it has seen.
    sql: `
CREATE TABLE IF NOT EXISTS keyword_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  snippet_id INTEGER NOT NULL,
  old_text TEXT,
  new_text TEXT
);
CREATE TRIGGER IF NOT EXISTS snippets_keyword_ai AFTER INSERT ON snippets BEGIN
  INSERT INTO keyword_changes (snippet_id, old_text, new_text) VALUES (new.id, NULL, new.text);
END;
CREATE TRIGGER IF NOT EXISTS snippets_keyword_ad AFTER DELETE ON snippets BEGIN
  INSERT INTO keyword_changes (snippet_id, old_text, new_text) VALUES (old.id, old.text, NULL);
END;
CREATE TRIGGER IF NOT EXISTS snippets_keyword_au AFTER UPDATE OF text ON snippets BEGIN
  INSERT INTO keyword_changes (snippet_id, old_text, new_text) VALUES (new.id, old.text, new.text);
END;
`,
  },
  {
    id: 21,
    name: 'source_segmentation',
    // The segmentation each source's snippets were cut with (pipeline/segmentation-version.ts):
    // the existing ones with version 1, a new source with the running version (the trigger; an
    // upsert of an existing source keeps its version: its old snippets may stay). A sync's
    // count of the pages it re-cut for that reason.
    sql: `
ALTER TABLE sources ADD COLUMN segmentation INTEGER NOT NULL DEFAULT 1;
CREATE TRIGGER IF NOT EXISTS sources_segmentation_ai AFTER INSERT ON sources BEGIN
  UPDATE sources SET segmentation = 2 WHERE id = new.id;
END;
ALTER TABLE source_syncs ADD COLUMN pages_resegmented INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawl_syncs ADD COLUMN pages_resegmented INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    id: 23,
    name: 'user_roles',
    // Existing users are the first-start administrator: they keep everything. A user created by
    // an administrator starts with a one-time password (must_change_password) until they change it.
    sql: `
ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'administrator'
  CHECK (role IN ('administrator', 'operator', 'viewer'));
ALTER TABLE users ADD COLUMN disabled_at TEXT;
ALTER TABLE users ADD COLUMN must_change_password INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    id: 24,
    name: 'api_key_kinds',
    // api_keys held only login sessions; it now also holds programs' keys. A session has no name
    // or scope (it acts with its user's role); an API key's scope caps that role. The prefix is
    // the secret's first characters, for lists; the addresses and browser are for the lists too.
    sql: `
ALTER TABLE api_keys ADD COLUMN kind TEXT NOT NULL DEFAULT 'session'
  CHECK (kind IN ('session', 'api'));
ALTER TABLE api_keys ADD COLUMN name TEXT;
ALTER TABLE api_keys ADD COLUMN scope TEXT CHECK (scope IS NULL OR scope IN ('read', 'write', 'admin'));
ALTER TABLE api_keys ADD COLUMN prefix TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_address TEXT;
ALTER TABLE api_keys ADD COLUMN user_agent TEXT;
ALTER TABLE api_keys ADD COLUMN created_address TEXT;
DROP INDEX api_keys_user;
CREATE INDEX api_keys_user_kind ON api_keys(user_id, kind);
`,
  },
  {
    id: 25,
    name: 'audit_log',
    // Append-only: each row's hash covers the previous row's hash and its own fields, so an edit
    // or a deletion breaks the chain. audit_chain (one row) holds the head, so a deleted last row
    // is seen too, and the anchor: the last pruned row, where verification starts after pruning.
    sql: `
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  user_id INTEGER,
  user_email TEXT,
  key_id INTEGER,
  key_kind TEXT,
  action TEXT NOT NULL,
  target TEXT,
  address TEXT NOT NULL,
  status INTEGER,
  outcome TEXT NOT NULL CHECK (outcome IN ('ok', 'refused', 'failed')),
  detail TEXT,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX audit_log_user ON audit_log(user_email COLLATE NOCASE, id);
CREATE INDEX audit_log_user_id ON audit_log(user_id, id);
CREATE INDEX audit_log_action ON audit_log(action, id);
CREATE INDEX audit_log_target ON audit_log(target, id);
CREATE INDEX audit_log_outcome ON audit_log(outcome, id);
CREATE INDEX audit_log_at ON audit_log(at);
CREATE TABLE audit_chain (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  head_id INTEGER NOT NULL,
  head_hash TEXT NOT NULL,
  anchor_id INTEGER NOT NULL,
  anchor_hash TEXT NOT NULL
);
`,
  },
  {
    id: 26,
    name: 'snippet_section',
    // The heading path of the page section a snippet was cut from (null: none, or cut before
    // sections existed). Segmentation 3 (pipeline/segmentation-version.ts) cuts pages without
    // their furniture and never across a heading: a new source is cut by it.
    sql: `
ALTER TABLE snippets ADD COLUMN section TEXT;
DROP TRIGGER IF EXISTS sources_segmentation_ai;
CREATE TRIGGER sources_segmentation_ai AFTER INSERT ON sources BEGIN
  UPDATE sources SET segmentation = 3 WHERE id = new.id;
END;
`,
  },
  {
    id: 27,
    name: 'keyword_text_with_headings',
    // What keyword search matches: the page's title and the snippet's heading path before its
    // text. Headings left the text with segmentation 3 (migration 26), and a title was never in
    // it: "honey" found none of a "Honey bee" page's snippets. The view is the one definition;
    // FTS5 reads it as its content and the triggers index the same expression, old and new. The
    // keyword engine (format 2) builds from the view and its change log carries this text.
    sql: `
DROP TRIGGER IF EXISTS snippets_ai;
DROP TRIGGER IF EXISTS snippets_ad;
DROP TRIGGER IF EXISTS snippets_au;
DROP TRIGGER IF EXISTS snippets_keyword_ai;
DROP TRIGGER IF EXISTS snippets_keyword_ad;
DROP TRIGGER IF EXISTS snippets_keyword_au;
DROP TABLE IF EXISTS snippets_fts;
CREATE VIEW snippets_keyword AS
  SELECT id, COALESCE(source_title || char(10), '') || COALESCE(section || char(10), '') || text AS text
  FROM snippets;
CREATE VIRTUAL TABLE snippets_fts USING fts5(text, content='snippets_keyword', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO snippets_fts(snippets_fts) VALUES ('rebuild');
CREATE TRIGGER snippets_ai AFTER INSERT ON snippets BEGIN
  INSERT INTO snippets_fts(rowid, text) VALUES (new.id,
    COALESCE(new.source_title || char(10), '') || COALESCE(new.section || char(10), '') || new.text);
END;
CREATE TRIGGER snippets_ad AFTER DELETE ON snippets BEGIN
  INSERT INTO snippets_fts(snippets_fts, rowid, text) VALUES ('delete', old.id,
    COALESCE(old.source_title || char(10), '') || COALESCE(old.section || char(10), '') || old.text);
END;
CREATE TRIGGER snippets_au AFTER UPDATE OF text, section, source_title ON snippets BEGIN
  INSERT INTO snippets_fts(snippets_fts, rowid, text) VALUES ('delete', old.id,
    COALESCE(old.source_title || char(10), '') || COALESCE(old.section || char(10), '') || old.text);
  INSERT INTO snippets_fts(rowid, text) VALUES (new.id,
    COALESCE(new.source_title || char(10), '') || COALESCE(new.section || char(10), '') || new.text);
END;
CREATE TRIGGER snippets_keyword_ai AFTER INSERT ON snippets BEGIN
  INSERT INTO keyword_changes (snippet_id, old_text, new_text) VALUES (new.id, NULL,
    COALESCE(new.source_title || char(10), '') || COALESCE(new.section || char(10), '') || new.text);
END;
CREATE TRIGGER snippets_keyword_ad AFTER DELETE ON snippets BEGIN
  INSERT INTO keyword_changes (snippet_id, old_text, new_text) VALUES (old.id,
    COALESCE(old.source_title || char(10), '') || COALESCE(old.section || char(10), '') || old.text, NULL);
END;
CREATE TRIGGER snippets_keyword_au AFTER UPDATE OF text, section, source_title ON snippets BEGIN
  INSERT INTO keyword_changes (snippet_id, old_text, new_text) VALUES (new.id,
    COALESCE(old.source_title || char(10), '') || COALESCE(old.section || char(10), '') || old.text,
    COALESCE(new.source_title || char(10), '') || COALESCE(new.section || char(10), '') || new.text);
END;
`,
  },
  {
    id: 28,
    name: 'import_staging_section',
    // An import keeps a snippet's section (exports write it since migration 26).
    sql: `ALTER TABLE import_staging ADD COLUMN section TEXT;`,
  },
  {
    id: 30,
    name: 'evaluation_sets_runs',
    // Retrieval-quality evaluation (issue 27). A version is immutable: an edit copies the
    // latest's queries into a new one, so a run always points at exactly what it scored. A
    // query's key stays the same across versions, which is what two runs are compared on.
    sql: `
CREATE TABLE eval_sets (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  latest_version_id INTEGER,
  next_query_key INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE eval_set_versions (
  id INTEGER PRIMARY KEY,
  set_id INTEGER NOT NULL REFERENCES eval_sets(id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  change TEXT NOT NULL,
  query_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  UNIQUE (set_id, number)
);
CREATE TABLE eval_queries (
  id INTEGER PRIMARY KEY,
  version_id INTEGER NOT NULL REFERENCES eval_set_versions(id) ON DELETE CASCADE,
  query_key INTEGER NOT NULL,
  position INTEGER NOT NULL,
  text TEXT NOT NULL,
  filters TEXT,
  UNIQUE (version_id, query_key)
);
CREATE TABLE eval_judgments (
  query_id INTEGER NOT NULL REFERENCES eval_queries(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('snippet', 'source', 'source_url', 'source_title')),
  ref TEXT NOT NULL,
  grade INTEGER NOT NULL CHECK (grade BETWEEN 0 AND 3),
  PRIMARY KEY (query_id, kind, ref)
) WITHOUT ROWID;
CREATE TABLE eval_runs (
  id INTEGER PRIMARY KEY,
  set_id INTEGER NOT NULL REFERENCES eval_sets(id) ON DELETE CASCADE,
  version_id INTEGER NOT NULL REFERENCES eval_set_versions(id) ON DELETE CASCADE,
  modes TEXT NOT NULL,
  status TEXT NOT NULL,
  job_id INTEGER,
  state TEXT,
  summary TEXT NOT NULL DEFAULT '[]',
  error TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT
);
CREATE INDEX eval_runs_set ON eval_runs(set_id, id);
CREATE TABLE eval_run_results (
  run_id INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  query_key INTEGER NOT NULL,
  mode TEXT NOT NULL,
  ranked TEXT NOT NULL,
  ndcg_10 REAL NOT NULL,
  recall_10 REAL NOT NULL,
  recall_100 REAL NOT NULL,
  mrr REAL NOT NULL,
  latency_ms REAL NOT NULL,
  PRIMARY KEY (run_id, mode, query_key)
) WITHOUT ROWID;
-- A source-level judgment by title counts every snippet of that title.
CREATE INDEX snippets_source_title ON snippets(source_title);
`,
  },
  {
    id: 31,
    name: 'search_history',
    // One row a recorded search (issue 27). query_norm groups a query's searches in the
    // summary; `at` serves the retention prune and the time filters, the id the pages. No
    // foreign key on user_id: a user deleted while their searches wait in the buffer must not
    // make the buffer's write fail.
    sql: `
CREATE TABLE search_history (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  user_id INTEGER,
  query TEXT NOT NULL,
  query_norm TEXT NOT NULL,
  mode TEXT NOT NULL,
  filters TEXT,
  k INTEGER NOT NULL,
  result_count INTEGER NOT NULL,
  top_score REAL,
  best_similarity REAL,
  keyword_matches INTEGER NOT NULL,
  result_ids TEXT NOT NULL,
  latency_ms REAL NOT NULL,
  rerank TEXT
);
CREATE INDEX search_history_at ON search_history(at);
CREATE INDEX search_history_norm ON search_history(query_norm, at);
`,
  },
  {
    id: 32,
    name: 'evaluation_watch',
    // Continuous evaluation (issue 27): watched sets are run on their own, each run says what
    // queued it, and a fall of a mode's nDCG@10 from the set's previous run is kept as an alert
    // until an operator dismisses it. The lost queries are copied (at most 20, texts cut) so
    // an alert still reads the same once the set has newer versions.
    sql: `
ALTER TABLE eval_sets ADD COLUMN watched INTEGER NOT NULL DEFAULT 0;
ALTER TABLE eval_runs ADD COLUMN "trigger" TEXT NOT NULL DEFAULT 'manual'
  CHECK ("trigger" IN ('manual', 'rebuild', 'model_switch', 'settings', 'schedule'));
CREATE TABLE quality_alerts (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES eval_runs(id) ON DELETE CASCADE,
  set_id INTEGER NOT NULL REFERENCES eval_sets(id) ON DELETE CASCADE,
  mode TEXT NOT NULL,
  base_run_id INTEGER NOT NULL,
  base_ndcg_10 REAL NOT NULL,
  head_ndcg_10 REAL NOT NULL,
  fall REAL NOT NULL,
  threshold REAL NOT NULL,
  lost_count INTEGER NOT NULL,
  lost_queries TEXT NOT NULL,
  created_at TEXT NOT NULL,
  dismissed_at TEXT,
  dismissed_by TEXT,
  UNIQUE (run_id, mode)
);
CREATE INDEX quality_alerts_open ON quality_alerts(dismissed_at, id);
`,
  },
  {
    id: 33,
    name: 'snippets_id_walk',
    // A page of the plain listing (or of the index's entries) by number (OFFSET) walked the
    // table, whose rows hold the texts: page 1,001 of 1M rows read ~25 MB (33–45 ms). This
    // index holds the id and whether the row is indexed (~12 bytes an entry), so the same walk
    // reads ~0.6 MB.
    sql: `
CREATE INDEX snippets_id ON snippets(id, index_pending);
`,
  },
  {
    id: 34,
    name: 'index_storage_kept',
    // The index's default storage becomes bf16 (a store's index is rebuilt when its storage
    // changes). A store holding snippets whose processing settings never named a storage has
    // its index in f16, the old default: it is written down, so the upgrade does not rebuild
    // that index behind the operator's back (11 minutes of partial vector answers at 1M); a
    // switch to bf16 is theirs to make in the settings. An empty store takes the new default.
    sql: `
INSERT INTO settings (section, value, updated_at)
  SELECT 'processing', '{}', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  WHERE EXISTS (SELECT 1 FROM snippets)
    AND NOT EXISTS (SELECT 1 FROM settings WHERE section = 'processing');
UPDATE settings SET value = json_set(value, '$.index_storage', 'f16')
  WHERE section = 'processing' AND json_valid(value)
    AND json_extract(value, '$.index_storage') IS NULL
    AND EXISTS (SELECT 1 FROM snippets);
`,
  },
];
