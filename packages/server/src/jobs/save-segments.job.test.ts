import { beforeEach, describe, expect, it } from 'vitest';
import {
  analysisOf,
  FakeJobContext,
  FakeRecord,
  fakeRuntime,
  FakeWork,
} from './__fixtures__/fakes.js';
import { runHere } from './run-here.js';
import { saveSegmentsJob } from './save-segments.job.js';

let work: FakeWork;
let record: FakeRecord;

beforeEach(() => {
  work = new FakeWork();
  record = new FakeRecord();
});

const input = saveSegmentsJob.input.parse({
  title: 'Notes',
  text: 'Some pasted text.',
  source_url: 'https://notes.example/',
});

describe('save_segments run here', () => {
  it('analyses the text, stores it with its source, keeps the snippet ids and completes', async () => {
    const ctx = new FakeJobContext();
    const outcome = await runHere(saveSegmentsJob, input, ctx, fakeRuntime(work, record));
    expect(work.analyzed).toEqual(['Some pasted text.']);
    expect(record.stored).toEqual([
      { text: 'Some pasted text.', jobId: 7, url: 'https://notes.example/' },
    ]);
    expect(ctx.result).toMatchObject({ snippet_ids: [1], duplicates: 0 });
    expect(outcome).toEqual({ status: 'completed', segments_created: 1 });
    expect(record.flushes).toBe(1);
  });

  it('stores nothing when cancelled while the text was being analysed', async () => {
    const ctx = new FakeJobContext();
    work.deps.engine.analyze = async (text: string) => {
      ctx.cancel();
      return analysisOf(text);
    };
    const outcome = await runHere(saveSegmentsJob, input, ctx, fakeRuntime(work, record));
    expect(record.stored).toEqual([]);
    expect(ctx.result).toBeNull();
    expect(outcome).toEqual({ status: 'completed', segments_created: 0 });
  });

  it("answers 'interrupted' when its worker stops before the result is recorded", async () => {
    const ctx = new FakeJobContext();
    work.deps.engine.analyze = async (text: string) => {
      ctx.stopping = true;
      return analysisOf(text);
    };
    const outcome = await runHere(saveSegmentsJob, input, ctx, fakeRuntime(work, record));
    expect(outcome).toEqual({ status: 'interrupted' });
    expect(record.stored).toEqual([]);
  });

  it('round-trips its analysis through JSON with the vectors byte-identical', () => {
    const sent = analysisOf('x');
    sent.segments[0]!.vector = Float32Array.of(-0, NaN, 3.4e38);
    const back = saveSegmentsJob.decode(JSON.parse(JSON.stringify(saveSegmentsJob.encode(sent))));
    const v = back.segments[0]!.vector;
    expect(Buffer.from(v.buffer, v.byteOffset, v.byteLength)).toEqual(
      Buffer.from(sent.segments[0]!.vector.buffer),
    );
  });

  it('takes an http(s) source_url or none, and refuses javascript:, data: and other schemes', () => {
    const parse = (source_url: unknown) =>
      saveSegmentsJob.input.safeParse({ text: 't', source_url }).success;
    for (const ok of ['https://notes.example/a?b=1', ' http://notes.example ', null, undefined]) {
      expect(parse(ok), String(ok)).toBe(true);
    }
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript:alert(document.cookie)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'ftp://notes.example/',
      'notes.example/page',
      '',
    ]) {
      expect(parse(bad), bad).toBe(false);
    }
  });
});
