/**
 * POST /sources/upload through HTTP with a real server, SQLite and index: PDF, DOCX, Markdown,
 * HTML and text files become sources of kind 'file' whose snippets carry their page and
 * heading; a file past the limit answers 413 and keeps nothing; a wrong type 415; a PDF that
 * keeps its parser busy past the task budget fails alone and the job goes on; the route is
 * behind the key and the cross-site guard like any other change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeDocx,
  makeHeavyPdf,
  makeImageOnlyPdf,
  makePdf,
} from '../src/documents/__fixtures__/make-documents.js';
import { ARTICLES } from './corpus.js';
import { startServer, type TestServer } from './helpers.js';
import { until } from './until.js';

let s: TestServer;
let key: string;
const MAX_FILE = 256 * 1024;
const LIGHTHOUSES = `<!doctype html><html><head><title>Lighthouses</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Lighthouses</h1><h2>Lights and lenses</h2>
<p>A lighthouse is a tower with a bright lamp and a lens that warns ships away from rocks, reefs and sandbanks at night. Each light flashes in its own rhythm, so that a navigator who counts the flashes knows which lighthouse it is.</p>
<p>The Fresnel lens, made of concentric rings of glass prisms, let a small flame be seen more than twenty nautical miles out to sea. Most lighthouses are now automatic, and their keepers' houses have become museums and holiday homes.</p>
</article></body></html>`;
/** A text no other upload of this file stores (snippets dedupe by text across sources). */
const BEES = `Honeybees live in colonies of tens of thousands of workers, a few hundred drones and a single queen. Workers forage for nectar and pollen over several kilometres and tell their sisters where flowers are through a waggle dance whose angle and length encode direction and distance.

A colony keeps its brood nest near thirty-five degrees by clustering in winter and fanning its wings in summer. Beekeepers inspect frames for the queen's eggs, for disease and for stores of honey, and they split strong colonies in spring to keep them from swarming away.`;

beforeAll(async () => {
  s = await startServer({ build: { uploadLimits: { max_file_bytes: MAX_FILE, max_files: 6 } } });
  key = await s.login();
}, 120_000);
afterAll(async () => {
  await s?.close();
});

type FilePart = { name: string; data: Buffer | string };

function form(files: FilePart[], fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const file of files) f.append('files', new Blob([file.data]), file.name);
  return f;
}

async function upload(
  body: FormData | string,
  headers: Record<string, string> = { 'x-api-key': key },
) {
  const res = await fetch(`${s.url}/api/v1/sources/upload`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function finished(jobId: number) {
  return until(
    async () => {
      const r = await s.api(`/api/v1/sources/jobs/${jobId}`, { key });
      return ['completed', 'failed', 'cancelled'].includes(r.body.status) ? r.body : null;
    },
    { timeout: 90_000, what: `job ${jobId} to finish` },
  );
}

const uploadFolders = () => {
  const root = path.join(s.dataDir, 'uploads');
  return fs.existsSync(root) ? fs.readdirSync(root) : [];
};

interface SnippetRow {
  source_url: string;
  source_title: string;
  text: string;
  metadata: string;
}
const snippetsOf = (prefix: string) =>
  (
    s.adam.db
      .prepare(
        'SELECT source_url, source_title, text, metadata FROM snippets WHERE source_url LIKE ? ORDER BY id',
      )
      .all(`${prefix}%`) as SnippetRow[]
  ).map((r) => ({
    ...r,
    meta: JSON.parse(r.metadata) as {
      page: number | null;
      heading: string | null;
      file_name: string;
    },
  }));

describe('uploading documents', () => {
  it('turns PDF, DOCX, Markdown, HTML and text into file sources whose snippets keep page and heading', async () => {
    const pdf = await makePdf(
      [
        { heading: 'Photosynthesis', paragraphs: ARTICLES.photosynthesis.split('\n\n') },
        { heading: 'Volcanoes', paragraphs: ARTICLES.volcanoes.split('\n\n') },
      ],
      { title: 'Science Notes' },
    );
    const docx = await makeDocx([
      { heading: 1, text: 'Relational databases' },
      ...ARTICLES.databases.split('\n\n').map((text) => ({ text })),
    ]);
    const md = `# Stoicism\n\n## The school\n\n${ARTICLES.stoicism}`;
    const r = await upload(
      form([
        { name: 'science.pdf', data: pdf },
        { name: '../../etc/databases.docx', data: docx },
        { name: 'stoicism.md', data: md },
        { name: 'volcano.txt', data: ARTICLES.volcanoes },
        { name: 'lighthouses.html', data: LIGHTHOUSES },
      ]),
    );
    expect(r.status).toBe(200);
    expect(r.body.files.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['science.pdf', 'pdf'],
      ['databases.docx', 'docx'],
      ['stoicism.md', 'markdown'],
      ['volcano.txt', 'text'],
      ['lighthouses.html', 'html'],
    ]);
    const job = await finished(r.body.job_id);
    expect(job.status).toBe('completed');
    expect(job.errors).toEqual([]);
    expect(job.stats.urls_done).toBe(5);

    const pdfSnippets = snippetsOf(r.body.files[0].source_url);
    expect(pdfSnippets.length).toBeGreaterThan(1);
    expect(pdfSnippets[0]!.source_title).toBe('Science Notes');
    expect(pdfSnippets[0]!.meta).toMatchObject({
      file_name: 'science.pdf',
      page: 1,
      heading: 'Photosynthesis',
    });
    // Each snippet is placed where it begins: one that starts on page 2 is under its heading.
    const places = new Set(pdfSnippets.map((x) => `${x.meta.page} ${x.meta.heading}`));
    expect([...places]).toEqual(['1 Photosynthesis', '2 Volcanoes']);
    const onTwo = pdfSnippets.find((x) => x.meta.page === 2)!;
    expect(ARTICLES.volcanoes.replace(/\s+/g, ' ')).toContain(onTwo.text.slice(0, 60));

    const docxSnippets = snippetsOf(r.body.files[1].source_url);
    expect(docxSnippets.length).toBeGreaterThan(0);
    expect(docxSnippets[0]!.meta).toMatchObject({
      file_name: 'databases.docx',
      page: null,
      heading: 'Relational databases',
    });
    expect(snippetsOf(r.body.files[2].source_url)[0]!.meta).toMatchObject({
      heading: 'The school',
    });
    const html = snippetsOf(r.body.files[4].source_url);
    expect(html[0]!.source_title).toBe('Lighthouses');
    expect(html[0]!.meta).toMatchObject({ heading: 'Lights and lenses', page: null });
    expect(html.map((x) => x.text).join(' ')).not.toContain('About');

    const sources = s.adam.db
      .prepare("SELECT url, kind, title, last_status FROM sources WHERE kind = 'file' ORDER BY url")
      .all() as { url: string; kind: string; last_status: string }[];
    expect(sources.map((x) => x.url).sort()).toEqual(
      r.body.files.map((f: { source_url: string }) => f.source_url).sort(),
    );
    expect(sources.every((x) => x.last_status === 'ok')).toBe(true);
    expect(r.body.files[0].source_url).toMatch(/^file:[0-9a-f]{16}\/science\.pdf$/);
    await until(() => uploadFolders().length === 0, { what: 'the upload folder to be removed' });
  });

  it('answers 413 for a file past the limit and keeps nothing', async () => {
    const jobsBefore = s.adam.db.prepare('SELECT COUNT(*) FROM jobs').pluck().get();
    const r = await upload(
      form([
        { name: 'small.txt', data: ARTICLES.stoicism },
        { name: 'big.txt', data: 'a'.repeat(MAX_FILE + 1) },
      ]),
    );
    expect(r.status).toBe(413);
    expect(r.body.detail).toBe('big.txt is larger than 0.3 MiB, the limit for one file');
    expect(s.adam.db.prepare('SELECT COUNT(*) FROM jobs').pluck().get()).toBe(jobsBefore);
    expect(uploadFolders()).toEqual([]);
  });

  it('closes the connection of a refused upload rather than wait under a body nobody reads', async () => {
    const r = await upload(
      form([{ name: 'huge.txt', data: Buffer.alloc(16 * 1024 * 1024, 0x61) }]),
    );
    expect(r.status).toBe(413);
    // Without the close, the rest of the 16 MiB would hold the socket open and the server's
    // close (afterAll) would wait on it.
    const again = await s.api('/api/v1/sources/jobs', { key });
    expect(again.status).toBe(200);
  });

  it('answers 413 past the number of files, 415 for a type it does not take, 422 without files', async () => {
    const six = Array.from({ length: 7 }, (_, i) => ({ name: `n${i}.txt`, data: 'hello' }));
    expect((await upload(form(six))).status).toBe(413);
    const exe = await upload(form([{ name: 'tool.exe', data: 'MZ\0\0' }]));
    expect(exe.status).toBe(415);
    expect(exe.body.detail).toContain("'tool.exe' is not a supported document");
    const fake = await upload(form([{ name: 'fake.pdf', data: 'not a pdf at all' }]));
    expect(fake.status).toBe(415);
    expect(fake.body.detail).toContain("'fake.pdf' does not contain a PDF");
    const none = await upload(form([], { language: 'en' }));
    expect(none.status).toBe(422);
    const json = await upload(JSON.stringify({ files: [] }), {
      'x-api-key': key,
      'content-type': 'application/json',
    });
    expect(json.status).toBe(415);
    const badOption = await upload(
      form([{ name: 'a.txt', data: ARTICLES.stoicism }], { priority: 'urgent' }),
    );
    expect(badOption.status).toBe(422);
    expect(uploadFolders()).toEqual([]);
  });

  it('stops a PDF that keeps its parser busy past the budget, says a scan has no text, and goes on', async () => {
    const set = await s.api('/api/v1/admin/settings/processing', {
      method: 'PUT',
      key,
      body: { settings: { task_timeout_seconds: 2 } },
    });
    expect(set.status).toBe(200);
    try {
      const r = await upload(
        form([
          { name: 'hostile.pdf', data: makeHeavyPdf(400_000) },
          { name: 'scan.pdf', data: await makeImageOnlyPdf(1) },
          { name: 'after.txt', data: BEES },
        ]),
      );
      expect(r.status).toBe(200);
      const job = await finished(r.body.job_id);
      expect(job.status).toBe('completed');
      expect(job.errors.map((e: { type: string; url: string }) => [e.type, e.url])).toEqual([
        ['task_timeout', r.body.files[0].source_url],
        ['document_no_text_layer', r.body.files[1].source_url],
      ]);
      expect(job.errors[0].message).toMatch(/^hostile\.pdf: Extraction took longer than 2 s/);
      expect(job.errors[1].message).toContain('scan.pdf has no text layer');
      expect(snippetsOf(r.body.files[2].source_url).length).toBeGreaterThan(0);
      const failed = s.adam.db
        .prepare("SELECT last_status FROM sources WHERE url = ? AND kind = 'file'")
        .pluck()
        .get(r.body.files[0].source_url);
      expect(failed).toBe('failed');
    } finally {
      await s.api('/api/v1/admin/settings/processing', {
        method: 'PUT',
        key,
        body: { settings: { task_timeout_seconds: 60 } },
      });
    }
  });

  it('stores the same content once: a second upload of it is skipped', async () => {
    const text = ARTICLES.databases;
    const first = await upload(form([{ name: 'db.txt', data: text }]));
    expect((await finished(first.body.job_id)).status).toBe('completed');
    const count = snippetsOf(first.body.files[0].source_url).length;
    const again = await upload(form([{ name: 'db.txt', data: text }]));
    expect(again.body.files[0].source_url).toBe(first.body.files[0].source_url);
    const job = await finished(again.body.job_id);
    expect(job.stats.last_warning).toContain('the same content was stored before');
    expect(snippetsOf(first.body.files[0].source_url).length).toBe(count);
  });

  it('refuses an upload without a key, and a cookie-authenticated one without the console header', async () => {
    const anon = await upload(form([{ name: 'a.txt', data: 'x' }]), {});
    expect(anon.status).toBe(401);
    const foreign = await upload(form([{ name: 'a.txt', data: 'x' }]), {
      cookie: `adam_api_key=${key}`,
      origin: 'http://evil.example',
    });
    expect(foreign.status).toBe(403);
    const cookieOnly = await upload(form([{ name: 'a.txt', data: 'x' }]), {
      cookie: `adam_api_key=${key}`,
    });
    expect(cookieOnly.status).toBe(403);
    expect(uploadFolders()).toEqual([]);
  });
});
