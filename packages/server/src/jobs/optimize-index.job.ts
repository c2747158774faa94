import { z } from 'zod';
import { defineJob } from './define-job.js';
import { rebuildIndex } from './rebuild-index.job.js';

const OptimizeIndexInput = z.object({});
export type OptimizeIndexInput = z.output<typeof OptimizeIndexInput>;

/**
 * Compacts the index: the graph rebuilt from the stored vectors (no re-embedding), which drops
 * the holes deletions left, then recorded as the index's last optimisation.
 */
export const optimizeIndexJob = defineJob<OptimizeIndexInput>({
  type: 'optimize_index',
  runsOn: 'server',
  input: OptimizeIndexInput,
  run: (_input, ctx, deps) =>
    rebuildIndex({ reembed: false, optimize: true, stage: 'Optimizing the index' }, ctx, deps),
});
