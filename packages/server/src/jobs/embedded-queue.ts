import type { WorkersStatus } from '@adam/contracts';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';
import type { JobOutcome, JobRuntime } from './define-job.js';
import { createJobContext, finishJob, parseJson } from '../queue/job-context.js';
import { jobAbortController } from './job-signal.js';
import type { QueueDriver } from '../queue/queue-driver.js';
import { jobDefinition } from './registry.js';
import { runHere } from './run-here.js';

const HEARTBEAT_MS = 5_000;
const IDLE_POLL_MS = 1_000;
/**
 * Job types run in a lane of their own, one job at a time, beside the ADAM_WORKERS slots: a
 * model download may take an hour on a slow hub, and ingestion must not wait behind it.
 */
const OWN_LANE_TYPES: readonly string[] = ['install_model'];

interface Slot {
  id: string;
  status: 'idle' | 'busy' | 'stopping';
  current: number | null;
  startedAt: string;
  processed: number;
  failed: number;
  stopping: boolean;
  wake: (() => void) | null;
  loop: Promise<void>;
  /** The job types it claims (all when unset) and those it leaves to the own lane. */
  types: readonly string[] | undefined;
  except: readonly string[];
  lane: boolean;
  /** The run of the job it holds now, settled when that run ends (a restore waits for it). */
  job: Promise<unknown>;
  /** Aborted on a cancel of its job or a stop: the engine drops the job's tasks at once. */
  abort: AbortController | null;
}

/**
 * The default queue: jobs wait in SQLite and each worker slot claims the next one (priority,
 * then age). The CPU work inside a job runs on the engine's worker threads; a slot is the unit
 * of job concurrency (ADAM_WORKERS). Stopping a slot puts its job back in the queue at its next
 * step; at start, jobs a crash left processing are queued again and resume after their
 * finished URLs.
 */
export class EmbeddedQueue implements QueueDriver {
  readonly mode = 'embedded' as const;
  private readonly slots = new Map<string, Slot>();
  private seq = 0;
  private closed = false;
  /** A restore runs: workers claim nothing. */
  private paused = false;
  /** Claims a slot skipped because the queue was paused (a restore's check waits on it). */
  private skippedWhilePaused = 0;

  constructor(
    private readonly deps: {
      jobs: JobRepository;
      runtime: JobRuntime;
      /** Job types these workers take; all when unset (the Redis mode keeps server-only ones here). */
      types?: readonly string[];
      bus: EventBus;
      log: Logger;
    },
  ) {}

  /** Jobs left processing by a crash go back to pending. */
  recover(): number[] {
    const ids = this.deps.jobs.requeueProcessing(undefined, this.deps.types);
    if (ids.length) {
      this.deps.log.warn(
        { component: 'queue' },
        `Requeued ${ids.length} job(s) left processing: ${ids.join(', ')}`,
      );
    }
    return ids;
  }

  start(count: number): void {
    const { types } = this.deps;
    const own = OWN_LANE_TYPES.filter((t) => !types || types.includes(t));
    const hasLane = [...this.slots.values()].some((s) => s.lane);
    const wanted: Pick<Slot, 'id' | 'types' | 'except' | 'lane'>[] = [];
    for (let i = 0; i < count; i++)
      wanted.push({ id: `embedded-${++this.seq}`, types, except: own, lane: false });
    if (own.length && !hasLane)
      wanted.push({ id: 'embedded-install', types: own, except: [], lane: true });
    for (const { id, types, except, lane } of this.closed ? [] : wanted) {
      const slot: Slot = {
        id,
        status: 'idle',
        current: null,
        startedAt: new Date().toISOString(),
        processed: 0,
        failed: 0,
        stopping: false,
        wake: null,
        loop: Promise.resolve(),
        job: Promise.resolve(),
        abort: null,
        types,
        except,
        lane,
      };
      this.slots.set(id, slot);
      slot.loop = this.run(slot);
    }
    this.deps.log.info({ component: 'queue' }, `${this.running} worker(s) running`);
    this.deps.bus.emit('workers.changed', { running: this.running });
  }

  /** Stops every worker; their jobs go back to the queue at their next step. */
  async stop(): Promise<void> {
    const slots = [...this.slots.values()];
    for (const s of slots) {
      s.stopping = true;
      s.status = 'stopping';
      s.wake?.();
      // A thread stuck on a hostile page must not hold the stop up.
      s.abort?.abort();
    }
    await Promise.all(slots.map((s) => s.loop));
    for (const s of slots) this.slots.delete(s.id);
    this.deps.log.info({ component: 'queue' }, `Workers stopped (${slots.length})`);
    this.deps.bus.emit('workers.changed', { running: this.slots.size });
  }

  /** No worker claims a job from now on; resolves once the jobs they hold have ended. */
  async pause(): Promise<void> {
    this.paused = true;
    await Promise.all([...this.slots.values()].map((s) => s.job.catch(() => undefined)));
  }

  /** How many times a worker looked for a job while paused and took none. */
  get pausedPolls(): number {
    return this.skippedWhilePaused;
  }

  /** Claims read the rows afresh: a restore's new rows need nothing more. */
  async resume(): Promise<void> {
    this.paused = false;
    this.notify();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.stop();
  }

  submit(): void {
    this.notify();
  }

  /**
   * Workers notice a cancelled job themselves at their next step; the job's tasks on the
   * engine's threads are dropped now, so a stuck one frees its thread at once.
   */
  cancel(jobId: number): void {
    for (const s of this.slots.values()) if (s.current === jobId) s.abort?.abort();
  }

  /** A job was queued: wake idle workers now rather than at their next poll. */
  notify(): void {
    for (const s of this.slots.values()) s.wake?.();
  }

  /** The ADAM_WORKERS slots; the own lane is not one of them. */
  get running(): number {
    return [...this.slots.values()].filter((s) => !s.lane).length;
  }

  status(): Pick<WorkersStatus, 'workers' | 'running'> {
    return {
      running: this.running,
      workers: [...this.slots.values()]
        .filter((s) => !s.lane)
        .map((s) => ({
          id: s.id,
          status: s.status,
          current_job: s.current,
          started_at: s.startedAt,
          processed: s.processed,
          failed: s.failed,
        })),
    };
  }

  private async run(slot: Slot): Promise<void> {
    while (!slot.stopping) {
      if (this.paused) this.skippedWhilePaused++;
      const row = this.paused
        ? undefined
        : this.deps.jobs.claimNext(slot.id, new Date().toISOString(), slot.types, slot.except);
      if (!row) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, IDLE_POLL_MS);
          slot.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        slot.wake = null;
        continue;
      }
      slot.status = 'busy';
      slot.current = row.id;
      try {
        const run = this.execute(row, slot);
        slot.job = run;
        const outcome = await run;
        if (outcome === 'failed') slot.failed++;
        else if (outcome === 'completed') slot.processed++;
      } catch (e) {
        this.deps.log.error(
          { component: 'queue', err: e },
          `Worker ${slot.id} crashed on job ${row.id}`,
        );
      }
      slot.current = null;
      if (!slot.stopping) slot.status = 'idle';
    }
  }

  private async execute(row: JobRow, slot: Slot): Promise<'completed' | 'failed' | 'other'> {
    const { jobs, bus, log } = this.deps;
    const def = jobDefinition(row.type);
    const ctx = createJobContext({
      jobs,
      bus,
      row,
      workerId: slot.id,
      stopping: () => slot.stopping,
    });
    const heartbeat = setInterval(
      () => jobs.update(row.id, { heartbeat_at: new Date().toISOString() }, ['processing']),
      HEARTBEAT_MS,
    );
    heartbeat.unref();
    let outcome: JobOutcome;
    try {
      if (!def) throw new Error(`No handler for job type ${row.type}`);
      const input = def.input.parse(parseJson<unknown>(row.input, {}));
      ctx.progress({ stage: row.stage && row.stage !== 'requeued' ? row.stage : 'Started' });
      slot.abort = jobAbortController();
      outcome = await runHere(def, input, ctx, this.deps.runtime, slot.abort.signal);
    } catch (e) {
      outcome = { status: 'failed', error: (e as Error).message };
      ctx.errors.push({
        type: 'job',
        error: (e as Error).name,
        message: (e as Error).message,
        url: null,
        at: new Date().toISOString(),
      });
    } finally {
      clearInterval(heartbeat);
      slot.abort = null;
    }
    const end = finishJob(
      { jobs, bus, log },
      { id: row.id, type: row.type, errors: ctx.errors },
      outcome,
    );
    return end === 'completed' || end === 'failed' ? end : 'other';
  }
}
