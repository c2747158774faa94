import { beforeEach, describe, expect, it } from 'vitest';
import { FakeJobContext, FakeRecord, fakeRuntime, FakeWork } from './__fixtures__/fakes.js';
import { optimizeIndexJob } from './optimize-index.job.js';
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

  it('runs a row queued as an optimisation before optimize_index existed as one', async () => {
    await run({ reembed: false, optimize: true });
    expect(record.rebuilds).toEqual([{ reembed: false }]);
    expect(record.optimized).toBe(1);
    expect(ctx.stages[0]).toBe('Optimizing the index');
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

describe('optimize_index run here', () => {
  const optimize = (input: unknown) =>
    runHere(
      optimizeIndexJob,
      optimizeIndexJob.input.parse(input),
      ctx,
      fakeRuntime(new FakeWork(), record),
    );

  it('rebuilds from the stored vectors, never re-embedding, and records the optimisation', async () => {
    // An input from elsewhere (a relaunched old row) cannot ask for re-embedding.
    expect(await optimize({ reembed: true })).toEqual({ status: 'completed', segments_created: 0 });
    expect(record.rebuilds).toEqual([{ reembed: false }]);
    expect(record.optimized).toBe(1);
    expect(ctx.stages).toEqual([
      'Optimizing the index',
      'Re-indexed 1 of 2 snippets',
      'Re-indexed 2 of 2 snippets',
    ]);
    expect(ctx.result).toEqual({ total: 2, indexed: 2, reembedded: 0 });
  });

  it("answers 'interrupted' when its worker stops, without recording the optimisation", async () => {
    record.duringRebuild = () => (ctx.stopping = true);
    expect(await optimize({})).toEqual({ status: 'interrupted' });
    expect(record.optimized).toBe(0);
  });
});
