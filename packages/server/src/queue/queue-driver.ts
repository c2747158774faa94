import type { WorkersStatus } from '@adam/contracts';

/** What the job service needs of a queue, embedded or on Redis. */
export interface QueueDriver {
  readonly mode: 'embedded' | 'redis';
  /** Puts back in the queue what a crash left behind. */
  recover(): Promise<unknown> | unknown;
  /** A job row was created or requeued as pending. */
  submit(jobId: number): void;
  /** A job row was just cancelled: stop its work wherever it runs. */
  cancel(jobId: number): void;
  /**
   * A restore begins: from this call on no job starts and no result is recorded (set before
   * the first await); resolves once no job runs here any more.
   */
  pause(): Promise<void>;
  /** Takes jobs again; `restored`: the job rows were replaced, so what waits is read from them again. */
  resume(restored: boolean): Promise<void>;
  start(count: number): Promise<void> | void;
  stop(): Promise<void>;
  status():
    | Promise<Pick<WorkersStatus, 'workers' | 'running'>>
    | Pick<WorkersStatus, 'workers' | 'running'>;
  close(): Promise<void>;
  /** Redis mode: whether the queue's Redis answers, since when not, and how it persists. */
  connection?(): QueueConnection;
}

export interface QueueConnection {
  connected: boolean;
  /** When the connection was lost (ISO), null while connected. */
  since: string | null;
  /** How Redis keeps the queue across its own restart ('unknown' when CONFIG is refused). */
  persistence: 'aof' | 'rdb' | 'aof+rdb' | 'none' | 'unknown';
}
