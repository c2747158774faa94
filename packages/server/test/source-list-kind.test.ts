import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SourceKind } from '@adam/contracts';
import { SourceRepository } from '../src/store/source.repository.js';
import { startServer, type TestServer } from './helpers.js';

/** Manage Sources' kind filter: GET /sources/list?kind=web|file|import. */

let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startServer();
  key = await s.login();
  // Recorded as the crawl, upload and import jobs record theirs.
  const sources = new SourceRepository(s.adam.db);
  const record = (url: string, kind: SourceKind) =>
    sources.upsertResult({
      url,
      kind,
      domain: new URL(url).hostname,
      title: null,
      language: 'en',
      segments: 1,
      job_id: 1,
      status: 'ok',
      error: null,
    });
  record('https://docs.test/a', 'web');
  record('https://docs.test/b', 'web');
  record('https://upload.test/report.pdf', 'file');
  record('https://import.test/notes', 'import');
  record('https://docs.test/imported', 'import');
});
afterAll(async () => {
  await s?.close();
});

const list = (query: string) => s.api(`/api/v1/sources/list?${query}`, { key });
const urlsOf = (body: { sources: { url: string; kind: string }[] }) =>
  body.sources.map((x) => `${x.kind} ${x.url}`).sort();

describe('sources list kind filter', () => {
  it('lists only the sources of the kind asked, with their total', async () => {
    const files = await list('kind=file');
    expect(files.status).toBe(200);
    expect(urlsOf(files.body)).toEqual(['file https://upload.test/report.pdf']);
    expect(files.body.total).toBe(1);

    const imports = await list('kind=import');
    expect(urlsOf(imports.body)).toEqual([
      'import https://docs.test/imported',
      'import https://import.test/notes',
    ]);
    expect(imports.body.total).toBe(2);

    // With the other filters: they all apply.
    const webDocs = await list('kind=web&domain=docs.test');
    expect(urlsOf(webDocs.body)).toEqual(['web https://docs.test/a', 'web https://docs.test/b']);
    expect((await list('kind=import&search=imported')).body.total).toBe(1);
  });

  it('lists every kind without a kind or with an empty one', async () => {
    expect((await list('')).body.total).toBe(5);
    expect((await list('kind=')).body.total).toBe(5);
  });

  it('answers 422 naming the kinds for an unknown kind', async () => {
    const r = await list('kind=crawl');
    expect(r.status).toBe(422);
    expect(r.body.detail).toContain('must be web, file or import');
    expect((await list('kind=WEB')).status).toBe(422);
  });
});
