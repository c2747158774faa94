import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { beforeEach, describe, expect, it } from 'vitest';
import { hashEmbed } from '../pipeline/__fixtures__/hash-embed.js';
import { EN } from '../pipeline/__fixtures__/paragraphs.js';
import { analyzeText } from '../pipeline/index.js';
import { FakeJobContext, FakeRecord, fakeRuntime, FakeWork } from './__fixtures__/fakes.js';
import { eachLimited, processUrlsJob, type UrlWork } from './process-urls.job.js';
import { runHere } from './run-here.js';

const A = 'https://a.example/1';
const B = 'https://b.example/2';
const C = 'https://c.example/3';

let work: FakeWork;
let record: FakeRecord;

beforeEach(() => {
  work = new FakeWork();
  record = new FakeRecord();
});

const run = (ctx: FakeJobContext, settings = { max_concurrent_scrapes: 1 }) =>
  runHere(processUrlsJob, processUrlsJob.input.parse({}), ctx, fakeRuntime(work, record, settings));

describe('process_urls run here', () => {
  it('fetches, stores and marks done every URL, then flushes the index and completes', async () => {
    const ctx = new FakeJobContext({ urls: [A, B] });
    const outcome = await run(ctx);
    expect(outcome).toEqual({ status: 'completed', segments_created: 2 });
    expect(record.stored).toEqual([
      { text: `Text of ${A}`, jobId: 7, url: A },
      { text: `Text of ${B}`, jobId: 7, url: B },
    ]);
    expect(record.sources.map((s) => [s.url, s.status])).toEqual([
      [A, 'ok'],
      [B, 'ok'],
    ]);
    expect([...ctx.doneUrls]).toEqual([A, B]);
    expect(ctx.stats).toMatchObject({ urls_total: 2, urls_done: 2, segments_created: 2 });
    expect(record.flushes).toBe(1);
  });

  it('skips the URLs an earlier attempt finished', async () => {
    const ctx = new FakeJobContext({ urls: [A, B, C], done: [A, C] });
    const outcome = await run(ctx);
    expect(work.fetched).toEqual([B]);
    expect(record.stored.map((s) => s.url)).toEqual([B]);
    expect(ctx.stages[0]).toBe('Processing 1 of 3 URLs');
    expect(outcome.status).toBe('completed');
  });

  it('records a URL only once when a retried worker sends it twice', () => {
    const ctx = new FakeJobContext({ urls: [A] });
    const input = processUrlsJob.input.parse({});
    const result: UrlWork = {
      url: A,
      ok: true,
      title: 'A',
      analysis: { segments: [] } as never,
    };
    processUrlsJob.record(result, input, ctx, record.deps);
    processUrlsJob.record(result, input, ctx, record.deps);
    expect(record.stored).toHaveLength(1);
    expect(record.sources).toHaveLength(1);
  });

  it('keeps nothing of a result that arrives after the job was cancelled, and starts no other URL', async () => {
    const ctx = new FakeJobContext({ urls: [A, B, C] });
    work.hold = async (url) => {
      if (url === B) ctx.cancel();
    };
    const outcome = await run(ctx);
    expect(work.fetched).toEqual([A, B]);
    expect(record.stored.map((s) => s.url)).toEqual([A]);
    expect(record.sources.map((s) => s.url)).toEqual([A]);
    expect([...ctx.doneUrls]).toEqual([A]);
    // A cancel is final: the job ends with what it stored before.
    expect(outcome).toEqual({ status: 'completed', segments_created: 1 });
  });

  it("answers 'interrupted' when its worker stops, leaving the unrecorded URL to redo", async () => {
    const ctx = new FakeJobContext({ urls: [A, B, C] });
    work.hold = async (url) => {
      if (url === B) ctx.stopping = true;
    };
    const outcome = await run(ctx);
    expect(outcome).toEqual({ status: 'interrupted' });
    expect([...ctx.doneUrls]).toEqual([A]);
    expect(work.fetched).not.toContain(C);
  });

  it('fails when every URL failed, recording each error and failed source', async () => {
    work.failing.add(A).add(B);
    const ctx = new FakeJobContext({ urls: [A, B] });
    const outcome = await run(ctx);
    expect(outcome).toEqual({
      status: 'failed',
      error: 'None of the 2 URLs could be processed',
    });
    expect(ctx.errors).toEqual([
      expect.objectContaining({ type: 'fetch_http_status', error: 'http_status', url: A }),
      expect.objectContaining({ type: 'fetch_http_status', error: 'http_status', url: B }),
    ]);
    expect(record.sources.map((s) => [s.url, s.status])).toEqual([
      [A, 'failed'],
      [B, 'failed'],
    ]);
    expect(ctx.stats).toMatchObject({ urls_failed: 2 });
    expect(record.stored).toEqual([]);
  });

  it('completes when only some URLs failed', async () => {
    work.failing.add(B);
    const ctx = new FakeJobContext({ urls: [A, B] });
    expect(await run(ctx)).toEqual({ status: 'completed', segments_created: 1 });
    expect(ctx.stats).toMatchObject({ urls_done: 1, urls_failed: 1 });
  });

  it('never has more than max_concurrent_scrapes URLs in flight, and does use them all', async () => {
    const urls = Array.from({ length: 9 }, (_, i) => `https://s${i}.example/`);
    const ctx = new FakeJobContext({ urls });
    await run(ctx, { max_concurrent_scrapes: 3 });
    expect(work.maxInFlight).toBe(3);
    expect([...work.fetched].sort()).toEqual([...urls].sort());
    expect(ctx.doneUrls.size).toBe(9);
  });
});

describe('eachLimited', () => {
  const never = async () => false;

  it('runs every item once with at most `limit` at once', async () => {
    let running = 0;
    let most = 0;
    const seen: number[] = [];
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 2, never, async (n) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 1));
      seen.push(n);
      running--;
    });
    expect(most).toBe(2);
    expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('starts nothing once stop() says so', async () => {
    const seen: number[] = [];
    let stop = false;
    await eachLimited(
      [1, 2, 3, 4],
      1,
      async () => stop,
      async (n) => {
        seen.push(n);
        if (n === 2) stop = true;
      },
    );
    expect(seen).toEqual([1, 2]);
  });

  it('runs each item exactly once when many lanes await a slow stop() over few items', async () => {
    const items = Array.from({ length: 9 }, (_, i) => `item ${i}`);
    const seen: (string | undefined)[] = [];
    // stop() settles a macrotask later: after the first round every lane has passed the length
    // check with one item left between them, and waits.
    const slowStop = () => new Promise<boolean>((r) => setTimeout(() => r(false), 0));
    await eachLimited(items, 8, slowStop, async (item) => {
      seen.push(item);
      await Promise.resolve();
    });
    expect(seen).not.toContain(undefined);
    expect([...seen].sort()).toEqual([...items].sort());
  });

  it('returns at once for no items', async () => {
    let calls = 0;
    await eachLimited([], 4, never, async () => void calls++);
    expect(calls).toBe(0);
  });
});

describe('process_urls results on the wire', () => {
  it('round-trip through JSON with every vector byte-identical, from a view into a larger buffer too', async () => {
    const analysis = await analyzeText([EN.physics, EN.history].join('\n\n'), {
      language: 'en',
      settings: DEFAULT_PROCESSING_SETTINGS,
      embed: hashEmbed(),
    });
    expect(analysis.segments.length).toBeGreaterThan(1);
    // Values JSON numbers lose (-0, NaN, ±Infinity, a subnormal), in a view at an offset.
    const backing = new Float32Array(16);
    const view = backing.subarray(3, 9);
    view.set([-0, NaN, Infinity, -Infinity, 1e-45, 0.1]);
    analysis.segments[0]!.vector = view;

    const sent: UrlWork = { url: A, ok: true, title: 'Physics', analysis };
    const back = processUrlsJob.decode(JSON.parse(JSON.stringify(processUrlsJob.encode(sent))));

    const bytes = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    expect(back.ok).toBe(true);
    if (!back.ok) return;
    expect(back.analysis.segments).toHaveLength(analysis.segments.length);
    back.analysis.segments.forEach((s, i) => {
      expect(s.vector).toBeInstanceOf(Float32Array);
      expect(bytes(s.vector).equals(bytes(analysis.segments[i]!.vector))).toBe(true);
    });
    const withoutVectors = (a: typeof analysis) => ({
      ...a,
      segments: a.segments.map((s) => ({ ...s, vector: null })),
    });
    expect(withoutVectors(back.analysis)).toEqual(withoutVectors(analysis));
    expect({ ...back, analysis: null }).toEqual({ ...sent, analysis: null });
  });

  it('carry a failed URL unchanged', () => {
    const failed: UrlWork = {
      url: B,
      ok: false,
      error: { type: 'fetch_timeout', error: 'timeout', message: 'took too long' },
    };
    expect(
      processUrlsJob.decode(JSON.parse(JSON.stringify(processUrlsJob.encode(failed)))),
    ).toEqual(failed);
  });
});
