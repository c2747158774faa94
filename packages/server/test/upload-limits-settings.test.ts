/**
 * The `uploads` settings section through HTTP with a real server: POST /sources/upload reads it
 * at each request, so a saved limit applies to the next upload without a restart; a file past
 * it answers 413 while the rest of the body is still unsent (streamed, never buffered) and
 * nothing stays on disk; out-of-bounds values answer 422 naming the field and save nothing.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UPLOAD_SETTINGS } from '@adam/contracts';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
const MIB = 1024 * 1024;

beforeAll(async () => {
  // No uploadLimits pinned: the settings alone decide.
  s = await startServer();
  key = await s.login();
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const putUploads = (settings: Record<string, unknown>) =>
  s.api('/api/v1/admin/settings/uploads', { method: 'PUT', key, body: { settings } });

function form(files: { name: string; data: Buffer | string }[]): FormData {
  const f = new FormData();
  for (const file of files) f.append('files', new Blob([file.data]), file.name);
  return f;
}

async function upload(body: FormData) {
  const res = await fetch(`${s.url}/api/v1/sources/upload`, {
    method: 'POST',
    headers: { 'x-api-key': key },
    body,
  });
  return { status: res.status, body: (await res.json()) as { detail: string } };
}

const uploadFolders = () => {
  const root = path.join(s.dataDir, 'uploads');
  return fs.existsSync(root) ? fs.readdirSync(root) : [];
};

/**
 * Sends the multipart head and the first `sent` bytes of a `declared`-byte file, then waits for
 * the answer without sending the rest: only a server that streams can answer now.
 */
function partialUpload(
  name: string,
  sent: number,
  declared: number,
): Promise<{ status: number; body: string }> {
  const boundary = 'adam-partial-upload';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${name}"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const url = new URL(`${s.url}/api/v1/sources/upload`);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + declared + tail.length),
      },
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
        req.destroy();
      });
    });
    // The server may close the socket under the unsent rest: that is its answer, not a failure.
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    req.write(head);
    req.write(Buffer.alloc(sent, 0x61));
  });
}

describe('the uploads settings', () => {
  it('starts with the UPLOAD_LIMITS defaults', async () => {
    const r = await s.api('/api/v1/admin/settings', { key });
    expect(r.status).toBe(200);
    expect(r.body.uploads).toEqual({ max_file_mib: 50, max_files: 100, max_total_mib: 512 });
    expect(r.body.uploads).toEqual(DEFAULT_UPLOAD_SETTINGS);
  });

  it('applies a lowered file size to the next upload: 413, no job, nothing on disk', async () => {
    // Over 1 MiB, under the default 50: refused for its type (415), so past the size check.
    const big = Buffer.alloc(MIB + 4096, 0x61);
    const before = await upload(form([{ name: 'big.bin', data: big }]));
    expect(before.status).toBe(415);

    expect((await putUploads({ max_file_mib: 1 })).status).toBe(200);
    const jobsBefore = s.adam.db.prepare('SELECT COUNT(*) FROM jobs').pluck().get();
    const after = await upload(form([{ name: 'big.txt', data: big }]));
    expect(after.status).toBe(413);
    expect(after.body.detail).toBe('big.txt is larger than 1 MiB, the limit for one file');
    expect(s.adam.db.prepare('SELECT COUNT(*) FROM jobs').pluck().get()).toBe(jobsBefore);
    expect(uploadFolders()).toEqual([]);

    // Raised again, the same bytes pass the size check at once.
    expect((await putUploads({ max_file_mib: 2 })).status).toBe(200);
    expect((await upload(form([{ name: 'big.bin', data: big }]))).status).toBe(415);
    expect((await putUploads(DEFAULT_UPLOAD_SETTINGS)).status).toBe(200);
  });

  it('answers 413 at the lowered limit while the rest of the body is still unsent', async () => {
    expect((await putUploads({ max_file_mib: 1 })).status).toBe(200);
    try {
      // 2 MiB sent of a declared 64 MiB: a server that buffered the body would wait for the rest.
      const r = await partialUpload('huge.txt', 2 * MIB, 64 * MIB);
      expect(r.status).toBe(413);
      expect(JSON.parse(r.body).detail).toBe(
        'huge.txt is larger than 1 MiB, the limit for one file',
      );
      expect(uploadFolders()).toEqual([]);
    } finally {
      await putUploads(DEFAULT_UPLOAD_SETTINGS);
    }
  });

  it('applies lowered file count and total size to the next upload', async () => {
    expect((await putUploads({ max_files: 2, max_total_mib: 1, max_file_mib: 1 })).status).toBe(
      200,
    );
    try {
      const three = [1, 2, 3].map((i) => ({ name: `n${i}.bin`, data: 'hello' }));
      const many = await upload(form(three));
      expect(many.status).toBe(413);
      expect(many.body.detail).toBe('Too many files: at most 2 in one upload');
      const half = Buffer.alloc(MIB / 2 + 4096, 0x61);
      const total = await upload(
        form([
          { name: 'a.bin', data: half },
          { name: 'b.bin', data: half },
        ]),
      );
      expect(total.status).toBe(413);
      expect(total.body.detail).toBe(
        'The upload is larger than 1 MiB, the limit for all its files together',
      );
      expect(uploadFolders()).toEqual([]);
    } finally {
      await putUploads(DEFAULT_UPLOAD_SETTINGS);
    }
  });

  it('answers 422 naming the field for values out of bounds, and saves nothing', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ max_file_mib: 0 }, 'max_file_mib', 'must be at least 1'],
      [{ max_file_mib: 1025 }, 'max_file_mib', 'must be at most 1024'],
      [{ max_file_mib: 1.5 }, 'max_file_mib', 'must be a whole number'],
      [{ max_files: 0 }, 'max_files', 'must be at least 1'],
      [{ max_files: 1001 }, 'max_files', 'must be at most 1000'],
      [{ max_total_mib: 10_241 }, 'max_total_mib', 'must be at most 10240'],
      [
        { max_file_mib: 100, max_total_mib: 50 },
        'max_file_mib',
        'must not exceed the max upload size (max_total_mib)',
      ],
      [{ max_files: '5' }, 'max_files', ''],
      [{ unknown: 1 }, '', ''],
    ];
    for (const [settings, field, message] of cases) {
      const r = await putUploads(settings);
      expect(r.status, JSON.stringify(settings)).toBe(422);
      if (field) {
        const error = (r.body.errors as { field: string; message: string }[]).find(
          (e) => e.field === field,
        );
        expect(error, JSON.stringify(r.body)).toBeDefined();
        if (message) expect(error!.message).toBe(message);
      }
    }
    expect((await s.api('/api/v1/admin/settings/uploads', { key })).body).toEqual(
      DEFAULT_UPLOAD_SETTINGS,
    );
  });
});
