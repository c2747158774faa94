import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  downloadRepo,
  HubError,
  listRepoFiles,
  removeStaging,
  type DownloadProgress,
} from '../src/embedding/hub-download.js';
import { SafeFetcher } from '../src/scraping/safe-fetcher.js';
import { startFakeHub, type FakeHub } from './fixtures/fake-hub.js';
import { tempDir } from './helpers.js';
import { until } from './until.js';

const REQUIRED = ['config.json', 'tokenizer.json', 'onnx/model.onnx'] as const;
const OPTIONAL = ['tokenizer_config.json', 'special_tokens_map.json'] as const;

const FILES = {
  'config.json': JSON.stringify({ model_type: 'bert', hidden_size: 32 }),
  'tokenizer.json': JSON.stringify({ version: '1.0', model: { type: 'WordPiece', vocab: {} } }),
  'tokenizer_config.json': JSON.stringify({ do_lower_case: true }),
  'onnx/model.onnx': randomBytes(200_000),
  'README.md': '# tiny\n',
  'empty.txt': '',
};
const MODEL = FILES['onnx/model.onnx'];
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const gitBlobId = (b: Buffer | string) =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(b)}\0`)
    .update(b)
    .digest('hex');
const size = (b: Buffer | string) => Buffer.byteLength(b);
const WANTED = ['config.json', 'tokenizer.json', 'onnx/model.onnx', 'tokenizer_config.json'];
const TOTAL = WANTED.reduce((n, p) => n + size(FILES[p as keyof typeof FILES]), 0);

let hub: FakeHub;
let fetcher: SafeFetcher;
let root: string;

beforeAll(async () => {
  hub = await startFakeHub({
    repos: {
      'acme/tiny': { files: FILES },
      'acme/cdn': { files: FILES, redirect: true },
      // Its CDN is another loopback address, which the allow list does not open.
      'acme/escape': { files: FILES, redirect: 'http://127.0.0.2:8080' },
      'acme/lost': { files: FILES, mode: 'missing' },
      'acme/no-weights': { files: { 'config.json': '{}', 'tokenizer.json': '{}' } },
      'acme/broken': { files: FILES, mode: 'error' },
      'acme/cut': { files: FILES, mode: 'truncated' },
      'acme/corrupt': { files: FILES, mode: 'bad_checksum' },
      'acme/stuck': { files: FILES, mode: 'hang' },
      'acme/slow': { files: FILES, mode: 'slow', bytesPerSecond: 100_000 },
      'acme/steady': { files: FILES, mode: 'slow', bytesPerSecond: 250_000 },
      'acme/sly': { files: { ...FILES, '../escape.txt': 'gotcha' } },
      'acme/bare': { files: FILES, bare: ['onnx/model.onnx'] },
      'acme/bare-optional': { files: FILES, bare: ['tokenizer_config.json'] },
      'acme/trickle': { files: FILES, mode: 'trickle', trickleMs: 50 },
      'acme/endless': { files: FILES, mode: 'endless' },
      'acme/forged': { files: FILES, mode: 'bad_blob' },
    },
  });
  fetcher = new SafeFetcher({ allow: [`127.0.0.1:${hub.port}`], timeoutMs: 5000 });
  root = tempDir('adam-hub-');
});

afterAll(async () => {
  await fetcher.close();
  await hub.close();
  fs.rmSync(root, { recursive: true, force: true });
});

let n = 0;
/** Fresh staging and destination directories under one models folder, per test. */
function dirs() {
  const base = path.join(root, `case-${++n}`);
  return { destDir: path.join(base, 'models', 'tiny'), stagingDir: path.join(base, 'staging') };
}

function download(repo: string, extra: Partial<Parameters<typeof downloadRepo>[0]> = {}) {
  return downloadRepo({
    fetcher,
    hubUrl: hub.url,
    repo,
    revision: 'main',
    required: REQUIRED,
    optional: OPTIONAL,
    ...dirs(),
    ...extra,
  });
}

async function hubError(p: Promise<unknown>): Promise<HubError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  throw new Error('expected a HubError, but the download succeeded');
}

/** A destination that already holds an installed model, to check failures leave it as it was. */
function installedBefore(): { destDir: string; stagingDir: string } {
  const d = dirs();
  fs.mkdirSync(d.destDir, { recursive: true });
  fs.writeFileSync(path.join(d.destDir, 'previous.onnx'), 'the model that works');
  return d;
}

function expectUntouched(d: { destDir: string }): void {
  expect(fs.readdirSync(d.destDir)).toEqual(['previous.onnx']);
  expect(fs.readFileSync(path.join(d.destDir, 'previous.onnx'), 'utf8')).toBe(
    'the model that works',
  );
  // No half-built directory next to it either.
  expect(fs.readdirSync(path.dirname(d.destDir))).toEqual([path.basename(d.destDir)]);
}

function partSize(stagingDir: string, file: string): number {
  return fs.statSync(path.join(stagingDir, `${file}.part`), { throwIfNoEntry: false })?.size ?? 0;
}

describe('listRepoFiles', () => {
  it('lists paths, sizes, the sha256 of LFS files and the git blob id of the others', async () => {
    const files = await listRepoFiles({
      fetcher,
      hubUrl: hub.url,
      repo: 'acme/tiny',
      revision: 'main',
    });
    expect(files).toContainEqual({
      path: 'onnx/model.onnx',
      size: MODEL.length,
      sha256: sha256(MODEL),
      gitBlobId: null,
    });
    expect(files).toContainEqual({
      path: 'config.json',
      size: size(FILES['config.json']),
      sha256: null,
      gitBlobId: gitBlobId(FILES['config.json']),
    });
    expect(files).toHaveLength(Object.keys(FILES).length);
  });

  it('answers not_found naming the repository and revision', async () => {
    const ref = { fetcher, hubUrl: hub.url, repo: 'acme/tiny', revision: 'v9' };
    const err = await hubError(listRepoFiles(ref));
    expect(err.code).toBe('not_found');
    expect(err.message).toBe(
      `Repository acme/tiny at revision v9 not found on ${hub.url} (HTTP 404)`,
    );
    const gone = await hubError(listRepoFiles({ ...ref, repo: 'acme/lost', revision: 'main' }));
    expect(gone.code).toBe('not_found');
    expect(gone.message).toContain('Repository acme/lost at revision main not found');
  });
});

describe('downloadRepo', () => {
  it('installs the verified files and removes the staging directory', async () => {
    const d = dirs();
    fs.mkdirSync(d.destDir, { recursive: true });
    fs.writeFileSync(path.join(d.destDir, 'stale.bin'), 'from an older install');
    const res = await download('acme/tiny', d);

    expect(res.files.map((f) => f.path)).toEqual(WANTED);
    for (const f of res.files) {
      const content = FILES[f.path as keyof typeof FILES];
      expect(f.size).toBe(size(content));
      expect(f.sha256).toBe(sha256(content));
      // By hash: a deep equality of 200 KB buffers takes vitest a second.
      expect(sha256(fs.readFileSync(path.join(d.destDir, f.path)))).toBe(sha256(content));
    }
    expect(res.totalBytes).toBe(TOTAL);
    // Replaced whole: nothing of the old directory is left.
    expect(fs.existsSync(path.join(d.destDir, 'stale.bin'))).toBe(false);
    expect(fs.existsSync(path.join(d.destDir, 'README.md'))).toBe(false);
    expect(fs.existsSync(d.stagingDir)).toBe(false);
    expect(fs.readdirSync(path.dirname(d.destDir))).toEqual(['tiny']);
  });

  it('reports monotonic byte progress over all files, reaching the total', async () => {
    const events: DownloadProgress[] = [];
    await download('acme/steady', { onProgress: (p) => events.push(p) });
    for (const [i, e] of events.entries()) {
      expect(e.totalBytes).toBe(TOTAL);
      if (i > 0) expect(e.downloadedBytes).toBeGreaterThanOrEqual(events[i - 1]!.downloadedBytes);
    }
    expect(events.at(-1)).toMatchObject({ downloadedBytes: TOTAL, totalBytes: TOTAL });
    expect(new Set(events.map((e) => e.file))).toEqual(new Set(WANTED));
    // Updates while the weights arrive, not only at the files' starts and ends.
    const done = TOTAL - size(FILES['tokenizer_config.json']);
    const during = events.filter(
      (e) =>
        e.file === 'onnx/model.onnx' &&
        e.downloadedBytes > done - MODEL.length &&
        e.downloadedBytes < done,
    );
    expect(during.length).toBeGreaterThanOrEqual(2);
  });

  it('follows the hub redirect to its CDN', async () => {
    const before = hub.hits('/cdn/acme/cdn/');
    const res = await download('acme/cdn');
    expect(res.totalBytes).toBe(TOTAL);
    expect(hub.hits('/cdn/acme/cdn/') - before).toBe(WANTED.length);
  });

  it('stops promptly when cancelled, keeps the .part, and resumes with a Range request', async () => {
    const d = dirs();
    const controller = new AbortController();
    let seen = 0;
    const first = download('acme/slow', {
      ...d,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.file === 'onnx/model.onnx') seen = p.downloadedBytes;
      },
    });
    const settled = hubError(first);
    await until(() => partSize(d.stagingDir, 'onnx/model.onnx') >= 40_000, {
      what: 'part of the model downloaded',
    });
    // The download would otherwise run on: 'cancelled' (not a completed install) is the proof.
    controller.abort();
    const err = await settled;
    expect(err.code).toBe('cancelled');
    expect(err.message).toBe('The download of acme/slow was cancelled');
    expect(seen).toBeGreaterThan(0);
    expect(fs.existsSync(d.destDir)).toBe(false);

    const kept = partSize(d.stagingDir, 'onnx/model.onnx');
    expect(kept).toBeGreaterThanOrEqual(40_000);
    expect(kept).toBeLessThan(MODEL.length);
    const before = hub.requests.length;
    hub.setMode('acme/slow', 'ok');
    try {
      const res = await download('acme/slow', d);
      const model = res.files.find((f) => f.path === 'onnx/model.onnx');
      expect(model).toEqual({ path: 'onnx/model.onnx', size: MODEL.length, sha256: sha256(MODEL) });
    } finally {
      hub.setMode('acme/slow', 'slow');
    }
    const modelRequests = hub.requests.slice(before).filter((r) => r.includes('model.onnx'));
    expect(modelRequests).toHaveLength(1);
    expect(modelRequests[0]).toMatch(
      new RegExp(`/resolve/[0-9a-f]{40}/onnx/model.onnx range=bytes=${kept}-$`),
    );
    // The files completed before the cancel were not fetched again.
    expect(hub.requests.slice(before).some((r) => r.includes('/config.json'))).toBe(false);
    expect(sha256(fs.readFileSync(path.join(d.destDir, 'onnx/model.onnx')))).toBe(sha256(MODEL));
    expect(fs.existsSync(d.stagingDir)).toBe(false);
  });

  it('drops the .part files of another commit instead of resuming them', async () => {
    const d = dirs();
    fs.mkdirSync(d.stagingDir, { recursive: true });
    fs.writeFileSync(
      path.join(d.stagingDir, '.hub-download.json'),
      JSON.stringify({ repo: 'acme/tiny', commit: '0'.repeat(40) }),
    );
    fs.writeFileSync(path.join(d.stagingDir, 'config.json.part'), '{"stale');
    const before = hub.requests.length;
    await download('acme/tiny', d);
    const config = hub.requests.slice(before).find((r) => r.includes('/config.json'));
    expect(config).not.toContain('range=');
    expect(fs.readFileSync(path.join(d.destDir, 'config.json'), 'utf8')).toBe(FILES['config.json']);
  });

  it('answers not_found for a missing repository, leaving the installed model', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/lost', d));
    expect(err.code).toBe('not_found');
    expect(err.path).toBeNull();
    expect(err.message).toContain('acme/lost at revision main not found');
    expectUntouched(d);
  });

  it('answers not_found for a missing required file before downloading anything', async () => {
    const before = hub.hits('/acme/no-weights/resolve/');
    const d = installedBefore();
    const err = await hubError(download('acme/no-weights', d));
    expect(err.code).toBe('not_found');
    expect(err.path).toBe('onnx/model.onnx');
    expect(err.message).toBe(
      'onnx/model.onnx: not in acme/no-weights at revision main, which has config.json, tokenizer.json',
    );
    expect(hub.hits('/acme/no-weights/resolve/')).toBe(before);
    expectUntouched(d);
  });

  it('skips a missing optional file', async () => {
    const res = await download('acme/tiny', { optional: ['special_tokens_map.json'] });
    expect(res.files.map((f) => f.path)).toEqual([...REQUIRED]);
  });

  it('installs an empty file', async () => {
    const d = dirs();
    const res = await download('acme/tiny', { ...d, optional: ['empty.txt'] });
    expect(res.files.at(-1)).toEqual({ path: 'empty.txt', size: 0, sha256: sha256('') });
    expect(fs.readFileSync(path.join(d.destDir, 'empty.txt'), 'utf8')).toBe('');
  });

  it('answers invalid for a hub URL that is not a URL', async () => {
    const err = await hubError(download('acme/tiny', { hubUrl: 'not a hub' }));
    expect(err.code).toBe('invalid');
  });

  it('answers http_error for a hub error, leaving the installed model', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/broken', d));
    expect(err.code).toBe('http_error');
    expect(err.status).toBe(500);
    expect(err.path).toBe('config.json');
    expect(err.message).toMatch(
      /^config\.json: http:\/\/127\.0\.0\.1:\d+\/acme\/broken\/resolve\/[0-9a-f]{40}\/config\.json answered HTTP 500 Internal Server Error$/,
    );
    expectUntouched(d);
  });

  it('answers truncated for a body cut short, then resumes from what arrived', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/cut', d));
    const full = size(FILES['config.json']);
    expect(err.code).toBe('truncated');
    expect(err.path).toBe('config.json');
    const got = Number(
      /^config\.json: expected (\d+) bytes, got (\d+) \(the download was cut short\)$/
        .exec(err.message)
        ?.at(2),
    );
    expect(err.message).toContain(`expected ${full} bytes`);
    // Half was sent; bytes arriving together with the close may be lost, never invented.
    expect(got).toBeLessThanOrEqual(Math.floor(full / 2));
    expect(partSize(d.stagingDir, 'config.json')).toBe(got);
    expectUntouched(d);

    const before = hub.requests.length;
    hub.setMode('acme/cut', 'ok');
    try {
      await download('acme/cut', d);
    } finally {
      hub.setMode('acme/cut', 'truncated');
    }
    const resumed = hub.requests.slice(before).find((r) => r.includes('config.json'));
    if (got > 0) expect(resumed).toMatch(new RegExp(`range=bytes=${got}-$`));
    else expect(resumed).not.toContain('range=');
    expect(fs.readFileSync(path.join(d.destDir, 'config.json'), 'utf8')).toBe(FILES['config.json']);
  });

  it('answers checksum for a file whose sha256 differs, deleting it', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/corrupt', d));
    expect(err.code).toBe('checksum');
    expect(err.path).toBe('onnx/model.onnx');
    expect(err.message).toContain(
      `onnx/model.onnx: its sha256 is ${sha256(MODEL)}, the hub lists `,
    );
    expect(fs.existsSync(path.join(d.stagingDir, 'onnx/model.onnx.part'))).toBe(false);
    expectUntouched(d);
  });

  it('answers size for a file over maxFileBytes, before downloading it', async () => {
    const d = installedBefore();
    const before = hub.hits('/acme/tiny/resolve/');
    const err = await hubError(download('acme/tiny', { ...d, maxFileBytes: 100_000 }));
    expect(err.code).toBe('size');
    expect(err.message).toBe('onnx/model.onnx: 195.3 KiB, over the 97.7 KiB limit for one file');
    expect(hub.hits('/acme/tiny/resolve/')).toBe(before);
    expectUntouched(d);
  });

  it('answers timeout when the hub stops sending for idleTimeoutMs', async () => {
    const d = installedBefore();
    const started = performance.now();
    const err = await hubError(download('acme/stuck', { ...d, idleTimeoutMs: 300 }));
    const elapsed = performance.now() - started;
    expect(err.code).toBe('timeout');
    expect(err.path).toBe('config.json');
    expect(err.message).toMatch(/^config\.json: Timed out: no data for 300 ms from http:/);
    // At least the idle bound; no upper bound, which a loaded machine could break (the message
    // already says the 300 ms idle timer fired, not another one).
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expectUntouched(d);
  });

  it('refuses a file the hub lists without size or checksum, before any request', async () => {
    for (const [repo, file] of [
      ['acme/bare', 'onnx/model.onnx'],
      // Optional files too: what is fetched is bounded, whatever it is for.
      ['acme/bare-optional', 'tokenizer_config.json'],
    ] as const) {
      const d = installedBefore();
      const before = hub.hits(`/${repo}/resolve/`);
      const err = await hubError(download(repo, d));
      expect(err.code).toBe('unverifiable');
      expect(err.path).toBe(file);
      expect(err.message).toBe(
        `The hub lists no size and no checksum for ${file} in ${repo} at revision main: ` +
          'refusing an unbounded, unverifiable download',
      );
      expect(hub.hits(`/${repo}/resolve/`)).toBe(before);
      expect(fs.existsSync(d.stagingDir) && fs.readdirSync(d.stagingDir).length).toBeFalsy();
      expectUntouched(d);
    }
  });

  it('answers timeout for a hub that trickles a byte at a time, never idle long enough', async () => {
    // A byte every 50 ms: the 300 ms idle clock never runs out; the rate floor, over 600 ms, does.
    const d = installedBefore();
    const err = await hubError(
      download('acme/trickle', { ...d, idleTimeoutMs: 300, minBytesPerSecond: 1024 }),
    );
    expect(err.code).toBe('timeout');
    expect(err.path).toBe('config.json');
    expect(err.message).toMatch(
      /^config\.json: only \d+ bytes in 600 ms, under the \d+ bytes it must make in that time \(the hub trickles\)$/,
    );
    expect(partSize(d.stagingDir, 'config.json')).toBeLessThan(size(FILES['config.json']));
    expectUntouched(d);
  });

  it('answers size for a file longer than listed, stopping at the listed size', async () => {
    // The hub sends the file, then bytes without end and without a Content-Length.
    const d = installedBefore();
    const err = await hubError(download('acme/endless', d));
    expect(err.code).toBe('size');
    expect(err.path).toBe('config.json');
    expect(err.message).toMatch(/^config\.json: the hub sent more than /);
    expect(fs.existsSync(path.join(d.stagingDir, 'config.json.part'))).toBe(false);
    expectUntouched(d);
  });

  it('answers checksum for a small file whose git blob id differs from the listing', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/forged', d));
    expect(err.code).toBe('checksum');
    expect(err.path).toBe('config.json');
    expect(err.message).toContain(
      `config.json: its git blob id is ${gitBlobId(FILES['config.json'])}, the hub lists `,
    );
    expect(fs.existsSync(path.join(d.stagingDir, 'config.json.part'))).toBe(false);
    expectUntouched(d);
  });

  it.each([
    ['../etc/passwd'],
    ['/etc/passwd'],
    ['onnx/../../x'],
    ['onnx\\model.onnx'],
    ['onnx//model.onnx'],
    ['./config.json'],
    ['model\0.onnx'],
    ['C:/model.onnx'],
  ])('refuses the requested path %j before any request', async (bad) => {
    const before = hub.requests.length;
    const err = await hubError(download('acme/tiny', { required: ['config.json', bad] }));
    expect(err.code).toBe('invalid');
    expect(err.path).toBe(bad);
    expect(err.message).toContain('not a safe relative path');
    expect(hub.requests.length).toBe(before);
  });

  it('refuses a listing that names a file outside the repository', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/sly', d));
    expect(err.code).toBe('invalid');
    expect(err.message).toBe(
      'Refused the listing of acme/sly at revision main: it names the file "../escape.txt": not a safe relative path',
    );
    expect(fs.existsSync(path.join(path.dirname(d.stagingDir), 'escape.txt'))).toBe(false);
    expectUntouched(d);
  });

  it('refuses a redirect to a loopback address the allow list does not open', async () => {
    const d = installedBefore();
    const err = await hubError(download('acme/escape', d));
    expect(err.code).toBe('blocked');
    expect(err.path).toBe('config.json');
    expect(err.message).toContain('Refused to follow the redirect from');
    expect(err.message).toContain('to http://127.0.0.2:8080/cdn/acme/escape/');
    expect(err.message).toContain('127.0.0.2 is a loopback address');
    expect(hub.hits('/cdn/acme/escape/')).toBe(0);
    expectUntouched(d);
  });

  it('frees the staging directory of an abandoned download', async () => {
    const d = dirs();
    const controller = new AbortController();
    const stopped = hubError(download('acme/slow', { ...d, signal: controller.signal }));
    await until(() => partSize(d.stagingDir, 'onnx/model.onnx') > 0, { what: 'a .part' });
    controller.abort();
    expect((await stopped).code).toBe('cancelled');
    const kept = fs
      .readdirSync(d.stagingDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .reduce((n, e) => n + fs.statSync(path.join(e.parentPath, e.name)).size, 0);
    expect(kept).toBeGreaterThan(partSize(d.stagingDir, 'onnx/model.onnx'));
    expect(await removeStaging(d.stagingDir)).toBe(kept);
    expect(fs.existsSync(d.stagingDir)).toBe(false);
    expect(await removeStaging(d.stagingDir)).toBe(0);
  });
});
