/**
 * One-off thread for the database panel's compression figure: the pages the snippets table
 * takes (dbstat) against the bytes of their text. Both read the whole table, seconds at a
 * million rows, so they run here on a read-only connection of their own, off the event loop.
 */
import Database from 'better-sqlite3';

export interface SnippetStorageTask {
  dbFile: string;
}

export interface SnippetStorage {
  /** Bytes of every page of the snippets table's b-tree (overflow pages included). */
  storedBytes: number;
  /** UTF-8 bytes of the snippets' text. */
  textBytes: number;
  rows: number;
}

export function snippetStorage(task: SnippetStorageTask): SnippetStorage {
  const db = new Database(task.dbFile, { readonly: true, fileMustExist: true });
  try {
    const stored = db
      .prepare("SELECT pgsize FROM dbstat WHERE name = 'snippets' AND aggregate = TRUE")
      .pluck()
      .get() as number | undefined;
    const text = db
      .prepare('SELECT COUNT(*) AS n, COALESCE(SUM(octet_length(text)), 0) AS bytes FROM snippets')
      .get() as { n: number; bytes: number };
    return { storedBytes: stored ?? 0, textBytes: text.bytes, rows: text.n };
  } finally {
    db.close();
  }
}

/** piscina's entry (a module needs a default export to be taken as a task module). */
export default snippetStorage;
