import fs from 'node:fs';
import path from 'node:path';
import type { IndexStorage } from '@adam/contracts';
import type { EmbeddingSpace } from '../../engine/engine.js';
import { Conflict } from '../../lib/errors.js';
import type { Logger } from '../../logging.js';
import type { SnippetRepository } from '../../store/snippet.repository.js';
import { fsyncDir, writeFileAtomic } from '../../vector/atomic-file.js';
import { IndexClient } from '../../vector/index-client.js';
import {
  INDEX_MANIFEST,
  prepareInstall,
  readIndexManifest,
  removeGenerations,
} from '../../vector/index-files.js';
import { REINDEX_BATCH, type KeyFollower } from './live-index.js';

/** A space switch builds the next index here, beside the live one (index-files' layout). */
export const NEXT_INDEX_DIR = 'next';
/**
 * Written just before the next index's manifest goes in, removed once the rows hold the new
 * vectors: found at start, it means the switch had committed, and recoverSpaceSwitch finishes it.
 */
export const SWITCH_JOURNAL = 'switch.json';
/** The next space's vectors, kept aside for the rows: `[id f64][dimension × f32]` records. */
const SIDE_VECTORS = 'embeddings.f32';
/** Catch-up rounds for rows stored while the next index was built; later ones take the pending path. */
const CATCH_UP_ROUNDS = 5;

/** What a space switch needs of the engine. */
export interface SpaceSwitcher {
  /** Embeds in `space`, which need not be the current one. */
  embedWith(space: EmbeddingSpace, texts: string[]): Promise<Float32Array[]>;
  /**
   * Makes `space` the one every later task embeds in, and records it for the next start.
   * Called inside the swap, synchronously; throws only when recording failed (the engine has
   * switched: the journal left in place makes the next start record it).
   */
  activate(space: EmbeddingSpace): void;
}

export type SwitchOutcome =
  { status: 'switched'; total: number; embedded: number; late: number } | { status: 'stopped' };

/** The next index being built: the keys the live index got or lost since it began. */
interface SideBuild extends KeyFollower {
  space: EmbeddingSpace;
}

/** What a space switch needs of the live index. */
export interface SwitchableIndex {
  readonly dir: string;
  readonly ready: Promise<void>;
  readonly storage: IndexStorage;
  readonly embedderId: string;
  readonly lastOptimized: string | null;
  /** Follows the keys the live index gets or loses; set by the switch while it builds. */
  follower: KeyFollower | null;
  has(key: number): boolean;
  /** Re-opens the index, `swap` run in the one synchronous step before (see LiveIndex.reopen). */
  reopen(storage: IndexStorage, swap?: () => void): Promise<void>;
  removeAndSave(keys: readonly number[]): number[];
  reindexLater(ids: readonly number[]): void;
}

/**
 * The space switch: builds the next index beside the live one and swaps them, with the file
 * formats it writes meanwhile (next/, the side vectors, the journal) and the start's recovery.
 */
export class SpaceSwitch {
  /** The next index a space switch is building, while it does. */
  private building: SideBuild | null = null;

  constructor(
    private readonly deps: {
      live: SwitchableIndex;
      snippets: SnippetRepository;
      log: Logger;
      /** The engine's side of a space switch; without it switchSpace refuses. */
      spaces?: SpaceSwitcher;
    },
  ) {}

  /** Starts (or ends) a build: the live index follows its keys for it. */
  private setBuilding(build: SideBuild | null): void {
    this.building = build;
    this.deps.live.follower = build;
  }

  /** The space a switch is building the next index in, while it does. */
  get switchingTo(): EmbeddingSpace | null {
    return this.building?.space ?? null;
  }

  /**
   * Switches the index to another embedding space while search keeps answering from this one:
   * every row is embedded in `space` into a next index built beside the live one (next/), with
   * its vectors kept aside in a file, not on the rows the live index is re-added from; rows
   * stored meanwhile are caught up; then, with no save in flight, the next index's files go in,
   * the engine switches space (`spaces.activate`) and the index re-opens with the new
   * dimension, all in one synchronous step. The rows get their new vectors after. Rows stored
   * after the last catch-up go back to pending and are re-embedded by the usual path.
   *
   * Stopped, failed or overtaken by a restore before the swap: the live index and space are
   * untouched and next/ is removed. A crash before the swap leaves next/ to recoverSpaceSwitch,
   * which removes it; from the journal written just before the swap on, it finishes the switch.
   */
  async switchSpace(
    space: EmbeddingSpace,
    opts: {
      onProgress?: (done: number, total: number) => void;
      shouldStop?: () => boolean;
    } = {},
  ): Promise<SwitchOutcome> {
    const spaces = this.deps.spaces;
    if (!spaces) throw new Error('This index cannot switch embedding spaces');
    const live = this.deps.live;
    await live.ready;
    if (this.building)
      throw new Conflict(`The index is already switching to ${this.building.space.id}`);
    if (fs.existsSync(path.join(live.dir, SWITCH_JOURNAL)))
      throw new Conflict('The last embedding switch is finished at the next start: restart first');
    const build: SideBuild = { space, added: new Set(), removed: new Set(), invalid: null };
    this.setBuilding(build);
    const nextDir = path.join(live.dir, NEXT_INDEX_DIR);
    const storage = live.storage;
    let side: IndexClient | null = null;
    let vectors: SideVectors | null = null;
    let swapped = false;
    try {
      fs.rmSync(nextDir, { recursive: true, force: true });
      fs.mkdirSync(nextDir, { recursive: true });
      side = new IndexClient(nextDir, space.dimension, { quantization: storage });
      await side.ready;
      vectors = new SideVectors(path.join(nextDir, SIDE_VECTORS), space.dimension);
      const into = side;
      const out = vectors;
      const embedRows = async (ids: readonly number[]): Promise<number> => {
        const rows = this.deps.snippets.findByIds(ids);
        if (rows.length === 0) return 0;
        const made = await spaces.embedWith(
          space,
          rows.map((r) => r.text),
        );
        const entries = rows.map((r, i) => ({ key: r.id, vector: made[i]! }));
        await into.add(entries);
        out.append(entries);
        return rows.length;
      };
      const stopped = () => build.invalid !== null || (opts.shouldStop?.() ?? false);

      const ids = this.deps.snippets.allIds();
      let done = 0;
      let embedded = 0;
      opts.onProgress?.(0, ids.length);
      for (let i = 0; i < ids.length && !stopped(); i += REINDEX_BATCH) {
        const batch = ids.slice(i, i + REINDEX_BATCH);
        embedded += await embedRows(batch);
        done += batch.length;
        opts.onProgress?.(done, ids.length);
      }
      // Rows stored or deleted while the rest was embedded. A row keeps its text for life, so
      // only the ones the next index lacks (or lost and got again: an id reused) are embedded.
      for (let round = 0; round < CATCH_UP_ROUNDS && !stopped(); round++) {
        if (build.added.size === 0 && build.removed.size === 0) break;
        const removed = new Set(build.removed);
        const added = [...build.added].filter((k) => removed.has(k) || !into.has(k));
        build.removed.clear();
        build.added.clear();
        const { done: removing } = into.remove([...removed]);
        await removing;
        for (let i = 0; i < added.length && !stopped(); i += REINDEX_BATCH)
          embedded += await embedRows(added.slice(i, i + REINDEX_BATCH));
      }
      if (stopped()) {
        if (build.invalid)
          throw new Conflict(`The embedding switch was overtaken: ${build.invalid}`);
        return { status: 'stopped' };
      }
      await into.save();
      await into.close();
      side = null;
      out.close();
      writeFileAtomic(
        path.join(nextDir, 'state.json'),
        JSON.stringify({ last_optimized: live.lastOptimized, embedder: space.id }),
      );

      const journal = path.join(live.dir, SWITCH_JOURNAL);
      let install!: ReturnType<typeof prepareInstall>;
      let recorded = true;
      let late: { added: number[]; removed: number[] } = { added: [], removed: [] };
      await live.reopen(storage, () => {
        if (build.invalid)
          throw new Conflict(`The embedding switch was overtaken: ${build.invalid}`);
        install = prepareInstall(nextDir, live.dir);
        try {
          const entry: SwitchJournal = { to: space, from: live.embedderId };
          writeFileAtomic(journal, JSON.stringify(entry, null, 2));
          install.commit();
        } catch (e) {
          install.rollback();
          fs.rmSync(journal, { force: true });
          throw e;
        }
        // Committed: from here a crash finishes the switch at the next start.
        swapped = true;
        try {
          spaces.activate(space);
        } catch (e) {
          recorded = false;
          this.deps.log.error(
            { component: 'index', err: e },
            `Recording ${space.id} as the active embedder failed: the next start records it`,
          );
        }
        // Stored or deleted since the last catch-up: handled by the pending path below.
        late = { added: [...build.added], removed: [...build.removed] };
        this.setBuilding(null);
      });

      try {
        live.removeAndSave(late.removed);
        const lateSet = new Set(late.added);
        await applySideVectors(nextDir, space, this.deps.snippets, lateSet);
        this.markHeldRowsIndexed(lateSet);
        if (late.added.length) {
          this.deps.snippets.markPending(late.added);
          live.reindexLater(late.added);
        }
        if (recorded) fs.rmSync(journal, { force: true });
        install.cleanup();
        fs.rmSync(nextDir, { recursive: true, force: true });
      } catch (e) {
        // Switched all the same: the journal left in place makes the next start finish it.
        this.deps.log.error(
          { component: 'index', err: e },
          `Giving the rows their ${space.id} vectors failed: the next start finishes it`,
        );
      }
      this.deps.log.info(
        { component: 'index' },
        `Switched the index to ${space.id} (${space.dimension} dimensions): ${embedded} snippets embedded` +
          (late.added.length
            ? `, ${late.added.length} stored during the swap re-embedded after it`
            : ''),
      );
      return { status: 'switched', total: ids.length, embedded, late: late.added.length };
    } finally {
      if (!swapped) {
        vectors?.close();
        await side?.close().catch(() => undefined);
        fs.rmSync(nextDir, { recursive: true, force: true });
        if (this.building === build) this.setBuilding(null);
      }
    }
  }

  /**
   * Pending rows the new index holds: they were saved in it (added before the swap but not yet
   * saved by the old index, or never indexed at all), so they are indexed.
   */
  private markHeldRowsIndexed(except: ReadonlySet<number>): void {
    const at = new Date().toISOString();
    let after = 0;
    for (;;) {
      const ids = this.deps.snippets.pendingIdsAfter(after, 1_000);
      if (ids.length === 0) break;
      after = ids[ids.length - 1]!;
      const held = ids.filter((id) => !except.has(id) && this.deps.live.has(id));
      if (held.length) this.deps.snippets.markIndexed(held, at);
    }
  }
}

// ---------------------------------------------------------------- space switch files

interface SwitchJournal {
  to: EmbeddingSpace;
  from: string;
}

/** The next space's vectors, appended as they are made: `[id f64][dimension × f32]` records. */
class SideVectors {
  private fd: number | null;
  constructor(
    readonly file: string,
    private readonly dimension: number,
  ) {
    this.fd = fs.openSync(file, 'a');
  }

  append(entries: ReadonlyArray<{ key: number; vector: Float32Array }>): void {
    const record = 8 + this.dimension * 4;
    const buf = Buffer.alloc(entries.length * record);
    entries.forEach((e, i) => {
      buf.writeDoubleLE(e.key, i * record);
      Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength).copy(
        buf,
        i * record + 8,
      );
    });
    fs.writeSync(this.fd!, buf);
  }

  close(): void {
    if (this.fd === null) return;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Records read and written to the rows at once: ~1.5 MB at 384 dimensions. */
const APPLY_CHUNK = 1_024;

/**
 * The side file's vectors as rows for setEmbeddings, a chunk at a time, in file order (a later
 * record of an id wins), without `except`. A record cut short by a crash ends the file.
 */
function* sideVectorChunks(
  nextDir: string,
  space: EmbeddingSpace,
  except: ReadonlySet<number>,
): Generator<{ id: number; embedding: Buffer; embedder_id: string }[]> {
  const file = path.join(nextDir, SIDE_VECTORS);
  if (!fs.existsSync(file)) return;
  const bytes = space.dimension * 4;
  const record = 8 + bytes;
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(APPLY_CHUNK * record);
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      const whole = Math.floor(n / record);
      if (whole === 0) return;
      const rows: { id: number; embedding: Buffer; embedder_id: string }[] = [];
      for (let i = 0; i < whole; i++) {
        const id = buf.readDoubleLE(i * record);
        if (except.has(id)) continue;
        const at = i * record + 8;
        rows.push({
          id,
          embedding: Buffer.from(buf.subarray(at, at + bytes)),
          embedder_id: space.id,
        });
      }
      yield rows;
      if (whole < APPLY_CHUNK) return;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes the next space's vectors onto the rows (rows deleted meanwhile are skipped by
 * setEmbeddings), yielding to the event loop between chunks: searches go on meanwhile.
 */
async function applySideVectors(
  nextDir: string,
  space: EmbeddingSpace,
  snippets: SnippetRepository,
  except: ReadonlySet<number>,
): Promise<void> {
  for (const rows of sideVectorChunks(nextDir, space, except)) {
    snippets.setEmbeddings(rows);
    await new Promise((r) => setImmediate(r));
  }
}

/**
 * At start, before the index opens: finishes a space switch that committed (its journal is
 * there) or removes the leftovers of one that did not. Answers the space a finished switch
 * went to, which the caller records as the active one; null when there was none.
 *
 * A committed switch is finished forward: the manifest and state.json renames that a crash cut
 * short are done, the next space's vectors (still in next/) are written onto the rows, then
 * the older generations, next/ and the journal are removed. Before the journal, the live
 * index was never touched: next/ and an install's `.next` files are simply removed.
 */
export function recoverSpaceSwitch(deps: {
  dir: string;
  snippets: SnippetRepository;
  log: Logger;
}): EmbeddingSpace | null {
  const { dir, snippets, log } = deps;
  const nextDir = path.join(dir, NEXT_INDEX_DIR);
  const journalFile = path.join(dir, SWITCH_JOURNAL);
  let journal: SwitchJournal | null = null;
  try {
    journal = JSON.parse(fs.readFileSync(journalFile, 'utf8')) as SwitchJournal;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      // Written atomically: an unreadable one was never complete, so nothing was committed.
      log.warn({ component: 'index' }, `Ignoring an unreadable ${SWITCH_JOURNAL}`);
    }
  }
  if (!journal?.to?.id || !journal.to.dimension) {
    if (fs.existsSync(nextDir)) {
      for (const name of [INDEX_MANIFEST, 'state.json'])
        fs.rmSync(path.join(dir, `${name}.next`), { force: true });
      fs.rmSync(nextDir, { recursive: true, force: true });
      log.warn(
        { component: 'index' },
        'An embedding switch was interrupted before its swap: the index and embedder stay as they were',
      );
    }
    fs.rmSync(journalFile, { force: true });
    return null;
  }
  const space = journal.to;
  // prepareInstall's commit, finished: each `.next` replaces its file (the old kept aside).
  for (const name of [INDEX_MANIFEST, 'state.json']) {
    const live = path.join(dir, name);
    if (!fs.existsSync(`${live}.next`)) continue;
    if (fs.existsSync(live)) fs.renameSync(live, `${live}.replaced`);
    fs.renameSync(`${live}.next`, live);
  }
  fsyncDir(dir);
  let applied = 0;
  for (const rows of sideVectorChunks(nextDir, space, new Set())) {
    snippets.setEmbeddings(rows);
    applied += rows.length;
  }
  for (const name of [INDEX_MANIFEST, 'state.json'])
    fs.rmSync(path.join(dir, `${name}.replaced`), { force: true });
  try {
    const m = readIndexManifest(dir);
    if (m) removeGenerations(dir, m.generation, true);
  } catch {
    // A damaged manifest: the index's open moves it aside and rebuilds from the rows.
  }
  fs.rmSync(nextDir, { recursive: true, force: true });
  fs.rmSync(journalFile, { force: true });
  log.warn(
    { component: 'index' },
    `Finished the switch to ${space.id} that a stop interrupted (${applied} snippets given their new vectors)`,
  );
  return space;
}
