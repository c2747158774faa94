import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Snippet } from '@adam/contracts';
import type { SnippetExport } from './snippet.service.js';
import { exportFile } from './export-file.js';
import { wholeFile } from '../../test/export-reference.js';

const snippet = (id: number, over: Partial<Snippet> = {}): Snippet => ({
  id,
  text: `Snippet ${id}: a "quoted" word, a comma\nand a new line`,
  theme: 'science',
  quality_score: 0.5 + id / 1000,
  language: 'en',
  word_count: 12,
  size_bytes: 60,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
  indexed_at: id % 2 ? null : '2026-11-26T10:00:01.000Z',
  faiss_id: id,
  index_pending: id % 2 === 1,
  source_info: { title: id % 3 ? null : `=cmd|${id}`, url: id % 3 ? null : 'https://a.example/x' },
  job_id: id % 4 ? 7 : null,
  metadata: { emotions: { joy: 0.2 }, nested: { list: [1, 2, { deep: 'x' }] } },
  ...over,
});

/** A fake export handing out `pages`, counting what was asked of it. */
function fakeExport(pages: Snippet[][]) {
  const state = { reads: 0, closed: false };
  const source: SnippetExport = {
    nextPage: () => {
      if (state.closed) return null;
      const page = pages[state.reads++];
      if (!page) state.closed = true;
      return page ?? null;
    },
    close: () => void (state.closed = true),
  };
  return { source, state };
}

async function readAll(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

const NOW = new Date('2026-11-26T12:34:56.789Z');

describe('exportFile', () => {
  it.each(['json', 'jsonl', 'csv'] as const)(
    'writes the same %s bytes as the whole file made at once, page by page',
    async (format) => {
      const rows = Array.from({ length: 7 }, (_, i) => snippet(i + 1));
      // Pages of uneven sizes, one of them empty (its rows deleted during the export).
      const { source } = fakeExport([rows.slice(0, 3), [], rows.slice(3, 4), rows.slice(4)]);
      const file = exportFile(source, format, NOW);
      expect(await readAll(file.stream)).toBe(wholeFile(rows, format, NOW.toISOString()));
      expect(file.filename).toBe(`snippets-2026-11-26-12-34-56.${format}`);
    },
  );

  it.each(['json', 'jsonl', 'csv'] as const)('writes an empty %s export as before', async (f) => {
    const file = exportFile(fakeExport([]).source, f, NOW);
    expect(await readAll(file.stream)).toBe(wholeFile([], f, NOW.toISOString()));
  });

  it('reads a page only when the reader has taken the previous ones', async () => {
    const pages = Array.from({ length: 200 }, (_, p) =>
      Array.from({ length: 50 }, (_, i) => snippet(p * 50 + i + 1)),
    );
    const { source, state } = fakeExport(pages);
    const { stream } = exportFile(source, 'jsonl', NOW);
    const first = await new Promise<unknown>((resolve) => stream.once('data', resolve));
    stream.pause();
    expect(String(first)).toMatch(/^\{"id":1,/);
    // Paused reader: the stream fills its buffer (one high-water mark) and stops reading.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.reads).toBeLessThan(10);
    expect(state.closed).toBe(false);
  });

  it('stops reading and frees the export when the stream is destroyed', async () => {
    const pages = Array.from({ length: 100 }, (_, p) => [snippet(p + 1)]);
    const { source, state } = fakeExport(pages);
    const { stream } = exportFile(source, 'csv', NOW);
    await new Promise((resolve) => stream.once('data', resolve));
    stream.destroy();
    await once(stream, 'close');
    const reads = state.reads;
    expect(state.closed).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.reads).toBe(reads);
  });

  it('ends the stream with the error when reading a page fails', async () => {
    const source: SnippetExport = {
      nextPage: () => {
        throw new Error('disk I/O error');
      },
      close: () => undefined,
    };
    const { stream } = exportFile(source, 'json', NOW);
    await expect(readAll(stream)).rejects.toThrow('disk I/O error');
  });
});
