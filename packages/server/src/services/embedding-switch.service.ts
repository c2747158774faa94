import fs from 'node:fs';
import path from 'node:path';
import { BUILTIN_DIMENSION, BUILTIN_EMBEDDER_ID } from '../embedding/builtin-embedder.js';
import { BUILTIN_SPACE, type EmbeddingSpace } from '../engine/engine.js';
import { dataDirHolder } from '../lib/data-dir-lock.js';
import { BadRequest, Conflict } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { JobRepository } from '../store/job.repository.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import { writeFileAtomic } from '../vector/atomic-file.js';
import { recoverSpaceSwitch, type SpaceSwitchState } from './index.service.js';
import type { JobService } from './job.service.js';

/** The active embedding space, chosen by the last switch; absent: the built-in embedder. */
export const ACTIVE_EMBEDDER_FILE = 'active-embedder.json';

/** A space to switch to, as the model registry knows it. */
export interface SwitchTarget {
  id: string;
  dimension: number;
  /** The installed model's absolute directory; null for the built-in embedder. */
  dir: string | null;
}

interface ActiveEmbedderFile extends SwitchTarget {
  activated_at: string;
}
// `dir` is stored relative to the data directory when it lies inside it.

/** Written by the switch as it swaps the index (inside the swap: synchronous, atomic). */
export function writeActiveSpace(dataDir: string, space: EmbeddingSpace): void {
  const file = path.join(dataDir, ACTIVE_EMBEDDER_FILE);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const dir = space.model?.dir ?? null;
  // Relative when inside the data directory, so the directory can move as a whole.
  const inside = dir !== null && !path.relative(dataDir, dir).startsWith('..');
  const entry: ActiveEmbedderFile = {
    id: space.id,
    dimension: space.dimension,
    dir: dir !== null && inside ? path.relative(dataDir, dir) : dir,
    activated_at: new Date().toISOString(),
  };
  writeFileAtomic(file, JSON.stringify(entry, null, 2));
}

/**
 * The recorded space, or the built-in one when none was recorded. A recorded model whose
 * directory is gone cannot embed: the built-in embedder takes over (the index, saved in the
 * other space, is then rebuilt from the rows) and the reason is logged.
 */
export function readActiveSpace(
  dataDir: string,
  log: { error(obj: object, message: string): void },
): EmbeddingSpace {
  const file = path.join(dataDir, ACTIVE_EMBEDDER_FILE);
  let entry: Partial<ActiveEmbedderFile>;
  try {
    entry = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<ActiveEmbedderFile>;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      log.error(
        { component: 'models' },
        `${ACTIVE_EMBEDDER_FILE} is unreadable: using the built-in embedder`,
      );
    return BUILTIN_SPACE;
  }
  const { id, dimension } = entry;
  const dir = typeof entry.dir === 'string' ? path.resolve(dataDir, entry.dir) : entry.dir;
  if (typeof id !== 'string' || !Number.isSafeInteger(dimension) || (dimension ?? 0) < 1) {
    log.error(
      { component: 'models' },
      `${ACTIVE_EMBEDDER_FILE} is incomplete: using the built-in embedder`,
    );
    return BUILTIN_SPACE;
  }
  // Only the built-in embedder has no directory.
  if (typeof dir !== 'string') return BUILTIN_SPACE;
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    log.error(
      { component: 'models' },
      `The active embedding model ${id} is no longer in ${dir}: using the built-in embedder`,
    );
    return BUILTIN_SPACE;
  }
  return { id, dimension: dimension!, model: { dir } };
}

/**
 * At start, before the engine and the index are built: finishes a switch a stop interrupted
 * after its swap (recording its space), discards one interrupted before, then answers the
 * space to start in.
 */
export function loadActiveSpace(deps: {
  dataDir: string;
  indexDir: string;
  snippets: SnippetRepository;
  log: Logger;
}): EmbeddingSpace {
  // Another live process (the server, for a read-only CLI command) owns the directory: its
  // switch files are its own business, in progress rather than interrupted.
  if (dataDirHolder(deps.dataDir) === null) {
    const finished = recoverSpaceSwitch({
      dir: deps.indexDir,
      snippets: deps.snippets,
      log: deps.log,
    });
    if (finished) writeActiveSpace(deps.dataDir, finished);
  }
  return readActiveSpace(deps.dataDir, deps.log);
}

/**
 * Which embedding model the server embeds with, and the switch to another: a switch_embedder
 * job that re-embeds everything beside the live index and swaps at its end (switch-embedder.job.ts).
 */
export class EmbeddingSwitchService {
  constructor(
    private readonly deps: {
      engine: { readonly space: EmbeddingSpace };
      index: SpaceSwitchState;
      jobs: JobService;
      jobRows: JobRepository;
      log: Logger;
    },
  ) {}

  current(): EmbeddingSpace {
    return this.deps.engine.space;
  }

  /**
   * Queues the switch to `target`: 409 when it is already the active space or a switch is
   * queued or running, 400 when the target cannot be embedded with.
   */
  /** Switch jobs queued or running, and the space each switches to. */
  pending(): { job_id: number; to: string }[] {
    return this.deps.jobRows
      .listByStatusAndType(['pending', 'processing'], ['switch_embedder'])
      .map((job) => ({ job_id: job.id, to: switchTargetOf(job.input) }));
  }

  switchTo(target: SwitchTarget): { job_id: number } {
    if (
      target.dir === null &&
      (target.id !== BUILTIN_EMBEDDER_ID || target.dimension !== BUILTIN_DIMENSION)
    )
      throw new BadRequest(
        `${target.id} names no model directory and is not the built-in embedder`,
      );
    if (target.dir !== null) {
      if (
        !path.isAbsolute(target.dir) ||
        !fs.statSync(target.dir, { throwIfNoEntry: false })?.isDirectory()
      )
        throw new BadRequest(`The model directory of ${target.id} was not found`);
    }
    if (!Number.isSafeInteger(target.dimension) || target.dimension < 1)
      throw new BadRequest(`${target.id} has no valid dimension`);
    const running = this.deps.jobRows.listByStatusAndType(
      ['pending', 'processing'],
      ['switch_embedder'],
    );
    const building = this.deps.index.switchingTo;
    if (running.length || building) {
      const what = building ? `to ${building.id}` : `job ${running[0]!.id}`;
      throw new Conflict(
        `A switch of the embedding model is already running (${what}): wait for it or cancel it`,
      );
    }
    const current = this.current();
    if (target.id === current.id) throw new Conflict(`${target.id} is already the active embedder`);
    const job = this.deps.jobs.create({
      type: 'switch_embedder',
      priority: 'high',
      input: { space: { id: target.id, dimension: target.dimension, dir: target.dir } },
      metadata: { action: 'switch_embedder', from: current.id, to: target.id },
    });
    this.deps.log.info(
      { component: 'models' },
      `Switching the embedder from ${current.id} to ${target.id} as job ${job.id}`,
    );
    return { job_id: job.id };
  }
}

/** The space id a switch job's input names ('' when unreadable). */
function switchTargetOf(input: string): string {
  try {
    const parsed = JSON.parse(input) as { space?: { id?: unknown } };
    return typeof parsed.space?.id === 'string' ? parsed.space.id : '';
  } catch {
    return '';
  }
}
