import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import {
  BACKUP_ID_PATTERN,
  MAX_BACKUP_UPLOAD_BYTES,
  MANUAL_BACKUP_RETENTION,
  SAFETY_BACKUP_RETENTION,
  BackupManifest,
  SETTINGS_SECTIONS,
  type Backup,
  type BackupCheck,
  type BackupCounts,
  type BackupFile,
  type BackupVerification,
  type BackupReason,
  type ComponentHealth,
  type GeneralSettings,
  type RestoreResult,
} from '@adam/contracts';
import {
  AppError,
  Conflict,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  Unprocessable,
} from '../lib/errors.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import { ActivityRepository } from '../store/activity.repository.js';
import { migrate, type Db } from '../store/db.js';
import { IdFloorRepository, type IdFloors } from '../store/id-floor.repository.js';
import { JobRepository } from '../store/job.repository.js';
import { migrations } from '../store/migrations/index.js';
import {
  integrityProblems,
  schemaVersionOf,
  tableCounts,
  useRollbackJournal,
  withStoreFile,
} from '../store/store-file.js';
import { freeBytes as freeBytesOf } from '../lib/free-bytes.js';
import { startPool } from '../vector/recall.js';
import { replaceDataFrom } from '../store/store-swap.js';
import { fsyncDir, fsyncFile, writeFileAtomic } from '../vector/atomic-file.js';
import { prepareInstall, readIndexManifest } from '../vector/index-files.js';
import { backupArchive, extractBackupArchive } from './backup-archive.js';
import { AutoBackupScheduler } from './backup-scheduler.js';
import type { StoreCheckResult, StoreCheckTask } from './backup/check-store.worker.js';
import {
  inodeKey,
  knownFiles,
  linkIndexSnapshot,
  sha256File,
  type SharedWrite,
} from './backup/shared-files.js';
import type { IndexUpkeep } from './index.service.js';

const DB_FILE = 'adam.db';
const MANIFEST = 'manifest.json';
const INDEX_DIR = 'index';
/** Scratch space of a restore, cleared at start: never listed, never a backup. */
const RESTORE_SCRATCH = '.restore';
/** A manifest lists a handful of files: anything this large is not one, and is not read. */
const MAX_MANIFEST_BYTES = 1048576;
/** Manual and safety backups kept; the auto ones follow the general settings (retention). */
const FIXED_RETENTION: Record<Exclude<BackupReason, 'auto'>, number> = {
  manual: MANUAL_BACKUP_RETENTION,
  safety: SAFETY_BACKUP_RETENTION,
};
const DAY_MS = 86_400_000;

const RESTORE_RETRY_AFTER_SECONDS = 5;
/** How long a restore waits for what it pauses (a cancelled job stopping, a write ending). */
const PAUSE_TIMEOUT_MS = 30_000;
/** Room an upload leaves free beside itself, so the store and the index can still write. */
export const UPLOAD_DISK_RESERVE_BYTES = 64 * 1048576;
/** The error of a job a restore found processing in the backup: its work cannot resume. */
const INTERRUPTED_BY_RESTORE = 'interrupted by restore';

/** A call refused because a restore is replacing the data: 409, to be retried shortly. */
export class RestoreRunning extends AppError {
  constructor() {
    super(409, 'A restore is running: try again in a moment', undefined, {
      'retry-after': String(RESTORE_RETRY_AFTER_SECONDS),
    });
  }
}

/** 507: the upload would leave the disk of the backups without the room the data needs. */
class NoRoomForUpload extends AppError {
  constructor(what: string, free: number, dir: string) {
    const mb = (n: number) => Math.round(n / 1048576);
    super(
      507,
      `Not enough free disk space for this backup upload: ${what}, and the disk of ${dir} has ` +
        `${mb(free)} MB free, of which ${mb(UPLOAD_DISK_RESERVE_BYTES)} MB stay for the data: ` +
        'free some space (delete old backups) and try again',
    );
  }
}

/**
 * Something that must stand still while a restore replaces the data: the job queue (no job
 * starts or records results), the HTTP writes under way. `pause` stops new work at once (in the
 * same synchronous step) and resolves when what was under way has ended; `resume` after the
 * restore, `restored` telling whether the data was replaced.
 */
export interface RestoreParticipant {
  what: string;
  pause(): Promise<void> | void;
  resume(restored: boolean): Promise<void> | void;
}

interface BackupServiceDeps {
  db: Db;
  dataDir: string;
  index: IndexUpkeep;
  log: Logger;
  bus: EventBus;
  settings: () => GeneralSettings;
  version: string;
  /** The live index directory (default `<dataDir>/index`). */
  indexDir?: string;
  /** Length of the settings' minutes in ms (auto backups); tests shrink it to watch them run. */
  minutesToMs?: (minutes: number) => number;
  /** The largest upload accepted (default MAX_BACKUP_UPLOAD_BYTES); tests lower it. */
  maxUploadBytes?: number;
  now?: () => number;
  /**
   * Work a restore must not run under (jobs writing snippets): answers what is running, or
   * null. Their rows and vectors would land in the restored data under reused ids.
   */
  busyWith?: () => string | null;
  /** Free bytes on the backups' file system (default statfs); tests make the disk small. */
  freeBytes?: (dir: string) => number | null;
}

/**
 * Consistent snapshots of the store and the vector index in `<data>/backups/<id>/`, their
 * listing and verified restore. One backup or restore at a time. The auto-backup timer is its
 * own AutoBackupScheduler; start(), close() and health() still drive it from here.
 */
export class BackupService {
  private readonly root: string;
  private readonly indexDir: string;
  private readonly now: () => number;
  private readonly scheduler: AutoBackupScheduler;
  private busy: 'backup' | 'restore' | null = null;
  /** The backup a restore reads, while it runs: it cannot be deleted. */
  private restoring: string | null = null;
  /** Downloads and verifications under way, by backup id: it cannot be deleted meanwhile. */
  private readonly readers = new Map<string, number>();
  private uploading = false;
  private readonly participants: RestoreParticipant[] = [];
  private current: Promise<unknown> | null = null;
  private closed = false;
  /** What the newest backup taken here wrote and shared (for the bench and the log). */
  lastWrite: SharedWrite | null = null;

  constructor(private readonly deps: BackupServiceDeps) {
    this.root = path.join(deps.dataDir, 'backups');
    this.indexDir = deps.indexDir ?? path.join(deps.dataDir, INDEX_DIR);
    this.now = deps.now ?? Date.now;
    this.scheduler = new AutoBackupScheduler({
      backups: this,
      bus: deps.bus,
      settings: deps.settings,
      minutesToMs: deps.minutesToMs,
      now: this.now,
    });
  }

  /** `p` is paused before each restore replaces the data (one after the other, in registration order) and resumed after. */
  holdDuringRestore(p: RestoreParticipant): void {
    this.participants.push(p);
  }

  /** What runs now, a backup or a restore, or null. */
  get running(): 'backup' | 'restore' | null {
    return this.busy;
  }

  // ---------------------------------------------------------------- create

  /** Takes a backup; 409 while another backup or a restore runs. */
  create(reason: BackupReason = 'manual'): Promise<Backup> {
    return this.exclusive('backup', () => this.createNow(reason));
  }

  private async createNow(reason: BackupReason, keep?: string): Promise<Backup> {
    // A fresh data dir has no index folder until the index is opened: not a missing index.
    await this.deps.index.ready.catch(() => undefined);
    this.refuseWhileIndexRebuilds();
    fs.mkdirSync(this.root, { recursive: true });
    const { id, at } = this.newId();
    const tmp = path.join(this.root, `${id}.tmp`);
    const final = path.join(this.root, id);
    fs.mkdirSync(path.join(tmp, INDEX_DIR), { recursive: true });
    try {
      // The index first: saved (on the index's thread), then its manifest read and the files it
      // names linked in one synchronous step. Rows written while the store is copied below are
      // in the db and not in this index: restore's reconcile indexes them.
      try {
        await this.deps.index.saveIfDirty();
      } catch (e) {
        this.refuseWhileIndexRebuilds(); // the save found the folder gone
        throw e;
      }
      // The live generation's files are linked, not copied (backup/shared-files.ts).
      const index = linkIndexSnapshot(this.indexDir, path.join(tmp, INDEX_DIR));
      const vectors = index.vectors;

      // The online backup API, a hundred pages a step with the event loop free in between. The
      // store is copied whole: it changes between any two backups (each one is recorded in the
      // activity feed and the logs), so there is no earlier copy to share.
      const dbFile = path.join(tmp, DB_FILE);
      await this.deps.db.backup(dbFile);
      const { counts, schemaVersion } = withStoreFile(dbFile, (snap) => {
        // A self-contained file: no -wal beside it, so its checksum is the whole truth.
        useRollbackJournal(snap);
        const counts: BackupCounts = { ...tableCounts(snap), vectors };
        return { counts, schemaVersion: schemaVersionOf(snap) };
      });

      // A file linked again keeps the checksum an earlier backup's manifest verified for it.
      const known = knownFiles(this.earlierBackups());
      const write: SharedWrite = { written: index.written, shared: index.shared };
      const files: BackupFile[] = [];
      for (const rel of [DB_FILE, ...listFiles(tmp, INDEX_DIR)]) {
        const file = path.join(tmp, rel);
        const st = fs.statSync(file);
        const same = known.byInode.get(inodeKey(st));
        const sha256 = same && same.bytes === st.size ? same.sha256 : await sha256File(file);
        if (rel === DB_FILE) write.written += st.size;
        if (st.nlink === 1) fsyncFile(file); // a link's data is on disk already
        files.push({ path: rel, bytes: st.size, sha256 });
      }
      const manifest: BackupManifest = {
        format: 1,
        id,
        created_at: new Date(at).toISOString(),
        reason,
        app_version: this.deps.version,
        schema_version: schemaVersion,
        counts,
        files,
      };
      writeFileAtomic(path.join(tmp, MANIFEST), JSON.stringify(manifest, null, 2));
      fsyncDir(path.join(tmp, INDEX_DIR));
      fsyncDir(tmp);
      // Only a finished backup has its final name, so a half-made one never lists.
      fs.renameSync(tmp, final);
      fsyncDir(this.root);
      const entry = toEntry(manifest);
      this.lastWrite = write;
      const mb = (n: number) => Math.round(n / 104857.6) / 10;
      this.deps.log.info(
        { component: 'backup' },
        `Backup ${id} created (${reason}, ${entry.size_mb} MB, ${counts.snippets} snippets, ${counts.vectors} vectors; ` +
          `${mb(write.written)} MB written, ${mb(write.shared)} MB shared with the index or earlier backups)`,
      );
      this.deps.bus.emit('backup.created', { id, reason, size_mb: entry.size_mb });
      // Only its own kind: a restore's safety backup must not push out the operator's manual ones.
      this.prune(reason, keep);
      return entry;
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      this.deps.log.error({ component: 'backup', err: e }, `Backup ${id} failed`);
      throw e;
    }
  }

  /**
   * 503 while the index's folder is gone or being rebuilt from the store: a backup then would
   * hold no vectors, or some of them. A folder gone that the watch has not seen yet is looked
   * at now, so the repair starts without waiting for its timer.
   */
  private refuseWhileIndexRebuilds(): void {
    const { details } = this.deps.index.health();
    const repair = (details as { repair?: { cause?: string } } | undefined)?.repair;
    const gone = !fs.existsSync(this.indexDir);
    if (gone && !repair) void this.deps.index.watch().catch(() => undefined);
    if (gone || repair?.cause === 'index_files') {
      throw new ServiceUnavailable(
        `The vector index in ${this.indexDir} is being rebuilt from the store: ` +
          'try the backup again once /health shows the index healthy',
        30,
      );
    }
  }

  private newId(): { id: string; at: number } {
    let at = this.now();
    for (;;) {
      const id = formatId(at);
      if (
        !fs.existsSync(path.join(this.root, id)) &&
        !fs.existsSync(path.join(this.root, `${id}.tmp`))
      )
        return { id, at };
      at++;
    }
  }

  /** The complete backups here with their manifests' files, newest first. */
  private earlierBackups(): { dir: string; files: BackupFile[] }[] {
    const out: { dir: string; files: BackupFile[] }[] = [];
    for (const b of this.list()) {
      const dir = path.join(this.root, b.id);
      const m = readManifest(dir);
      // Only what a verify would accept: a hand-edited manifest may list any path.
      if (m.ok && m.manifest.id === b.id)
        out.push({ dir, files: m.manifest.files.filter((f) => isBackupPath(f.path)) });
    }
    return out;
  }

  // ---------------------------------------------------------------- list

  /** Complete backups (manifest present and valid), newest first. */
  list(): Backup[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.root);
    } catch {
      return [];
    }
    const out: Backup[] = [];
    for (const name of names) {
      if (!BACKUP_ID_PATTERN.test(name) || !isRealDir(path.join(this.root, name))) continue;
      const m = readManifest(path.join(this.root, name));
      if (m.ok && m.manifest.id === name) out.push(toEntry(m.manifest));
    }
    return out.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  /**
   * Keeps the newest MANUAL_BACKUP_RETENTION manual or SAFETY_BACKUP_RETENTION safety backups
   * (those of `reason`), and `keep` (the backup a restore is about to read); auto backups follow
   * the general settings' retention (applyRetention).
   */
  prune(reason: BackupReason, keep?: string): string[] {
    if (reason === 'auto') return this.applyRetention();
    const old = this.list()
      .filter((b) => b.reason === reason)
      .slice(FIXED_RETENTION[reason])
      .map((b) => b.id)
      .filter((id) => id !== keep);
    return this.deleteOld(old);
  }

  /**
   * The auto backups past the general settings' retention deleted: beyond the newest
   * `backup_retention_count`, and older than `backup_retention_days` (0: no age limit). The
   * newest auto backup is always kept, so turning auto backups off never leaves none. Run after
   * each auto backup, when the general settings change, and by housekeeping.
   */
  applyRetention(): string[] {
    const { backup_retention_count: count, backup_retention_days: days } = this.deps.settings();
    const autos = this.list().filter((b) => b.reason === 'auto');
    const cutoff = days > 0 ? this.now() - days * DAY_MS : null;
    const old = autos
      .filter(
        (b, i) => i >= count || (i > 0 && cutoff !== null && Date.parse(b.created_at) < cutoff),
      )
      .map((b) => b.id)
      // One being restored, downloaded or verified waits for the next round.
      .filter((id) => id !== this.restoring && !this.readers.has(id));
    return this.deleteOld(old);
  }

  private deleteOld(ids: string[]): string[] {
    for (const id of ids) this.removeDir(id);
    if (ids.length) {
      this.deps.log.info(
        { component: 'backup' },
        `Deleted ${ids.length} old backup(s): ${ids.join(', ')}`,
      );
    }
    return ids;
  }

  /** Renamed out of the listing first (one step), then removed: never seen half-deleted. */
  private removeDir(id: string): void {
    const dir = path.join(this.root, id);
    const doomed = path.join(this.root, `${id}.deleting.tmp`);
    fs.rmSync(doomed, { recursive: true, force: true });
    fs.renameSync(dir, doomed);
    fs.rmSync(doomed, { recursive: true, force: true });
  }

  // ---------------------------------------------------------------- delete, download, verify, upload

  /**
   * Deletes a backup, a safety one included; 409 while it is being restored, downloaded or
   * verified (or, under its id, written).
   */
  remove(rawId: string): void {
    if (BACKUP_ID_PATTERN.test(rawId) && fs.existsSync(path.join(this.root, `${rawId}.tmp`)))
      throw new Conflict(`Backup ${rawId} is being written: delete it once it is done`);
    this.backupDir(rawId);
    if (this.restoring === rawId)
      throw new Conflict(`Backup ${rawId} is being restored: delete it once the restore ends`);
    if (this.readers.has(rawId))
      throw new Conflict(
        `Backup ${rawId} is being downloaded or verified: delete it once that ends`,
      );
    this.removeDir(rawId);
    this.deps.log.info({ component: 'backup' }, `Backup ${rawId} deleted`);
  }

  /**
   * The backup as a tar archive, streamed from its files (never built in memory): its manifest
   * and the files it lists, under `<id>/`. 422 when its manifest cannot be read. The backup
   * cannot be deleted until the stream ends.
   */
  download(rawId: string): { stream: Readable; filename: string; bytes: number } {
    const dir = this.backupDir(rawId);
    const read = readManifest(dir);
    if (!read.ok) throw new Unprocessable(`Backup ${rawId} is damaged: ${read.problem}`);
    const files = [MANIFEST, ...read.manifest.files.map((f) => f.path)];
    for (const rel of files) {
      if (rel !== MANIFEST && !isBackupPath(rel))
        throw new Unprocessable(`Backup ${rawId} is damaged: ${MANIFEST} lists ${rel}`);
      if (!fs.lstatSync(path.join(dir, rel), { throwIfNoEntry: false })?.isFile())
        throw new Unprocessable(`Backup ${rawId} is damaged: ${rel} is missing`);
    }
    const release = this.holdReader(rawId);
    const stream = backupArchive(dir, rawId, files);
    stream.once('close', release);
    return { stream, filename: `adam-backup-${rawId}.tar`, bytes: archiveBytes(dir, files) };
  }

  /** Runs a restore's checks on a backup without restoring it: what passed and what failed. */
  async verify(rawId: string): Promise<BackupVerification> {
    const dir = this.backupDir(rawId);
    const release = this.holdReader(rawId);
    try {
      const checks = await this.check(rawId, dir);
      return {
        id: rawId,
        ok: checks.every((c) => c.ok),
        checked_at: new Date(this.now()).toISOString(),
        checks,
      };
    } finally {
      release();
    }
  }

  /**
   * Takes a backup archive (as downloadWritten by `download`), written to disk as it arrives
   * (413 past the bound, before or while it arrives), and lists it only once it passed every
   * check a restore runs; otherwise it is deleted and answered 422 with what was wrong. 409 for
   * an id already here or while another upload runs.
   */
  async upload(body: Readable, contentLength?: number): Promise<Backup> {
    const max = this.deps.maxUploadBytes ?? MAX_BACKUP_UPLOAD_BYTES;
    if (contentLength !== undefined && contentLength > max) {
      body.resume(); // answered at once; what the client still sends is thrown away
      throw new PayloadTooLarge(
        `The backup archive has ${contentLength} bytes, more than the ${max} allowed`,
      );
    }
    if (this.uploading) {
      body.resume();
      throw new Conflict('Another backup upload is running: try again when it ends');
    }
    if (this.closed) throw new Conflict('The server is shutting down');
    fs.mkdirSync(this.root, { recursive: true });
    // Checked before a byte is written (statfs), and again as it arrives when the length is
    // not declared: an upload never fills the disk the store and the index write to.
    const free = (this.deps.freeBytes ?? freeBytesOf)(this.root);
    const room = free === null ? undefined : Math.max(0, free - UPLOAD_DISK_RESERVE_BYTES);
    if (room !== undefined && contentLength !== undefined && contentLength > room) {
      body.resume();
      throw new NoRoomForUpload(`the archive has ${contentLength} bytes`, free!, this.root);
    }
    this.uploading = true;
    // A .tmp name: never listed, cleared at the next start if the server stops meanwhile.
    const tmp = path.join(this.root, `upload-${randomBytes(6).toString('hex')}.tmp`);
    fs.mkdirSync(tmp);
    try {
      let extracted;
      try {
        extracted = await extractBackupArchive(body, tmp, max, {
          topProblem: (name) =>
            BACKUP_ID_PATTERN.test(name) ? null : 'its top folder is not named as a backup id',
          fileProblem: (rel) =>
            rel === MANIFEST || isBackupPath(rel) ? null : 'a backup holds no such file',
          dirs: [INDEX_DIR],
          ...(room !== undefined && {
            room: {
              bytes: room,
              refuse: (total: number) =>
                new NoRoomForUpload(`more than ${total} bytes arrived`, free!, this.root),
            },
          }),
        });
      } catch (e) {
        body.resume();
        throw e;
      }
      const id = extracted.top;
      if (fs.existsSync(path.join(this.root, id)))
        throw new Conflict(`Backup ${id} is already here: delete it first to upload it again`);
      const checks = await this.check(id, tmp);
      const failed = checks.filter((c) => !c.ok);
      if (failed.length) {
        throw new Unprocessable(
          `Backup ${id} was refused: ${failed.map((c) => `${c.name}: ${c.detail}`).join('; ')}`,
        );
      }
      const final = path.join(this.root, id);
      if (fs.existsSync(final))
        throw new Conflict(`Backup ${id} is already here: delete it first to upload it again`);
      fsyncDir(tmp);
      fs.renameSync(tmp, final);
      fsyncDir(this.root);
      const read = readManifest(final);
      if (!read.ok) throw new Unprocessable(`Backup ${id} is damaged: ${read.problem}`);
      const entry = toEntry(read.manifest);
      this.deps.log.info(
        { component: 'backup' },
        `Backup ${id} uploaded (${entry.reason}, ${entry.size_mb} MB, ${entry.counts.snippets} snippets)`,
      );
      this.deps.bus.emit('backup.created', { id, reason: entry.reason, size_mb: entry.size_mb });
      return entry;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
      this.uploading = false;
    }
  }

  private holdReader(id: string): () => void {
    this.readers.set(id, (this.readers.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.readers.get(id) ?? 1) - 1;
      if (n > 0) this.readers.set(id, n);
      else this.readers.delete(id);
    };
  }

  /**
   * The checks of a backup in `dir` (named `id`), in order, each stopping the ones after it:
   * the manifest (readable, naming this id, listing only a backup's files and nothing else in
   * the folder), the files (present, of the listed sizes), their checksums, the store (SQLite's
   * integrity check, its counts and schema), the index (loadable, holding the listed vectors).
   */
  private async check(id: string, dir: string): Promise<BackupCheck[]> {
    const checks: BackupCheck[] = [];
    const pass = (name: BackupCheck['name'], detail: string) =>
      checks.push({ name, ok: true, detail });
    const fail = (name: BackupCheck['name'], detail: string) => {
      checks.push({ name, ok: false, detail });
      return checks;
    };

    const read = readManifest(dir);
    if (!read.ok) return fail('manifest', read.problem);
    const m = read.manifest;
    if (m.id !== id) return fail('manifest', `${MANIFEST} names backup ${m.id}, not ${id}`);
    if (!m.files.some((f) => f.path === DB_FILE))
      return fail('manifest', `${MANIFEST} lists no ${DB_FILE}`);
    const listed = new Set<string>();
    for (const f of m.files) {
      if (!isBackupPath(f.path))
        return fail('manifest', `${MANIFEST} lists an invalid path ${JSON.stringify(f.path)}`);
      if (listed.has(f.path)) return fail('manifest', `${MANIFEST} lists ${f.path} twice`);
      listed.add(f.path);
    }
    const unlisted = linkOrUnlisted(dir, listed);
    if (unlisted) return fail('manifest', unlisted);
    pass('manifest', `${m.files.length} files listed, ${m.reason} backup of ${m.created_at}`);

    for (const f of m.files) {
      const st = fs.lstatSync(path.join(dir, f.path), { throwIfNoEntry: false });
      if (!st?.isFile()) return fail('files', `${f.path} is missing`);
      if (st.size !== f.bytes)
        return fail('files', `${f.path} has ${st.size} bytes, the manifest says ${f.bytes}`);
    }
    pass('files', `all ${m.files.length} files present, of the listed sizes`);

    for (const f of m.files) {
      if ((await sha256File(path.join(dir, f.path))) !== f.sha256)
        return fail('checksums', `${f.path} does not match its sha256 checksum`);
    }
    pass('checksums', 'every file matches its sha256 checksum');

    const running = schemaVersionOf(this.deps.db);
    const store = await checkStoreOffThread(path.join(dir, DB_FILE));
    if (!store.ok) return fail('store', `${DB_FILE} cannot be read as a store: ${store.error}`);
    if (store.problems.length)
      return fail(
        'store',
        `${DB_FILE} fails the integrity check: ${store.problems.slice(0, 3).join('; ')}`,
      );
    if (store.schema > running || m.schema_version > running)
      return fail(
        'store',
        `it comes from a newer version (schema ${Math.max(store.schema, m.schema_version)}, this server has ${running})`,
      );
    for (const [what, n] of Object.entries(store.counts) as [keyof typeof store.counts, number][]) {
      if (m.counts[what] !== n)
        return fail('store', `${MANIFEST} counts ${m.counts[what]} ${what}, ${DB_FILE} holds ${n}`);
    }
    pass('store', `integrity ok, schema ${store.schema}, ${store.counts.snippets} snippets`);

    const indexDir = path.join(dir, INDEX_DIR);
    const indexFiles = m.files.filter((f) => f.path.startsWith(`${INDEX_DIR}/`));
    if (indexFiles.length === 0) {
      if (m.counts.vectors !== 0)
        return fail(
          'index',
          `${MANIFEST} counts ${m.counts.vectors} vectors and lists no index file`,
        );
      pass('index', 'no index files (an empty index)');
      return checks;
    }
    const problem = await this.deps.index.checkFiles(indexDir);
    if (problem) return fail('index', `${INDEX_DIR}/${problem}`);
    const vectors = readIndexManifest(indexDir)?.count ?? 0;
    if (vectors !== m.counts.vectors)
      return fail(
        'index',
        `${MANIFEST} counts ${m.counts.vectors} vectors, its index holds ${vectors}`,
      );
    pass('index', `loadable, ${vectors} vectors`);
    return checks;
  }

  // ---------------------------------------------------------------- restore

  /**
   * Verifies the backup and then replaces the data with it. Nothing changes when verification
   * fails (422 naming the file and the problem): the files' checksums, the store's integrity,
   * and the index checked as a load would check it. The store and the index are then swapped
   * as one step: the index's manifest is renamed in as the last statement of the store's
   * transaction, and put back if the transaction fails.
   */
  async restore(rawId: string): Promise<RestoreResult> {
    const dir = this.backupDir(rawId);
    return this.exclusive('restore', async () => {
      const paused: RestoreParticipant[] = [];
      let restored = false;
      this.restoring = rawId;
      try {
        // In registration order, each checked and paused in one synchronous step: no job
        // starts in between. The writes under way end first, so a call waiting for its job
        // (save-segments) is not held up by a queue already paused.
        for (const p of this.participants) {
          this.refuseIfBusy();
          paused.push(p);
          await this.pausedOrRefuse(p, p.pause());
        }
        // Again: a job a worker took just before the pause is told to the server meanwhile.
        this.refuseIfBusy();
        const result = await this.restoreNow(rawId, dir);
        restored = true;
        return result;
      } finally {
        this.restoring = null;
        for (const p of paused) {
          await Promise.resolve()
            .then(() => p.resume(restored))
            .catch((e: unknown) =>
              this.deps.log.error(
                { component: 'backup', err: e },
                `Resuming ${p.what} after the restore failed`,
              ),
            );
        }
      }
    });
  }

  private refuseIfBusy(): void {
    const work = this.deps.busyWith?.();
    if (work) throw new Conflict(`Cannot restore while ${work}: wait for them or cancel them`);
  }

  /** Waits for `p` to stand still; 409 if it does not within PAUSE_TIMEOUT_MS. */
  private async pausedOrRefuse(
    p: RestoreParticipant,
    pausing: Promise<void> | void,
  ): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), PAUSE_TIMEOUT_MS);
      timer.unref();
    });
    try {
      if ((await Promise.race([Promise.resolve(pausing), late])) === 'late') {
        throw new AppError(
          409,
          `Cannot restore while ${p.what} are still under way: try again in a moment`,
          undefined,
          { 'retry-after': String(RESTORE_RETRY_AFTER_SECONDS) },
        );
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private async restoreNow(id: string, dir: string): Promise<RestoreResult> {
    const manifest = await this.verifyFiles(id, dir);
    // After the check (a damaged backup changes nothing, so needs no undo) and before anything
    // is replaced: the data as it is now, listed as 'safety', so this restore can be undone.
    const safety = await this.createNow('safety', id);
    const scratch = path.join(this.root, RESTORE_SCRATCH);
    fs.rmSync(scratch, { recursive: true, force: true });
    const staged = path.join(scratch, INDEX_DIR);
    fs.mkdirSync(staged, { recursive: true });
    let interrupted: number[] = [];
    try {
      const copy = path.join(scratch, DB_FILE);
      await fs.promises.copyFile(path.join(dir, DB_FILE), copy);
      const unfinished = this.prepareCopy(id, copy, manifest.counts);
      for (const f of manifest.files) {
        if (!f.path.startsWith(`${INDEX_DIR}/`)) continue;
        await fs.promises.copyFile(path.join(dir, f.path), path.join(scratch, f.path));
      }
      // usearch's loader aborts the process on a damaged file: the copy is proved first.
      const problem = await this.deps.index.checkFiles(staged);
      if (problem) throw new Unprocessable(`Backup ${id} is damaged: ${INDEX_DIR}/${problem}`);
      const vectors = readIndexManifest(staged)?.count ?? 0;
      if (vectors !== manifest.counts.vectors) {
        throw new Unprocessable(
          `Backup ${id} is damaged: ${MANIFEST} counts ${manifest.counts.vectors} vectors, its index holds ${vectors}`,
        );
      }

      const install = await this.deps.index.replaceFiles(() => {
        const prepared = prepareInstall(staged, this.indexDir);
        try {
          // Read in the same synchronous step as the swap: nothing is written in between.
          const before = this.jobsBefore(unfinished);
          // The index's manifest goes in as the store transaction's last step.
          replaceDataFrom(this.deps.db, copy, (broken) => {
            if (broken.length) {
              const tables = [...new Set(broken.map((b) => b.table))].join(', ');
              throw new Unprocessable(
                `Backup is inconsistent: ${broken.length} foreign key violation(s) in ${tables}`,
              );
            }
            interrupted = this.settleJobs(before);
            prepared.commit();
          });
        } catch (e) {
          prepared.rollback();
          throw e;
        }
        return prepared;
      });
      install.cleanup();
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }

    for (const jobId of interrupted)
      this.deps.bus.emit('job_failed', { job_id: jobId, error: INTERRUPTED_BY_RESTORE });
    const reconcile = await this.deps.index.reconcile();
    for (const section of SETTINGS_SECTIONS) this.deps.bus.emit('settings.updated', { section });
    const counts = { ...tableCounts(this.deps.db), vectors: this.deps.index.size };
    this.deps.log.warn(
      { component: 'backup' },
      `Restored backup ${id} of ${manifest.created_at}: ${counts.snippets} snippets, ${counts.vectors} vectors, ` +
        `${reconcile.reindexed} re-indexed, ${reconcile.index_only} index-only` +
        (interrupted.length
          ? `; job(s) ${interrupted.join(', ')} were processing in the backup: ended ${INTERRUPTED_BY_RESTORE}`
          : ''),
    );
    this.deps.bus.emit('backup.restored', { id, snippets: counts.snippets });
    return {
      id,
      restored_at: new Date().toISOString(),
      counts,
      reconcile,
      safety_backup: safety.id,
    };
  }

  /** Checks the manifest and every file it lists; answers the manifest. */
  private async verifyFiles(id: string, dir: string): Promise<BackupManifest> {
    const damaged = (problem: string) => new Unprocessable(`Backup ${id} is damaged: ${problem}`);
    const read = readManifest(dir);
    if (!read.ok) throw damaged(read.problem);
    const m = read.manifest;
    if (m.id !== id) throw damaged(`${MANIFEST} names backup ${m.id}`);
    if (!m.files.some((f) => f.path === DB_FILE)) throw damaged(`${MANIFEST} lists no ${DB_FILE}`);
    const listed = new Set<string>();
    for (const f of m.files) {
      if (!isBackupPath(f.path))
        throw damaged(`${MANIFEST} lists an invalid path ${JSON.stringify(f.path)}`);
      if (listed.has(f.path)) throw damaged(`${MANIFEST} lists ${f.path} twice`);
      listed.add(f.path);
    }
    // Nothing is read through a link (it could point anywhere), and a backup holds exactly
    // what its manifest lists: anything else was put there by hand.
    const unlisted = linkOrUnlisted(dir, listed);
    if (unlisted) throw damaged(unlisted);
    for (const f of m.files) {
      const file = path.join(dir, f.path);
      const st = fs.lstatSync(file, { throwIfNoEntry: false });
      if (!st?.isFile()) throw damaged(`${f.path} is missing`);
      if (st.size !== f.bytes)
        throw damaged(`${f.path} has ${st.size} bytes, the manifest says ${f.bytes}`);
      if ((await sha256File(file)) !== f.sha256)
        throw damaged(`${f.path} does not match its sha256 checksum`);
    }
    const running = schemaVersionOf(this.deps.db);
    if (m.schema_version > running) {
      throw new Unprocessable(
        `Backup ${id} comes from a newer version (schema ${m.schema_version}, this server has ${running})`,
      );
    }
    return m;
  }

  /** What the live store says before the swap about the jobs of the backup and the ids given. */
  private jobsBefore(unfinished: number[]): JobsBefore {
    return {
      floors: new IdFloorRepository(this.deps.db).highest(),
      cancelled: new JobRepository(this.deps.db).listCancelledAmong(unfinished),
    };
  }

  /**
   * The restored jobs made true to what happened since the backup, inside the swap's
   * transaction: ids continue above every id given before (a link never opens another job);
   * jobs cancelled since stay cancelled; jobs processing when the backup was taken end failed
   * (their worker is gone and what they recorded after it is not restored), pending ones run
   * again; feed entries lose their link to jobs that are not restored. Answers the ended jobs.
   */
  private settleJobs(before: JobsBefore): number[] {
    const now = new Date().toISOString();
    const jobs = new JobRepository(this.deps.db);
    new IdFloorRepository(this.deps.db).raise(before.floors);
    jobs.cancelAgain(before.cancelled, now);
    const ended = jobs.failProcessing(INTERRUPTED_BY_RESTORE, now);
    new ActivityRepository(this.deps.db).unlinkMissingJobs();
    return ended;
  }

  /**
   * Integrity check of the copied store and its counts against the manifest's, then brings it
   * to this version's schema. Answers the ids of its jobs not yet ended.
   */
  private prepareCopy(id: string, file: string, expected: BackupCounts): number[] {
    let counted: Omit<BackupCounts, 'vectors'>;
    let unfinished: number[] = [];
    try {
      counted = withStoreFile(file, (copy) => {
        const problems = integrityProblems(copy);
        if (problems.length) throw new Error(problems.slice(0, 3).join('; '));
        if (schemaVersionOf(copy) > schemaVersionOf(this.deps.db))
          throw new Error('its schema is newer than this server');
        const counts = tableCounts(copy);
        migrate(copy, migrations);
        unfinished = new JobRepository(copy).listUnfinishedIds();
        return counts;
      });
    } catch (e) {
      throw new Unprocessable(
        `Backup ${id} is damaged: ${DB_FILE} fails the integrity check: ${(e as Error).message}`,
      );
    }
    // A backup's counts are taken from its own store file: any other figure was written by hand.
    for (const [what, n] of Object.entries(counted) as [keyof typeof counted, number][]) {
      if (expected[what] !== n) {
        throw new Unprocessable(
          `Backup ${id} is damaged: ${MANIFEST} counts ${expected[what]} ${what}, ${DB_FILE} holds ${n}`,
        );
      }
    }
    return unfinished;
  }

  /** The directory of a complete backup; 404 for anything else, malformed ids included. */
  private backupDir(rawId: string): string {
    const shown = rawId.length > 60 ? `${rawId.slice(0, 60)}…` : rawId;
    if (!BACKUP_ID_PATTERN.test(rawId)) throw new NotFound('backup', shown);
    const dir = path.join(this.root, rawId);
    // A link in backups/ is no backup of this server's (list() skips it too).
    if (!isRealDir(dir)) throw new NotFound('backup', shown);
    return dir;
  }

  private async exclusive<T>(what: 'backup' | 'restore', fn: () => Promise<T>): Promise<T> {
    if (this.busy) {
      throw new AppError(
        409,
        `A ${this.busy} is already running: try again when it ends`,
        undefined,
        {
          'retry-after': String(RESTORE_RETRY_AFTER_SECONDS),
        },
      );
    }
    if (this.closed) throw new Conflict('The server is shutting down');
    this.busy = what;
    const p = fn();
    this.current = p;
    try {
      return await p;
    } finally {
      this.busy = null;
      this.current = null;
    }
  }

  // ---------------------------------------------------------------- lifecycle

  /** Clears what an interrupted backup or restore left, then starts the auto-backup timer. */
  start(): void {
    this.clearLeftovers();
    this.scheduler.start();
  }

  /** Half-made backups (`<id>.tmp`) and a restore's scratch: never listed, never resumed. */
  clearLeftovers(): void {
    for (const name of safeReaddir(this.root)) {
      if (name.endsWith('.tmp') || name === RESTORE_SCRATCH)
        fs.rmSync(path.join(this.root, name), { recursive: true, force: true });
    }
  }

  /** Stops the timer and waits for a running backup or restore. */
  async close(): Promise<void> {
    this.closed = true;
    this.scheduler.close();
    await this.current?.catch(() => undefined);
  }

  /** The `backups` component of /health. */
  health(): ComponentHealth {
    return this.scheduler.health();
  }
}

// ---------------------------------------------------------------- helpers

/** The store check of a verify or an upload, on a one-off thread (backup/check-store.worker.ts). */
async function checkStoreOffThread(dbFile: string): Promise<StoreCheckResult> {
  const pool = startPool('../services/backup/check-store.worker');
  try {
    const task: StoreCheckTask = { dbFile };
    return (await pool.run(task)) as StoreCheckResult;
  } finally {
    await pool.close();
  }
}

interface JobsBefore {
  floors: IdFloors;
  cancelled: { id: number; cancelled_at: string | null }[];
}

function formatId(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return (
    `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-` +
    `${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}-${p(d.getUTCMilliseconds(), 3)}`
  );
}

function toEntry(m: BackupManifest): Backup {
  const bytes = m.files.reduce((n, f) => n + f.bytes, 0);
  return {
    id: m.id,
    created_at: m.created_at,
    size_mb: Math.round((bytes / 1048576) * 1000) / 1000,
    reason: m.reason,
    counts: m.counts,
  };
}

type ManifestRead = { ok: true; manifest: BackupManifest } | { ok: false; problem: string };

function readManifest(dir: string): ManifestRead {
  const file = path.join(dir, MANIFEST);
  const st = fs.lstatSync(file, { throwIfNoEntry: false });
  if (!st) return { ok: false, problem: `${MANIFEST} is missing` };
  if (!st.isFile()) return { ok: false, problem: `${MANIFEST} is not a regular file` };
  if (st.size > MAX_MANIFEST_BYTES)
    return { ok: false, problem: `${MANIFEST} has ${st.size} bytes, too many for a manifest` };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { ok: false, problem: `${MANIFEST} is missing` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${MANIFEST} is not valid JSON` };
  }
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return {
      ok: false,
      problem: `${MANIFEST} is not a backup manifest (${first?.path.join('.') || 'root'}: ${first?.message ?? 'invalid'})`,
    };
  }
  return { ok: true, manifest: parsed.data };
}

/**
 * What a backup may list: its store file and the files of its index folder, by plain names (no
 * dot segments, no separators but the one `/`), so nothing resolves outside the backup.
 */
function isBackupPath(p: string): boolean {
  if (p === DB_FILE) return true;
  const [dir, name, ...more] = p.split('/');
  return (
    dir === INDEX_DIR && more.length === 0 && /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/.test(name ?? '')
  );
}

/** A directory itself, not a link to one. */
function isRealDir(p: string): boolean {
  return fs.lstatSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * The first entry of a backup folder that is a link, or that its manifest does not list (the
 * manifest itself and the index folder aside), as a problem to answer; null when none.
 */
function linkOrUnlisted(dir: string, listed: ReadonlySet<string>): string | null {
  const entries = (sub: string) =>
    safeReaddir(path.join(dir, sub))
      .sort()
      .map((n) => (sub ? `${sub}/${n}` : n));
  for (const rel of [
    ...entries(''),
    ...(isRealDir(path.join(dir, INDEX_DIR)) ? entries(INDEX_DIR) : []),
  ]) {
    const st = fs.lstatSync(path.join(dir, rel), { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isSymbolicLink()) return `${rel} is a symbolic link`;
    if (rel === MANIFEST || (rel === INDEX_DIR && st.isDirectory())) continue;
    if (!listed.has(rel)) return `it holds ${rel}, which ${MANIFEST} does not list`;
  }
  return null;
}

/** The exact length of backupArchive's stream of `files` in `dir` (for Content-Length). */
function archiveBytes(dir: string, files: readonly string[]): number {
  const block = 512;
  const dirs = new Set(files.map((f) => path.posix.dirname(f)).filter((d) => d !== '.'));
  let n = block * (1 + dirs.size) + block * 2;
  for (const rel of files) {
    const size = fs.statSync(path.join(dir, rel)).size;
    n += block + Math.ceil(size / block) * block;
  }
  return n;
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** Files under `<base>/<sub>`, as `sub/name` paths. */
function listFiles(base: string, sub: string): string[] {
  return safeReaddir(path.join(base, sub))
    .filter((n) => fs.statSync(path.join(base, sub, n)).isFile())
    .sort()
    .map((n) => `${sub}/${n}`);
}
