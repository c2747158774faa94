/**
 * What a second backup costs once 1% of the snippets changed (issue 28: "backups that cost
 * what changed"), beside the first backup and a plain `cp -r` of the same data in the same run.
 * Not a test: prints figures, asserts nothing.
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/backup-incremental.bench.ts
 *   BACKUP_BENCH_SNIPPETS=20000 npx tsx --conditions=adam-source bench/backup-incremental.bench.ts
 *
 * Data, generated here (never a public dataset): rows of fixture-page sentences
 * (bench/snippet-data.ts), embedded by the built-in embedder and indexed by a rebuild job.
 * The change: 1% of the snippets deleted and as many new ones saved through save-segments (so
 * they are embedded and indexed as an operator's new texts are), then the index saved; the
 * save's time is printed apart, as the backup would otherwise pay it first.
 *
 * "written" is what the backup copied (the store through SQLite's online backup, small files);
 * "shared" what it holds as hard links (the index generation, an unchanged store). "disk" is
 * what the backups folder takes, each inode counted once.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  footer,
  header,
  mib,
  pageSentences,
  removeDir,
  rng,
  seconds,
  sharedModel,
  table,
} from './common.js';
import { indexedBenchApp } from './snippet-data.js';

const SNIPPETS = Number(process.env.BACKUP_BENCH_SNIPPETS ?? 200_000);
const CHANGED_SHARE = 0.01;

/** Bytes under `dir`, each inode once (hard links shared between backups count once). */
function diskBytes(dir: string, seen = new Set<string>()): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) total += diskBytes(p, seen);
    else if (entry.isFile()) {
      const st = fs.statSync(p);
      const key = `${st.dev}:${st.ino}`;
      if (!seen.has(key)) {
        seen.add(key);
        total += st.size;
      }
    }
  }
  return total;
}

header(
  `backup: a first backup and a second after ${CHANGED_SHARE * 100}% of ${SNIPPETS} snippets changed`,
);
const benchStarted = performance.now();
await sharedModel();
const { adam, dir } = await indexedBenchApp('adam-bench-backup-', 41, SNIPPETS);
const copyDir = `${dir}-cp`;
try {
  const { backups, index, snippets, settings } = adam.services;
  // No auto backup may run between the two measured ones (its grace after start is 5 minutes).
  settings.update('general', { auto_backup: false });
  const backupsDir = path.join(dir, 'backups');
  await index.flush();

  // The reference: the store and the index copied whole, as every backup did before.
  const store = ['adam.db', 'adam.db-wal'].filter((f) => fs.existsSync(path.join(dir, f)));
  fs.mkdirSync(copyDir);
  let started = performance.now();
  execFileSync('cp', [
    '-r',
    ...store.map((f) => path.join(dir, f)),
    path.join(dir, 'index'),
    copyDir,
  ]);
  const cpMs = performance.now() - started;
  const cpBytes = diskBytes(copyDir);
  removeDir(copyDir);

  started = performance.now();
  const first = await backups.create('manual');
  const firstMs = performance.now() - started;
  const firstWrite = backups.lastWrite!;
  const firstDisk = diskBytes(backupsDir);

  // 1%: as many snippets deleted as new ones saved (embedded and indexed on the way).
  const target = Math.round(SNIPPETS * CHANGED_SHARE);
  const rand = rng(4141);
  const ids = adam.db.prepare('SELECT id FROM snippets').pluck().all() as number[];
  started = performance.now();
  for (let i = 0; i < target; i++) {
    const at = Math.floor(rand() * ids.length);
    snippets.delete(ids[at]!);
    ids.splice(at, 1);
  }
  const login = await adam.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'admin@example.com', password: 'admin' },
  });
  const key = (login.json() as { api_key: string }).api_key;
  let added = 0;
  for (let page = 100_000; added < target; page++) {
    const text = pageSentences(page).sentences.join(' ');
    const r = await adam.app.inject({
      method: 'POST',
      url: '/api/v1/playground/save-segments',
      headers: { 'x-api-key': key },
      payload: { title: `Changed ${page}`, language: 'en', text, wait: true },
    });
    if (r.statusCode !== 200) throw new Error(`save-segments: ${r.statusCode} ${r.body}`);
    added += (r.json() as { segments_created: number }).segments_created;
  }
  const changeMs = performance.now() - started;
  started = performance.now();
  await index.flush();
  const saveMs = performance.now() - started;

  started = performance.now();
  const second = await backups.create('manual');
  const secondMs = performance.now() - started;
  const secondWrite = backups.lastWrite!;
  const bothDisk = diskBytes(backupsDir);

  console.log(
    `changed: ${target} deleted, ${added} added through save-segments in ${seconds(changeMs)}; index save ${seconds(saveMs)}`,
  );
  console.log(
    `sizes: store ${mib(fs.statSync(path.join(backupsDir, second.id, 'adam.db')).size)}, ` +
      `index ${mib(second.size_mb * 1048576 - fs.statSync(path.join(backupsDir, second.id, 'adam.db')).size)}`,
  );
  table(
    ['run', 'time', 'written', 'shared (links)', 'backups folder on disk'],
    [
      ['cp -r store + index (reference)', seconds(cpMs), mib(cpBytes), '-', '-'],
      [
        'first backup',
        seconds(firstMs),
        mib(firstWrite.written),
        mib(firstWrite.shared),
        mib(firstDisk),
      ],
      [
        `second backup (${CHANGED_SHARE * 100}% changed)`,
        seconds(secondMs),
        mib(secondWrite.written),
        mib(secondWrite.shared),
        `${mib(bothDisk)} (+${mib(bothDisk - firstDisk)})`,
      ],
    ],
  );
  // Where the store's changes fall: the share of its chunks that differ between the two copies
  // (what a chunked, content-addressed store would still write).
  const dbA = fs.readFileSync(path.join(backupsDir, first.id, 'adam.db'));
  const dbB = fs.readFileSync(path.join(backupsDir, second.id, 'adam.db'));
  const changed = [4096, 65536, 1048576].map((size) => {
    let differ = 0;
    const n = Math.ceil(dbB.length / size);
    for (let i = 0; i < n; i++) {
      const a = dbA.subarray(i * size, (i + 1) * size);
      if (!a.equals(dbB.subarray(i * size, (i + 1) * size))) differ++;
    }
    return `${size / 1024} KiB: ${differ} of ${n} (${((100 * differ) / n).toFixed(1)}%)`;
  });
  console.log(`store chunks changed between the two backups, by chunk size: ${changed.join('; ')}`);
  execFileSync('find', [backupsDir, '-type', 'f', '-printf', '%i %n %s %P\n'], {
    stdio: 'inherit',
  });
  // The second backup is a whole backup: it verifies on its own.
  const verified = await backups.verify(second.id);
  console.log(`second backup verified: ${verified.ok ? 'ok' : JSON.stringify(verified.checks)}`);
} finally {
  await adam.app.close();
  removeDir(dir);
  removeDir(copyDir);
}
footer(benchStarted);
