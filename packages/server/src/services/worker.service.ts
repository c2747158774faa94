import { MAX_WORKERS, type WorkersStatus } from '@adam/contracts';
import type { QueueDriver } from '../queue/queue-driver.js';
import { Unprocessable } from '../lib/errors.js';
import type { JobRepository } from '../store/job.repository.js';

export class WorkerService {
  constructor(private readonly deps: { queue: QueueDriver; jobs: JobRepository }) {}

  async status(): Promise<WorkersStatus> {
    const c = this.deps.jobs.countByStatus();
    return {
      mode: this.deps.queue.mode,
      ...(await this.deps.queue.status()),
      queue: { pending: c.pending ?? 0, processing: c.processing ?? 0 },
    };
  }

  async start(count: number): Promise<WorkersStatus> {
    const { running } = await this.deps.queue.status();
    const room = MAX_WORKERS - running;
    if (count > room) {
      throw new Unprocessable(`At most ${MAX_WORKERS} workers can run; ${running} already do`, [
        { field: 'count', message: `must be at most ${room}` },
      ]);
    }
    await this.deps.queue.start(count);
    return this.status();
  }

  async stop(): Promise<WorkersStatus> {
    await this.deps.queue.stop();
    return this.status();
  }
}
