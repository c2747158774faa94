import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLES } from '../corpus.js';
import { installDirName } from '../../src/services/model-files-guard.js';
import { startFakeHub, type FakeHub } from '../fixtures/fake-hub.js';
import { writeTinyEmbeddingModel } from '../fixtures/tiny-models.js';
import { saveText, startServer, tempDir, type TestServer } from '../helpers.js';
import { until } from '../until.js';
import { diffManifests, manifest } from './data-manifest.js';
import { report } from './report.js';

/**
 * Files: every call that takes a path-like value (model cleanup, backup ids, model ids,
 * language-pack codes, every other route parameter, the console's static files) refuses what
 * would leave the data directory, and a tampered backup is refused before anything is swapped.
 * Proved by sha256 manifests of the data directory and of a sibling directory outside it (a
 * canary file, and the targets of links planted inside the data directory) before and after.
 */

const API = '/api/v1';
let s: TestServer;
let hub: FakeHub;
let key: string;
let models: string;
let outside: string;
let webDist: string;
const CANARY = 'canary: nothing may read, change or delete this file';

/**
 * The store is compared by its rows, not its bytes: the server legitimately writes it while it
 * answers (log lines and activity of refused calls, metrics samples, the keys' last use, the
 * health probe) and SQLite moves pages between adam.db and its -wal at checkpoints. These tables
 * are the ones written that way; every other table must keep every row.
 */
const STORE_FILES = new Set(['adam.db', 'adam.db-wal', 'adam.db-shm', 'adam.db-journal']);
const WRITTEN_BY_SERVING = new Set([
  'logs',
  'activity',
  'metrics_history',
  'api_keys',
  'store_probe',
  'sqlite_sequence',
  // The audit trail records the refused calls themselves (each moves the chain's head).
  'audit_log',
  'audit_chain',
]);

/** The store's rows, one sha256 per table, as manifest entries `db:<table>`. */
function storeRows(exceptModel?: number): Map<string, string> {
  const out = new Map<string, string>();
  const tables = s.adam.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all() as string[];
  for (const t of tables) {
    // logs_fts and its shadow tables: the full-text index of the log lines.
    if (WRITTEN_BY_SERVING.has(t) || t.startsWith('logs_fts')) continue;
    let rows = s.adam.db.prepare(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[];
    if (t === 'models' && exceptModel !== undefined)
      rows = rows.filter((r) => r.id !== exceptModel);
    const lines = rows.map((r) => JSON.stringify(r)).sort();
    out.set(`db:${t}`, createHash('sha256').update(lines.join('\n')).digest('hex'));
  }
  return out;
}

/**
 * The data directory: every file byte for byte (the store by its rows), links as links;
 * `backups/` left out when `live` (what a restore replaces, not the backups it reads).
 */
function dataState(opts: { exceptModel?: number; live?: boolean } = {}): Map<string, string> {
  const files = manifest(s.dataDir, {
    ignore: (rel) => STORE_FILES.has(rel) || (!!opts.live && rel === 'backups'),
  });
  return new Map([...files, ...storeRows(opts.exceptModel)]);
}

interface Answer {
  status: number;
  body: { detail?: unknown } | string | null;
  text: string;
}

/**
 * A request sent with its path exactly as written: fetch() would resolve `..` and re-encode,
 * which is what a hostile client does not do.
 */
function raw(method: string, rawPath: string, body?: unknown): Promise<Answer> {
  const url = new URL(s.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: rawPath,
        headers: {
          'x-api-key': key,
          ...(payload
            ? {
                'content-type': 'application/json',
                'content-length': String(Buffer.byteLength(payload)),
              }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: Answer['body'] = text;
          try {
            parsed = JSON.parse(text) as Answer['body'];
          } catch {
            // not JSON: kept as text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const detailOf = (a: Answer) =>
  a.body && typeof a.body === 'object' && typeof a.body.detail === 'string' ? a.body.detail : null;

let tinyId: number;
let linkedId: number;
let outsideName: string;

beforeAll(async () => {
  const fixtures = tempDir('adam-files-models-');
  await writeTinyEmbeddingModel(path.join(fixtures, 'embedder'), { dimension: 16 });
  hub = await startFakeHub({
    repos: {
      'tiny/embedder': { files: { dir: path.join(fixtures, 'embedder') } },
      'linked/model': { files: { dir: path.join(fixtures, 'embedder') }, mode: 'missing' },
    },
  });
  outside = tempDir('adam-outside-');
  outsideName = path.basename(outside);
  webDist = tempDir('adam-web-');
  fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>console</title>');
  s = await startServer({
    env: {
      ADAM_MODEL_HUB_URL: hub.url,
      ADAM_FETCH_ALLOW: `127.0.0.1:${hub.port}`,
      ADAM_WEB_DIST: webDist,
    },
  });
  await s.adam.reconciled;
  key = await s.login();
  models = path.join(s.dataDir, 'models');
  await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  await saveText(s, key, ARTICLES.databases, 'databases');

  // An installed, active embedding model: its files are in use.
  const tiny = await s.api(`${API}/admin/models`, {
    method: 'POST',
    key,
    body: { name: 'tiny-embedder', type: 'embedding', repo: 'tiny/embedder' },
  });
  tinyId = tiny.body.id;
  // A model whose install failed: uninstallable, and its folder will be a link.
  const linked = await s.api(`${API}/admin/models`, {
    method: 'POST',
    key,
    body: { name: 'linked-model', type: 'embedding', repo: 'linked/model' },
  });
  linkedId = linked.body.id;
  for (const id of [tinyId, linkedId])
    await s.api(`${API}/admin/models/${id}/install`, { method: 'POST', key });
  const settled = async (id: number) =>
    until(
      async () => {
        const st = (await s.api(`${API}/admin/models/${id}/progress`, { key })).body.status;
        return st !== 'downloading' && st;
      },
      { what: `model ${id}'s install to end` },
    );
  expect(await settled(tinyId)).toBe('installed');
  expect(await settled(linkedId)).toBe('error');
  // As an install from before the flat layout left it: its folder `<repo>/<revision>`, which
  // a link on the way can reach (a flat folder has nothing on the way).
  s.adam.db
    .prepare("UPDATE models SET local_path = 'linked/model/main' WHERE id = ?")
    .run(linkedId);
  const on = await s.api(`${API}/admin/models/${tinyId}/toggle`, {
    method: 'POST',
    key,
    body: { active: true },
  });
  expect(on.status, JSON.stringify(on.body)).toBe(200);
  // The switch re-embeds, then retires the old index's files: wait for all of it, so that
  // nothing the switch still does shows in the manifests below.
  const indexDir = path.join(s.dataDir, 'index');
  await until(
    async () => {
      const job = (await s.api(`${API}/sources/jobs/${on.body.job_id}`, { key })).body;
      return (
        job.status === 'completed' &&
        !fs.existsSync(path.join(indexDir, 'next')) &&
        !fs.existsSync(path.join(indexDir, 'switch.json')) &&
        !fs.readdirSync(indexDir).some((f) => f.endsWith('.replaced'))
      );
    },
    { what: 'the switch to the tiny embedder to end' },
  );

  // Outside the data directory: a canary, and what the planted links point at.
  fs.writeFileSync(path.join(outside, 'canary.txt'), CANARY);
  fs.mkdirSync(path.join(outside, 'linked/model/main'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'linked/model/main/keep.bin'), CANARY);
  fs.mkdirSync(path.join(outside, 'staging/old@main'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'staging/old@main/part.bin'), CANARY);
  // Inside: an unused file (the legitimate target riding along with each hostile one), a link
  // to the canary, a linked folder holding a model's files, a linked staging folder.
  fs.mkdirSync(path.join(models, 'stray'), { recursive: true });
  fs.writeFileSync(path.join(models, 'stray/old.bin'), 'unused');
  fs.symlinkSync(path.join(outside, 'canary.txt'), path.join(models, 'stray/link.bin'));
  fs.rmSync(path.join(models, 'linked'), { recursive: true, force: true });
  fs.symlinkSync(path.join(outside, 'linked'), path.join(models, 'linked'), 'dir');
  fs.rmSync(path.join(models, '.staging'), { recursive: true, force: true });
  fs.symlinkSync(path.join(outside, 'staging'), path.join(models, '.staging'), 'dir');
});

afterAll(async () => {
  await s?.close();
  await hub?.close();
});

describe('path-taking calls', () => {
  it('refuse traversal, encodings, absolute paths, NUL and links, touching nothing outside the data directory', async () => {
    const backup = await s.api(`${API}/admin/maintenance/backup`, { method: 'POST', key });
    expect(backup.status).toBe(200);
    const good = backup.body.id as string;
    // A backup folder that is a link to a copy outside (a valid backup in every other way).
    const linkedBackup = '20990101-000000-000';
    fs.cpSync(path.join(s.dataDir, 'backups', good), path.join(outside, 'backup'), {
      recursive: true,
    });
    const m = JSON.parse(fs.readFileSync(path.join(outside, 'backup/manifest.json'), 'utf8'));
    fs.writeFileSync(
      path.join(outside, 'backup/manifest.json'),
      JSON.stringify({ ...m, id: linkedBackup }),
    );
    fs.symlinkSync(
      path.join(outside, 'backup'),
      path.join(s.dataDir, 'backups', linkedBackup),
      'dir',
    );
    const tinyDir = installDirName('tiny/embedder', 'main');
    const tinyFile = `${tinyDir}/onnx/model.onnx`;
    const canaryAbs = path.join(outside, 'canary.txt');
    const up = `../../${outsideName}/canary.txt`;

    const outsideBefore = manifest(outside);
    const dataBefore = dataState({ exceptModel: linkedId });

    // Cleanup: each hostile path rides with a legitimate one; the whole request is refused.
    const cleanupPaths = [
      up,
      `stray/../${up}`,
      `..%2f..%2f${outsideName}%2fcanary.txt`,
      `%2e%2e/%2e%2e/${outsideName}/canary.txt`,
      `%2E%2E%2F%2E%2E%2F${outsideName}%2Fcanary.txt`,
      `%252e%252e%252f%252e%252e%252f${outsideName}%252fcanary.txt`,
      `..%5c..%5c${outsideName}%5ccanary.txt`,
      `..\\..\\${outsideName}\\canary.txt`,
      '/etc/passwd',
      canaryAbs,
      'C:/Windows/win.ini',
      'stray/old.bin\u0000',
      'stray/%00old.bin',
      'stray/link.bin',
      'linked/model/main/keep.bin',
      'linked',
      'linked/model',
      '.staging/old@main/part.bin',
      tinyFile,
      `${tinyDir}/config.json`,
      `${tinyDir}/onnx`,
      'builtin',
      '',
      '.',
      './',
      '/',
      '..',
      'stray/..',
      './stray/../..',
      '....//canary.txt',
      'a/'.repeat(600) + 'x',
      'a'.repeat(200) + '/' + 'b'.repeat(790),
      '\u2025/canary.txt',
      '\uff0e\uff0e/canary.txt',
    ];
    const calls: { what: string; send: () => Promise<Answer>; statuses: number[] }[] = [];
    for (const p of cleanupPaths)
      calls.push({
        what: `cleanup ${JSON.stringify(p)}`,
        send: () =>
          raw('DELETE', `${API}/admin/models/cleanup/files`, { files: ['stray/old.bin', p] }),
        statuses: [422],
      });
    calls.push({
      what: 'cleanup with a files string',
      send: () => raw('DELETE', `${API}/admin/models/cleanup/files`, { files: '../x' }),
      statuses: [422],
    });

    // Backup ids, in the one route that takes one and in the ones a client may guess.
    const ids = [
      '..',
      '%2e%2e',
      `..%2f..%2f${outsideName}`,
      '%2fetc%2fpasswd',
      `${good}%00`,
      `${good}%2f..%2f${good}`,
      '%252e%252e%252f',
      `${good}%5c..`,
      linkedBackup,
      '.restore',
      `${good}.tmp`,
      '9'.repeat(4000),
      '%E0%A4%A',
    ];
    for (const id of ids) {
      calls.push({
        what: `restore ${id.slice(0, 40)}`,
        send: () => raw('POST', `${API}/admin/maintenance/restore/${id}`),
        statuses: [400, 404, 414],
      });
      for (const [method, p] of [
        ['GET', `backups/${id}`],
        ['DELETE', `backups/${id}`],
        ['GET', `backups/${id}/download`],
      ] as const)
        calls.push({
          what: `${method} ${p.slice(0, 40)}`,
          send: () => raw(method, `${API}/admin/maintenance/${p}`),
          statuses: [400, 404, 414],
        });
    }
    calls.push({
      what: 'restore through a raw ../ path',
      send: () => raw('POST', `${API}/admin/maintenance/restore/../../../${outsideName}`),
      statuses: [404],
    });

    // Model ids and language-pack codes, in every call that takes them.
    const modelIds = ['..%2f1', '%2e%2e', '1%00', '-1', '0', '1.5', '%2fetc%2fpasswd', '1e400'];
    for (const id of modelIds) {
      for (const [method, p] of [
        ['GET', ''],
        ['DELETE', ''],
        ['POST', '/install'],
        ['POST', '/uninstall'],
        ['GET', '/progress'],
      ] as const)
        calls.push({
          what: `${method} model ${id}${p}`,
          send: () => raw(method, `${API}/admin/models/${id}${p}`),
          statuses: [400, 404, 422],
        });
      calls.push({
        what: `test model ${id}`,
        send: () => raw('POST', `${API}/admin/models/${id}/test`, { text: 'hello' }),
        statuses: [400, 404, 422],
      });
    }
    for (const code of ['..%2fen', 'en%00', '%2e%2e', '..', 'en%2f..%2f..', 'EN', 'e%6e%2f..'])
      for (const action of ['install', 'uninstall'])
        calls.push({
          what: `${action} pack ${code}`,
          send: () => raw('POST', `${API}/admin/models/language-packs/${code}/${action}`),
          statuses: [400, 404, 422],
        });

    // Every other route parameter.
    for (const p of [
      'sources/jobs/..%2f1',
      'sources/jobs/%2e%2e/errors',
      'snippets/..%2f1',
      'snippets/%2fetc%2fpasswd/index',
      'rules/scraping/..%2f1',
      'admin/settings/..%2f..%2fprocessing',
      'admin/settings/%2e%2e',
      `admin/settings/..%2f..%2f${outsideName}`,
      'sources/..%2f1',
    ])
      calls.push({
        what: `GET ${p}`,
        send: () => raw('GET', `${API}/${p}`),
        statuses: [400, 404, 422],
      });

    const answers: { what: string; a: Answer; ok: boolean }[] = [];
    for (const c of calls) {
      const a = await c.send();
      const ok = c.statuses.includes(a.status) && !!detailOf(a);
      answers.push({ what: c.what, a, ok });
    }

    // The console's files: the fallback page or a 404, never a file from elsewhere.
    const staticPaths = [
      `/..%2f${outsideName}%2fcanary.txt`,
      `/%2e%2e/%2e%2e/${outsideName}/canary.txt`,
      `/../../${outsideName}/canary.txt`,
      `/..%5c..%5c${outsideName}%5ccanary.txt`,
      `/%252e%252e/${outsideName}/canary.txt`,
      '/....//....//etc/passwd',
      '/%00',
      '/index.html%00.map',
    ];
    for (const p of staticPaths) {
      const a = await raw('GET', p);
      const ok = a.status < 500 && !a.text.includes(CANARY) && !a.text.includes('root:');
      answers.push({ what: `static ${p}`, a, ok });
    }

    // Legitimate calls meeting planted links: an uninstall whose folder is reached through
    // one, a cache clear whose staging folder is one. Both answer, and follow neither.
    const un = await raw('POST', `${API}/admin/models/${linkedId}/uninstall`);
    answers.push({
      what: 'uninstall through a linked folder',
      a: un,
      ok:
        un.status === 200 &&
        /its files stay: linked is a symbolic link/.test(JSON.stringify(un.body)),
    });
    const clear = await raw('POST', `${API}/admin/models/cache/clear`);
    answers.push({
      what: 'cache clear with a linked staging folder',
      a: clear,
      ok: clear.status === 200,
    });

    const outsideDiff = diffManifests(outsideBefore, manifest(outside));
    const dataDiff = diffManifests(dataBefore, dataState({ exceptModel: linkedId }));
    const wrong = answers.filter((x) => !x.ok);
    const fiveHundreds = answers.filter((x) => x.a.status >= 500).length;
    report({
      check: 'files: path-taking calls stay in the data dir',
      runs: answers.length,
      failures: wrong.length + outsideDiff.length + dataDiff.length,
      figure: `${outsideDiff.length} files touched outside, ${dataDiff.length} inside / ${answers.length} hostile calls (${fiveHundreds} 5xx)`,
    });
    expect(
      wrong.map((x) => `${x.what}: ${x.a.status} ${x.a.text.slice(0, 200)}`),
      'every call answered as it should',
    ).toEqual([]);
    expect(outsideDiff, 'outside the data directory').toEqual([]);
    expect(dataDiff, 'the data directory').toEqual([]);
    expect(fs.readFileSync(path.join(models, 'stray/old.bin'), 'utf8')).toBe('unused');
  });
});

describe('files in use', () => {
  it('refuses the cleanup of the active model’s files and the uninstall of the active embedder', async () => {
    const tinyDir = installDirName('tiny/embedder', 'main');
    const file = path.join(models, tinyDir, 'onnx/model.onnx');
    const before = manifest(path.join(models, tinyDir));
    const attempts = [
      await s.api(`${API}/admin/models/cleanup/files`, {
        method: 'DELETE',
        key,
        body: { files: [`${tinyDir}/onnx/model.onnx`] },
      }),
      await s.api(`${API}/admin/models/cleanup/files`, {
        method: 'DELETE',
        key,
        body: { files: [`./${tinyDir}//config.json`] },
      }),
      await s.api(`${API}/admin/models/${tinyId}/uninstall`, { method: 'POST', key }),
    ];
    const expected = [
      [422, /in use by model tiny-embedder/],
      [422, /in use by model tiny-embedder/],
      [409, /is the active embedding model/],
    ] as const;
    const failures = attempts.filter(
      (a, i) => a.status !== expected[i]![0] || !expected[i]![1].test(a.body?.detail ?? ''),
    ).length;
    const diff = diffManifests(before, manifest(path.join(models, tinyDir)));
    report({
      check: 'files: files in use kept',
      runs: attempts.length,
      failures: failures + diff.length,
      figure: `${attempts.length} refused, ${diff.length} of ${before.size} model entries changed`,
    });
    attempts.forEach((a, i) => {
      expect(a.status, JSON.stringify(a.body)).toBe(expected[i]![0]);
      expect(a.body.detail).toMatch(expected[i]![1]);
    });
    expect(diff).toEqual([]);
    expect(fs.statSync(file).size).toBeGreaterThan(0);
    expect((await s.api(`${API}/admin/models/${tinyId}`, { key })).body).toMatchObject({
      status: expect.stringMatching(/installed|loaded/),
      active: true,
    });
  });
});

describe('restore of a tampered backup', () => {
  it('is refused before anything is swapped: the live store, index and settings stay byte for byte', async () => {
    const taken = await s.api(`${API}/admin/maintenance/backup`, { method: 'POST', key });
    expect(taken.status).toBe(200);
    const goodDir = path.join(s.dataDir, 'backups', taken.body.id as string);
    // Changes after the backup: a restore that went through would undo them.
    const ids = (await s.api(`${API}/snippets?per_page=500`, { key })).body.snippets.map(
      (x: { id: number }) => x.id,
    );
    await s.api(`${API}/snippets/${ids[0]}`, { method: 'DELETE', key });
    await s.api(`${API}/admin/settings/processing`, {
      method: 'PUT',
      key,
      body: { settings: { min_quality_score: 0.61 } },
    });
    const snippetsBefore = (await s.api(`${API}/snippets?per_page=500`, { key })).body;
    const settingsBefore = (await s.api(`${API}/admin/settings/processing`, { key })).body;
    // The deletion's index save, done now: a restore's safety backup saves a dirty index first
    // (the same vectors, new files), which is not the restore changing anything.
    await s.adam.services.index.flush();
    const live = () => dataState({ live: true });
    const liveBefore = live();

    type Manifest = {
      id: string;
      counts: Record<string, unknown>;
      files: { path: string; bytes: unknown; sha256: string }[];
      [k: string]: unknown;
    };
    const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
    const indexFile = (m: Manifest, ext: string) => m.files.find((f) => f.path.endsWith(ext))!.path;
    const rehash = (dir: string, m: Manifest, rel: string) => {
      const f = m.files.find((x) => x.path === rel)!;
      f.bytes = fs.statSync(path.join(dir, rel)).size;
      f.sha256 = sha(path.join(dir, rel));
    };
    const cut = (file: string, bytes: number) =>
      fs.writeFileSync(file, fs.readFileSync(file).subarray(0, bytes));
    const flip = (file: string, at: (len: number) => number) => {
      const b = fs.readFileSync(file);
      b[at(b.length)]! ^= 0xff;
      fs.writeFileSync(file, b);
    };
    // An outside copy of the backup's store: a link to it has the very bytes the manifest names.
    const outsideDb = path.join(outside, 'copy-of-adam.db');
    fs.copyFileSync(path.join(goodDir, 'adam.db'), outsideDb);
    fs.cpSync(path.join(goodDir, 'index'), path.join(outside, 'copy-of-index'), {
      recursive: true,
    });

    /** Each tampering: what it does to a fresh copy of the backup, and what the answer names. */
    const cases: {
      name: string;
      tamper: (dir: string, m: Manifest) => Manifest | string | null;
      detail: RegExp;
    }[] = [
      {
        name: 'truncated store',
        tamper: (d) => (cut(path.join(d, 'adam.db'), 4096), null),
        detail: /adam\.db has 4096 bytes, the manifest says \d+/,
      },
      {
        name: 'truncated store, manifest rewritten to match',
        tamper: (d, m) => (cut(path.join(d, 'adam.db'), 8192), rehash(d, m, 'adam.db'), m),
        detail: /adam\.db fails the integrity check/,
      },
      {
        name: 'flipped store byte',
        tamper: (d) => (flip(path.join(d, 'adam.db'), (n) => n >> 1), null),
        detail: /adam\.db does not match its sha256 checksum/,
      },
      {
        name: 'flipped b-tree page type, manifest rewritten',
        tamper: (d, m) => (flip(path.join(d, 'adam.db'), () => 4096), rehash(d, m, 'adam.db'), m),
        detail: /adam\.db fails the integrity check/,
      },
      {
        name: 'flipped index byte',
        tamper: (d, m) => (flip(path.join(d, indexFile(m, '.usearch')), (n) => n >> 1), null),
        detail: /index\/index-\d+\.usearch does not match its sha256 checksum/,
      },
      {
        name: 'truncated index',
        tamper: (d, m) => (cut(path.join(d, indexFile(m, '.keys')), 8), null),
        detail: /index\/index-\d+\.keys has 8 bytes, the manifest says/,
      },
      {
        name: 'truncated index, backup manifest rewritten',
        tamper: (d, m) => {
          const rel = indexFile(m, '.usearch');
          cut(path.join(d, rel), 64);
          rehash(d, m, rel);
          return m;
        },
        detail: /index-\d+\.usearch has 64 bytes, the index manifest says/,
      },
      ...[
        '../adam.db',
        `../../../${outsideName}/canary.txt`,
        '/etc/passwd',
        path.join(goodDir, 'adam.db'),
        'index/../adam.db',
        './adam.db',
        'index\\..\\adam.db',
        'adam.db\u0000',
        '%2e%2e/adam.db',
        'index',
        'manifest.json',
        'other/file.bin',
        'index/sub/file.bin',
      ].map((p) => ({
        name: `manifest path ${JSON.stringify(p)}`,
        tamper: (_d: string, m: Manifest) => {
          m.files.push({ path: p, bytes: 1, sha256: '0'.repeat(64) });
          return m;
        },
        detail: /manifest\.json lists an invalid path/,
      })),
      {
        name: 'store listed is a link to an identical copy outside',
        tamper: (d) => {
          fs.rmSync(path.join(d, 'adam.db'));
          fs.symlinkSync(outsideDb, path.join(d, 'adam.db'));
          return null;
        },
        detail: /adam\.db is a symbolic link/,
      },
      {
        name: 'index folder is a link to an identical copy outside',
        tamper: (d) => {
          fs.rmSync(path.join(d, 'index'), { recursive: true });
          fs.symlinkSync(path.join(outside, 'copy-of-index'), path.join(d, 'index'), 'dir');
          return null;
        },
        detail: /index is a symbolic link/,
      },
      {
        name: 'manifest is a link',
        tamper: (d) => {
          fs.renameSync(
            path.join(d, 'manifest.json'),
            path.join(outside, `manifest-${path.basename(d)}.json`),
          );
          fs.symlinkSync(
            path.join(outside, `manifest-${path.basename(d)}.json`),
            path.join(d, 'manifest.json'),
          );
          return null;
        },
        detail: /manifest\.json is not a regular file/,
      },
      {
        name: 'unlisted link to the canary',
        tamper: (d) => (
          fs.symlinkSync(path.join(outside, 'canary.txt'), path.join(d, 'index', 'extra')),
          null
        ),
        detail: /index\/extra is a symbolic link/,
      },
      {
        name: 'unlisted file',
        tamper: (d) => (fs.writeFileSync(path.join(d, 'extra.bin'), 'x'), null),
        detail: /holds extra\.bin, which manifest\.json does not list/,
      },
      {
        name: 'unlisted index file',
        tamper: (d) => (fs.writeFileSync(path.join(d, 'index', 'index-99.keys'), ''), null),
        detail: /holds index\/index-99\.keys, which manifest\.json does not list/,
      },
      {
        name: 'duplicate entry',
        tamper: (_d, m) => ({ ...m, files: [...m.files, m.files[0]!] }),
        detail: /lists \S+ twice/,
      },
      ...(
        [
          ['negative count', 'snippets', -1, /counts -1 snippets, adam\.db holds \d+/],
          ['huge count', 'users', 1e308, /counts\.users/],
          ['unsafe integer count', 'jobs', 2 ** 60, /counts\.jobs/],
          ['fractional count', 'rules', 1.5, /counts\.rules/],
          ['count as a string', 'sources', 'NaN', /counts\.sources/],
          ['count off by one', 'snippets', 'plus-one', /counts \d+ snippets, adam\.db holds \d+/],
          ['vectors off by one', 'vectors', 'plus-one', /counts \d+ vectors, its index holds \d+/],
        ] as const
      ).map(([name, field, value, detail]) => ({
        name,
        tamper: (_d: string, m: Manifest) => {
          m.counts[field] = value === 'plus-one' ? (m.counts[field] as number) + 1 : value;
          return m;
        },
        detail,
      })),
      ...(
        [
          ['negative size', -1, /files\.0\.bytes/],
          ['huge size', 1e308, /files\.0\.bytes/],
          ['fractional size', 10.5, /files\.0\.bytes/],
          ['size off by one', 'plus-one', /has \d+ bytes, the manifest says \d+/],
        ] as const
      ).map(([name, value, detail]) => ({
        name,
        tamper: (_d: string, m: Manifest) => {
          const f = m.files[0]!;
          f.bytes = value === 'plus-one' ? (f.bytes as number) + 1 : value;
          return m;
        },
        detail,
      })),
      {
        name: 'schema from the future',
        tamper: (_d, m) => ({ ...m, schema_version: 1e6 }),
        detail: /comes from a newer version/,
      },
      {
        name: 'manifest not JSON',
        tamper: () => '{"format": 1, "files": [',
        detail: /manifest\.json is not valid JSON/,
      },
      {
        name: 'manifest is null',
        tamper: () => 'null',
        detail: /manifest\.json is not a backup manifest/,
      },
      {
        name: 'manifest misses files',
        tamper: (_d, m) => ({ ...m, files: undefined }) as unknown as Manifest,
        detail: /manifest\.json is not a backup manifest \(files/,
      },
      {
        name: 'manifest lists nothing',
        tamper: (_d, m) => ({ ...m, files: [] }),
        detail: /manifest\.json is not a backup manifest \(files/,
      },
      {
        name: 'manifest without the store',
        tamper: (_d, m) => ({ ...m, files: m.files.filter((f) => f.path !== 'adam.db') }),
        detail: /lists no adam\.db|does not list/,
      },
      {
        name: 'manifest of another backup',
        tamper: (_d, m) => ({ ...m, id: '20000101-000000-000' }),
        detail: /manifest\.json names backup 20000101-000000-000/,
      },
      {
        name: 'manifest of 2 MB',
        tamper: (_d, m) => ({ ...m, padding: 'x'.repeat(2 * 1048576) }),
        detail: /too many for a manifest/,
      },
      {
        name: 'manifest missing',
        tamper: (d) => (fs.rmSync(path.join(d, 'manifest.json')), null),
        detail: /manifest\.json is missing/,
      },
    ];

    let n = 0;
    let changed = 0;
    const failures: string[] = [];
    for (const c of cases) {
      const id = `20300101-000000-${String(++n).padStart(3, '0')}`;
      const dir = path.join(s.dataDir, 'backups', id);
      fs.cpSync(goodDir, dir, { recursive: true });
      const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
      m.id = id;
      const file = path.join(dir, 'manifest.json');
      const wrote = c.tamper(dir, m);
      if (wrote === null) {
        if (fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) {
          const current = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
          fs.writeFileSync(file, JSON.stringify({ ...current, id }));
        }
      } else fs.writeFileSync(file, typeof wrote === 'string' ? wrote : JSON.stringify(wrote));
      const r = await s.api(`${API}/admin/maintenance/restore/${id}`, { method: 'POST', key });
      const problems: string[] = [];
      if (r.status !== 422) problems.push(`answered ${r.status}`);
      if (!c.detail.test(r.body?.detail ?? '')) problems.push(`detail ${JSON.stringify(r.body)}`);
      const diff = diffManifests(liveBefore, live());
      changed += diff.length;
      if (diff.length) problems.push(`live data changed: ${diff.slice(0, 3).join('; ')}`);
      if (problems.length) failures.push(`${c.name}: ${problems.join(', ')}`);
    }
    const snippetsAfter = (await s.api(`${API}/snippets?per_page=500`, { key })).body;
    const settingsAfter = (await s.api(`${API}/admin/settings/processing`, { key })).body;
    const apiSame =
      JSON.stringify(snippetsAfter) === JSON.stringify(snippetsBefore) &&
      JSON.stringify(settingsAfter) === JSON.stringify(settingsBefore);
    if (!apiSame) failures.push('the API shows other snippets or settings');

    // The control: the same backup, untouched under a new id, restores.
    const control = `20300101-000000-${String(++n).padStart(3, '0')}`;
    fs.cpSync(goodDir, path.join(s.dataDir, 'backups', control), { recursive: true });
    const cm = path.join(s.dataDir, 'backups', control, 'manifest.json');
    fs.writeFileSync(
      cm,
      JSON.stringify({ ...JSON.parse(fs.readFileSync(cm, 'utf8')), id: control }),
    );
    const restored = await s.api(`${API}/admin/maintenance/restore/${control}`, {
      method: 'POST',
      key,
    });
    if (restored.status !== 200)
      failures.push(`the untouched copy: ${restored.status} ${JSON.stringify(restored.body)}`);

    report({
      check: 'files: tampered backups refused before the swap',
      runs: cases.length + 1,
      failures: failures.length,
      figure: `${cases.length - failures.length} of ${cases.length} tampered backups refused, ${changed} files or tables changed in the live data; the untouched copy ${restored.status === 200 ? 'restored' : 'refused'}`,
    });
    expect(failures).toEqual([]);
    expect(restored.body.counts.snippets).toBe(ids.length);
  });
});
