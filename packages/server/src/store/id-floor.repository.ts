import type { Db } from './db.js';

/** The highest id ever given in each table whose ids the console links to. */
export interface IdFloors {
  jobs: number;
  snippets: number;
  sources: number;
}

/**
 * The id of a new source, above every source id ever given (migration 18): SQLite would give
 * the newest one's id again once it is deleted. Every INSERT INTO sources names it.
 */
export const NEXT_SOURCE_ID =
  '(SELECT MAX(COALESCE((SELECT MAX(id) FROM sources), 0), high) + 1 FROM source_id_floor)';

/**
 * The floors below which jobs, snippets and sources get no new id (migrations 11, 12, 18): each
 * table's newest id, or a deleted one above it. A restore reads them before it replaces the data and
 * raises the restored ones to them, so no id means two different things over time.
 */
export class IdFloorRepository {
  constructor(private readonly db: Db) {}

  highest(): IdFloors {
    const of = (table: 'jobs' | 'snippets' | 'sources') =>
      this.db
        .prepare(
          `SELECT MAX(COALESCE((SELECT MAX(id) FROM ${table}), 0), high) FROM ${table.slice(0, -1)}_id_floor`,
        )
        .pluck()
        .get() as number;
    return { jobs: of('jobs'), snippets: of('snippets'), sources: of('sources') };
  }

  raise(floors: IdFloors): void {
    this.db.prepare('UPDATE job_id_floor SET high = MAX(high, ?)').run(floors.jobs);
    this.db.prepare('UPDATE snippet_id_floor SET high = MAX(high, ?)').run(floors.snippets);
    this.db.prepare('UPDATE source_id_floor SET high = MAX(high, ?)').run(floors.sources);
  }
}
