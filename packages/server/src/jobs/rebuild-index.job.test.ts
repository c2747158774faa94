import { beforeEach, describe, expect, it } from 'vitest';
import { FakeJobContext, FakeRecord, fakeRuntime, FakeWork } from './__fixtures__/fakes.js';
import { rebuildIndexJob } from './rebuild-index.job.js';
import { runHere } from './run-here.js';

let record: FakeRecord;
let ctx: FakeJobContext;

beforeEach(() => {
  record = new FakeRecord();
  ctx = new FakeJobContext();
});

const run = (input: unknown) =>
  runHere(
    rebuildIndexJob,
    rebuildIndexJob.input.parse(input),
    ctx,
    fakeRuntime(new FakeWork(), record),
  );

describe('rebuild_index run here', () => {
  it('re-embeds by default, reports progress and keeps the counts as its result', async () => {
    expect(await run({})).toEqual({ status: 'completed', segments_created: 0 });
    expect(record.rebuilds).toEqual([{ reembed: true }]);
    expect(ctx.stages).toEqual([
      'Rebuilding the index',
      'Re-indexed 1 of 2 snippets',
      'Re-indexed 2 of 2 snippets',
    ]);
    expect(ctx.result).toEqual({ total: 2, indexed: 2, reembedded: 2 });
    expect(record.optimized).toBe(0);
  });

  it('records an optimisation only when asked for one', async () => {
    await run({ reembed: false, optimize: true });
    expect(record.rebuilds).toEqual([{ reembed: false }]);
    expect(record.optimized).toBe(1);
  });

  it("answers 'interrupted' when its worker stops, without recording the optimisation", async () => {
    record.duringRebuild = () => (ctx.stopping = true);
    expect(await run({ optimize: true })).toEqual({ status: 'interrupted' });
    expect(record.optimized).toBe(0);
    expect(ctx.result).toBeNull();
  });

  it('ends as completed when cancelled: a cancel is final', async () => {
    record.duringRebuild = () => ctx.cancel();
    expect(await run({})).toEqual({ status: 'completed', segments_created: 0 });
  });
});
