import { createHash, randomUUID, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { HUB_REPO_PATTERN, HUB_REVISION_PATTERN } from '@adam/contracts';
import { FetchError, formatBytes, formatDuration } from '../scraping/fetch-error.js';
import type { SafeFetcher, StreamResult } from '../scraping/safe-fetcher.js';

/**
 * Downloads files of a model repository from a hub in Hugging Face's layout: the listing at
 * `{hub}/api/models/{repo}/revision/{rev}?blobs=true`, the files at
 * `{hub}/{repo}/resolve/{rev}/{path}` (real hubs redirect those to a CDN; the SafeFetcher vets
 * every hop). Files stream to `.part` files in a staging directory, resume with Range requests,
 * are checked against the listing's size and checksum, and reach their directory only complete.
 * A file the listing gives no size or no checksum for is refused: its download would have no
 * bound and its bytes no check.
 */

export interface HubFile {
  path: string;
  /** Bytes, as the listing gives them. */
  size: number | null;
  /** Lower-case hex; the hub lists it for LFS files (the weights), not for small text files. */
  sha256: string | null;
  /**
   * Git's blob id (lower-case hex sha1 of `blob <size>\0` and the contents): the checksum the
   * hub lists for a file kept in git rather than LFS. Null for LFS files (theirs is the pointer's).
   */
  gitBlobId: string | null;
}

export interface DownloadProgress {
  /** The file being downloaded. */
  file: string;
  /** Across every file of the download, resumed bytes included. */
  downloadedBytes: number;
  totalBytes: number;
}

export type HubErrorCode =
  | 'not_found'
  | 'http_error'
  | 'truncated'
  | 'checksum'
  | 'size'
  | 'timeout'
  | 'cancelled'
  | 'blocked'
  | 'invalid'
  | 'unverifiable';

export class HubError extends Error {
  constructor(
    readonly code: HubErrorCode,
    message: string,
    /** The repository file the error is about; null for the repository as a whole. */
    readonly path: string | null = null,
    /** The hub's HTTP status, when it answered one. */
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

export interface HubRepoRef {
  fetcher: SafeFetcher;
  hubUrl: string;
  /** 'owner/name' */
  repo: string;
  /** A branch, tag or commit. */
  revision: string;
  signal?: AbortSignal;
}

export interface DownloadOptions extends HubRepoRef {
  /** Paths in the repository; a missing one fails the download before any byte is fetched. */
  required: readonly string[];
  /** Fetched when the repository has them. */
  optional?: readonly string[];
  /** Created only once every file is complete and verified; replaced if present. */
  destDir: string;
  /** Keeps the .part files between attempts, so that a second call resumes. */
  stagingDir: string;
  /**
   * No byte for this long is a timeout (default 30 s): a hub that hangs. Less than
   * minBytesPerSecond over any window of twice this (short of the file's end) is one too: a
   * hub that trickles a byte now and then, which keeps the idle clock from running out.
   */
  idleTimeoutMs?: number;
  /** The slowest transfer accepted, averaged over twice idleTimeoutMs (default 1 KiB/s). */
  minBytesPerSecond?: number;
  /** One file's cap (default 8 GiB). */
  maxFileBytes?: number;
  /** At most every PROGRESS_INTERVAL_MS per file, at each file's start and end. */
  onProgress?: (p: DownloadProgress) => void;
}

export interface DownloadResult {
  files: { path: string; size: number; sha256: string }[];
  totalBytes: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
/**
 * 30 KiB per 30 s: far below any usable link (a 100 MB model would take a day), far above a
 * hub that keeps a connection alive with a byte every few seconds.
 */
const DEFAULT_MIN_BYTES_PER_SECOND = 1024;
/** The largest ONNX exports of sentence-transformer models are about 1.5 GB; room to spare. */
const DEFAULT_MAX_FILE_BYTES = 8 * 1024 ** 3;
/** Often enough for a live bar, rarely enough not to flood the realtime channel. */
const PROGRESS_INTERVAL_MS = 100;
/** A listing is JSON of a few KB per file; a repository of thousands of files stays under this. */
const LISTING_MAX_BYTES = 16 * 1024 * 1024;
/** Tells which repository and commit the .part files of a staging directory belong to. */
const STAGING_MARKER = '.hub-download.json';

const Listing = z.object({
  sha: z.string().optional(),
  siblings: z.array(
    z.object({
      rfilename: z.string(),
      size: z.number().int().min(0).optional(),
      blobId: z.string().optional(),
      lfs: z
        .object({ sha256: z.string().regex(/^[0-9a-fA-F]{64}$/), size: z.number().int().min(0) })
        .optional(),
    }),
  ),
});

export async function listRepoFiles(opts: HubRepoRef): Promise<HubFile[]> {
  return (await readListing(opts, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MIN_BYTES_PER_SECOND)).files;
}

export async function downloadRepo(opts: DownloadOptions): Promise<DownloadResult> {
  const { repo, revision, signal } = opts;
  const idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const minBytesPerSecond = opts.minBytesPerSecond ?? DEFAULT_MIN_BYTES_PER_SECOND;
  const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const optional = opts.optional ?? [];
  for (const p of [...opts.required, ...optional]) checkRepoPath(p, 'Refused the requested file');
  const destDir = path.resolve(opts.destDir);
  const stagingDir = path.resolve(opts.stagingDir);
  if (isWithin(destDir, stagingDir) || isWithin(stagingDir, destDir)) {
    throw new HubError(
      'invalid',
      `The staging directory ${stagingDir} and the model directory ${destDir} must not contain each other`,
    );
  }
  checkCancelled(signal, repo);

  const listing = await readListing(opts, idleTimeoutMs, minBytesPerSecond);
  const byPath = new Map(listing.files.map((f) => [f.path, f]));
  for (const p of opts.required) {
    if (!byPath.has(p)) {
      throw new HubError(
        'not_found',
        `${p}: not in ${repo} at revision ${revision}, which has ${describeFiles(listing.files)}`,
        p,
      );
    }
  }
  const wanted = [...new Set([...opts.required, ...optional])]
    .map((p) => byPath.get(p))
    .filter((f): f is HubFile => f !== undefined);
  for (const f of wanted) {
    const missing = [f.size === null && 'size', !checksumOf(f) && 'checksum'].filter(Boolean);
    if (missing.length) {
      throw new HubError(
        'unverifiable',
        `The hub lists no ${missing.join(' and no ')} for ${f.path} in ${repo} at revision ${revision}: ` +
          'refusing an unbounded, unverifiable download',
        f.path,
      );
    }
    if (f.size !== null && f.size > maxFileBytes) {
      throw new HubError(
        'size',
        `${f.path}: ${formatBytes(f.size)}, over the ${formatBytes(maxFileBytes)} limit for one file`,
        f.path,
      );
    }
  }

  // The commit, not the branch: a branch that moves between two attempts must not mix files.
  const pinned = listing.commit ?? revision;
  await prepareStaging(stagingDir, { repo, commit: pinned });
  const progress = new Progress(
    wanted.reduce((n, f) => n + (f.size ?? 0), 0),
    opts.onProgress,
  );
  const files: DownloadResult['files'] = [];
  for (const file of wanted) {
    checkCancelled(signal, repo);
    files.push(
      await downloadFile({
        ...opts,
        file,
        url: resolveUrl(opts.hubUrl, repo, pinned, file.path),
        part: path.join(stagingDir, `${file.path}.part`),
        idleTimeoutMs,
        minBytesPerSecond,
        maxFileBytes,
        progress,
      }),
    );
  }
  progress.finish();
  checkCancelled(signal, repo);

  await install(stagingDir, destDir, files);
  await fsp.rm(stagingDir, { recursive: true, force: true });
  return { files, totalBytes: files.reduce((n, f) => n + f.size, 0) };
}

/** Deletes a staging directory (an abandoned download's .part files); answers the bytes freed. */
export async function removeStaging(stagingDir: string): Promise<number> {
  const bytes = await treeSize(stagingDir);
  await fsp.rm(stagingDir, { recursive: true, force: true });
  return bytes;
}

// ---------------------------------------------------------------------------------------------

interface FileJob extends DownloadOptions {
  file: HubFile;
  url: string;
  part: string;
  idleTimeoutMs: number;
  minBytesPerSecond: number;
  maxFileBytes: number;
  progress: Progress;
  /** The transfer's own signal: the caller's, and the stall watchdog's. */
  transfer?: AbortSignal;
}

async function readListing(
  ref: HubRepoRef,
  idleTimeoutMs: number,
  minBytesPerSecond: number,
): Promise<{ commit: string | null; files: HubFile[] }> {
  const { repo, revision } = ref;
  if (!HUB_REPO_PATTERN.test(repo))
    throw new HubError('invalid', `'${repo}' is not a hub repository id such as owner/name`);
  if (!HUB_REVISION_PATTERN.test(revision))
    throw new HubError('invalid', `'${revision}' is not a branch, tag or commit name`);
  const url = `${hubBase(ref.hubUrl)}/api/models/${repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  const what = `the listing of ${repo} at revision ${revision}`;

  let text: string;
  const watch = new StallWatch(ref.signal, idleTimeoutMs, minBytesPerSecond, what, null);
  try {
    const res = await ref.fetcher.fetchStream(url, {
      accept: 'application/json',
      signal: watch.signal,
      maxBytes: LISTING_MAX_BYTES,
      idleTimeoutMs,
    });
    const chunks: Buffer[] = [];
    let got = 0;
    watch.start(() => got, res.contentLength);
    for await (const chunk of res.body) {
      chunks.push(chunk);
      got += chunk.byteLength;
    }
    text = Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof FetchError && err.code === 'http_status') {
      // The real hub answers 401 rather than 404 for a repository it does not show anyone.
      if (err.upstreamStatus === 404 || err.upstreamStatus === 401) {
        throw new HubError(
          'not_found',
          `Repository ${repo} at revision ${revision} not found on ${hubBase(ref.hubUrl)} (HTTP ${err.upstreamStatus})`,
          null,
          err.upstreamStatus,
        );
      }
    }
    throw toHubError(err, { signal: ref.signal, repo, file: null, what });
  } finally {
    watch.stop();
  }

  let listing: z.infer<typeof Listing>;
  try {
    listing = Listing.parse(JSON.parse(text));
  } catch {
    throw new HubError('invalid', `The hub's answer for ${what} is not a repository listing`);
  }
  const files = listing.siblings.map((s): HubFile => {
    checkRepoPath(s.rfilename, `Refused ${what}: it names the file`);
    return {
      path: s.rfilename,
      size: s.lfs?.size ?? s.size ?? null,
      sha256: s.lfs ? s.lfs.sha256.toLowerCase() : null,
      // An LFS file's blobId is its pointer's, not its contents'.
      gitBlobId:
        !s.lfs && s.blobId && /^[0-9a-fA-F]{40}$/.test(s.blobId) ? s.blobId.toLowerCase() : null,
    };
  });
  return {
    commit: listing.sha && HUB_REVISION_PATTERN.test(listing.sha) ? listing.sha : null,
    files,
  };
}

/** Streams one file into its .part, resuming it, and verifies it. */
async function downloadFile(job: FileJob): Promise<DownloadResult['files'][number]> {
  const { file, part, signal, repo, progress } = job;
  // Listed, as downloadRepo checked before the first request.
  const size = file.size!;
  await fsp.mkdir(path.dirname(part), { recursive: true });
  let offset = await fileSize(part);
  if (offset > size) offset = await restart(part);
  let sums = new Checksums(size);
  if (offset > 0) await hashFile(part, sums);
  checkCancelled(signal, repo);
  progress.start(file.path, offset);

  // A complete .part (the last attempt stopped before the install) needs no request.
  if (offset < size || offset === 0) {
    const watch = new StallWatch(
      signal,
      job.idleTimeoutMs,
      job.minBytesPerSecond,
      file.path,
      file.path,
    );
    const transfer = { ...job, transfer: watch.signal };
    try {
      let res = await request(transfer, offset);
      if (offset > 0 && !resumes(res, offset)) {
        // The hub sent the whole file (200) or another range: start over from its first byte.
        if (res.status !== 200) {
          res.cancel();
          res = await request(transfer, 0);
        }
        offset = await restart(part);
        sums = new Checksums(size);
        progress.start(file.path, 0);
      }
      const announced = announcedSize(res, offset);
      if (announced !== null && announced !== size) {
        res.cancel();
        await fsp.rm(part, { force: true });
        throw new HubError(
          'size',
          `${file.path}: the hub lists ${size} bytes but serves ${announced}`,
          file.path,
        );
      }
      offset = await receive(transfer, res, offset, size, sums, watch);
    } finally {
      watch.stop();
    }
  }

  const mismatch = sums.mismatch(file);
  if (mismatch) {
    await fsp.rm(part, { force: true });
    throw new HubError(
      'checksum',
      `${file.path}: ${mismatch} (the corrupt file was deleted; try again)`,
      file.path,
    );
  }
  progress.end(file.path, offset);
  return { path: file.path, size: offset, sha256: sums.sha256() };
}

async function request(job: FileJob, offset: number): Promise<StreamResult> {
  const { file, signal, repo } = job;
  try {
    return await job.fetcher.fetchStream(job.url, {
      rangeFrom: offset > 0 ? offset : undefined,
      signal: job.transfer ?? signal,
      idleTimeoutMs: job.idleTimeoutMs,
      maxBytes: file.size ?? job.maxFileBytes,
    });
  } catch (err) {
    // 416: the .part is not a prefix the hub can continue (the file shrank): start over.
    if (offset > 0 && err instanceof FetchError && err.upstreamStatus === 416) {
      await restart(job.part);
      job.progress.start(file.path, 0);
      return request(job, 0);
    }
    throw toHubError(err, { signal, repo, file: file.path, what: `${file.path} (${job.url})` });
  }
}

/** Appends the body to the .part (written from `offset`); answers the .part's size. */
async function receive(
  job: FileJob,
  res: StreamResult,
  offset: number,
  expected: number,
  sums: Checksums,
  watch: StallWatch,
): Promise<number> {
  const { file, part, signal, repo, progress } = job;
  let got = offset;
  watch.start(() => got - offset, expected - offset);
  // Each chunk is on disk before the next is read: whatever `got` counts, a resume can trust.
  const out = await fsp.open(part, offset > 0 ? 'a' : 'w');
  try {
    for await (const chunk of res.body) {
      // Checked before the write: a file longer than listed stops at its listed size.
      if (got + chunk.byteLength > expected) {
        throw new HubError(
          'size',
          `${file.path}: the hub sent more than the ${expected} bytes it lists`,
          file.path,
        );
      }
      await writeAll(out, chunk);
      sums.update(chunk);
      got += chunk.byteLength;
      progress.update(file.path, got);
    }
  } catch (err) {
    if (err instanceof HubError && err.code === 'size') {
      await fsp.rm(part, { force: true });
      throw err;
    }
    if (err instanceof FetchError && err.code === 'too_large') {
      await fsp.rm(part, { force: true });
      throw new HubError(
        'size',
        `${file.path}: the hub sent more than ${formatBytes(expected)}`,
        file.path,
      );
    }
    if (err instanceof FetchError && err.code === 'network' && !signal?.aborted) {
      // The .part keeps what arrived: the next attempt resumes from there.
      throw cutShort(file.path, expected, got);
    }
    throw toHubError(err, { signal, repo, file: file.path, what: file.path });
  } finally {
    await out.close();
  }
  if (got < expected) throw cutShort(file.path, expected, got);
  return got;
}

async function writeAll(out: fsp.FileHandle, chunk: Buffer): Promise<void> {
  for (let at = 0; at < chunk.byteLength;) {
    at += (await out.write(chunk, at, chunk.byteLength - at)).bytesWritten;
  }
}

function cutShort(file: string, expected: number | null, got: number): HubError {
  return new HubError(
    'truncated',
    expected === null
      ? `${file}: the connection closed after ${got} bytes (the download was cut short)`
      : `${file}: expected ${expected} bytes, got ${got} (the download was cut short)`,
    file,
  );
}

/** Whether a response to `Range: bytes=offset-` continues the .part. */
function resumes(res: StreamResult, offset: number): boolean {
  if (res.status !== 206) return false;
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(res.headers['content-range'] ?? '');
  return m !== null && Number(m[1]) === offset;
}

/** The whole file's size as the response announces it (Content-Range's total, or the length). */
function announcedSize(res: StreamResult, offset: number): number | null {
  if (res.status === 206) {
    const total = /\/(\d+)$/.exec(res.headers['content-range'] ?? '')?.[1];
    if (total !== undefined) return Number(total);
    return res.contentLength === null ? null : offset + res.contentLength;
  }
  return res.contentLength;
}

function toHubError(
  err: unknown,
  ctx: { signal?: AbortSignal; repo: string; file: string | null; what: string },
): Error {
  if (err instanceof HubError) return err;
  if (ctx.signal?.aborted) return cancelled(ctx.repo);
  if (!(err instanceof FetchError)) return err instanceof Error ? err : new Error(String(err));
  const prefix = ctx.file ? `${ctx.file}: ` : '';
  switch (err.code) {
    case 'invalid_url':
      return new HubError('invalid', `${prefix}${err.message}`, ctx.file);
    case 'blocked_address':
    case 'bad_scheme':
    case 'denied_by_rule':
      return new HubError('blocked', `${prefix}${err.message}`, ctx.file);
    case 'timeout':
      return new HubError('timeout', `${prefix}${err.message}`, ctx.file);
    case 'too_large':
      return new HubError('size', `${prefix}${err.message}`, ctx.file);
    case 'http_status': {
      const status = err.upstreamStatus ?? null;
      if (status === 404)
        return new HubError(
          'not_found',
          `${ctx.what} not found on the hub (HTTP 404)`,
          ctx.file,
          404,
        );
      const refused =
        status === 401 || status === 403
          ? ' (a gated or private repository needs a token, which ADAM does not send)'
          : '';
      return new HubError('http_error', `${prefix}${err.message}${refused}`, ctx.file, status);
    }
    default:
      return new HubError('http_error', `${prefix}${err.message}`, ctx.file);
  }
}

function cancelled(repo: string): HubError {
  return new HubError('cancelled', `The download of ${repo} was cancelled`);
}

function checkCancelled(signal: AbortSignal | undefined, repo: string): void {
  if (signal?.aborted) throw cancelled(repo);
}

/**
 * A path in the repository that stays inside the directory it is written to: relative, with
 * forward slashes, no empty, '.' or '..' segment, no NUL.
 */
function checkRepoPath(p: string, what: string): void {
  const unsafe =
    p.length === 0 ||
    p.length > 1024 ||
    p.includes('\0') ||
    p.includes('\\') ||
    p.startsWith('/') ||
    /^[A-Za-z]:/.test(p) ||
    p.split('/').some((s) => s === '' || s === '.' || s === '..');
  if (unsafe)
    throw new HubError('invalid', `${what} ${JSON.stringify(p)}: not a safe relative path`, p);
}

function hubBase(hubUrl: string): string {
  return hubUrl.replace(/\/+$/, '');
}

function resolveUrl(hubUrl: string, repo: string, revision: string, file: string): string {
  const encoded = file.split('/').map(encodeURIComponent).join('/');
  return `${hubBase(hubUrl)}/${repo}/resolve/${encodeURIComponent(revision)}/${encoded}`;
}

function describeFiles(files: HubFile[]): string {
  if (files.length === 0) return 'no file';
  const shown = files.slice(0, 10).map((f) => f.path);
  return `${shown.join(', ')}${files.length > shown.length ? ` and ${files.length - shown.length} more` : ''}`;
}

function isWithin(dir: string, other: string): boolean {
  const rel = path.relative(dir, other);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Keeps the .part files only if they belong to the same repository and commit. */
async function prepareStaging(
  stagingDir: string,
  marker: { repo: string; commit: string },
): Promise<void> {
  const markerPath = path.join(stagingDir, STAGING_MARKER);
  const wanted = JSON.stringify(marker);
  const found = await fsp.readFile(markerPath, 'utf8').catch(() => null);
  if (found !== wanted) {
    await fsp.rm(stagingDir, { recursive: true, force: true });
    await fsp.mkdir(stagingDir, { recursive: true });
    await fsp.writeFile(markerPath, wanted);
  }
}

/**
 * Moves the verified files into a fresh directory beside destDir (same file system), then
 * renames it into place: readers see the old directory or the complete new one, never a mix.
 */
async function install(
  stagingDir: string,
  destDir: string,
  files: readonly { path: string }[],
): Promise<void> {
  const parent = path.dirname(destDir);
  await fsp.mkdir(parent, { recursive: true });
  const id = randomUUID().slice(0, 8);
  const fresh = path.join(parent, `.${path.basename(destDir)}.installing-${id}`);
  const old = path.join(parent, `.${path.basename(destDir)}.replaced-${id}`);
  try {
    for (const f of files) {
      const to = path.join(fresh, f.path);
      await fsp.mkdir(path.dirname(to), { recursive: true });
      await move(path.join(stagingDir, `${f.path}.part`), to);
    }
    const replacing = await exists(destDir);
    if (replacing) await fsp.rename(destDir, old);
    try {
      await fsp.rename(fresh, destDir);
    } catch (err) {
      if (replacing) await fsp.rename(old, destDir).catch(() => undefined);
      throw err;
    }
    if (replacing) await fsp.rm(old, { recursive: true, force: true });
  } finally {
    await fsp.rm(fresh, { recursive: true, force: true });
  }
}

async function move(from: string, to: string): Promise<void> {
  try {
    await fsp.rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await fsp.copyFile(from, to);
    await fsp.rm(from, { force: true });
  }
}

/** The size of a file; 0 when there is none. */
async function fileSize(p: string): Promise<number> {
  const st = await fsp.stat(p).catch(() => null);
  return st?.isFile() ? st.size : 0;
}

async function exists(p: string): Promise<boolean> {
  return (await fsp.stat(p).catch(() => null)) !== null;
}

async function restart(part: string): Promise<number> {
  await fsp.rm(part, { force: true });
  return 0;
}

async function hashFile(file: string, sums: Checksums): Promise<void> {
  for await (const chunk of fs.createReadStream(file)) sums.update(chunk as Buffer);
}

/** The checksum the listing gives a file: its LFS sha256, or its git blob id. */
function checksumOf(f: HubFile): string | null {
  return f.sha256 ?? f.gitBlobId;
}

/** The sha256 of a file's contents and its git blob id, computed as the bytes arrive. */
class Checksums {
  private readonly sha = createHash('sha256');
  private readonly blob: Hash;

  constructor(size: number) {
    this.blob = createHash('sha1').update(`blob ${size}\0`);
  }

  update(chunk: Buffer): void {
    this.sha.update(chunk);
    this.blob.update(chunk);
  }

  private digests: { sha256: string; blob: string } | null = null;

  private done(): { sha256: string; blob: string } {
    this.digests ??= { sha256: this.sha.digest('hex'), blob: this.blob.digest('hex') };
    return this.digests;
  }

  sha256(): string {
    return this.done().sha256;
  }

  /** What differs from the listing, or null when the file is the one listed. */
  mismatch(file: HubFile): string | null {
    const { sha256, blob } = this.done();
    if (file.sha256 !== null && sha256 !== file.sha256)
      return `its sha256 is ${sha256}, the hub lists ${file.sha256}`;
    if (file.sha256 === null && file.gitBlobId !== null && blob !== file.gitBlobId)
      return `its git blob id is ${blob}, the hub lists ${file.gitBlobId}`;
    return null;
  }
}

/**
 * Fails a transfer that makes too little progress: fewer than minBytesPerSecond × windowMs in a
 * window (or the rest, when less remains). The fetcher's idle timeout catches a hub that sends
 * nothing; this one catches a hub that sends a byte now and then, which keeps that clock reset.
 * Its window is twice the idle timeout, so a hub gone silent is reported as idle, not as slow.
 */
class StallWatch {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  readonly signal: AbortSignal;
  private readonly windowMs: number;

  constructor(
    signal: AbortSignal | undefined,
    idleTimeoutMs: number,
    private readonly minBytesPerSecond: number,
    private readonly what: string,
    private readonly file: string | null,
  ) {
    this.windowMs = 2 * idleTimeoutMs;
    this.signal = signal
      ? AbortSignal.any([signal, this.controller.signal])
      : this.controller.signal;
  }

  /** From the first byte: `received` counts the bytes so far, `total` what the body should hold. */
  start(received: () => number, total: number | null): void {
    const floor = Math.max(1, Math.ceil((this.minBytesPerSecond * this.windowMs) / 1000));
    let mark = received();
    this.timer = setInterval(() => {
      const now = received();
      const need = total === null ? floor : Math.min(floor, total - mark);
      // Nothing at all is the fetcher's idle timeout, which names it so.
      if (now > mark && now - mark < need) {
        this.stop();
        this.controller.abort(
          new HubError(
            'timeout',
            `${this.what}: only ${formatBytes(now - mark)} in ${formatDuration(this.windowMs)}, ` +
              `under the ${formatBytes(need)} it must make in that time (the hub trickles)`,
            this.file,
          ),
        );
      }
      mark = now;
    }, this.windowMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function treeSize(dir: string): Promise<number> {
  const entries = await fsp.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const e of entries) {
    if (e.isFile()) total += (await fsp.stat(path.join(e.parentPath, e.name))).size;
  }
  return total;
}

/** Byte progress across the files of one download, throttled per file. */
class Progress {
  private done = 0;
  private current = 0;
  private lastAt = 0;
  private file = '';

  constructor(
    private total: number,
    private readonly report?: (p: DownloadProgress) => void,
  ) {}

  start(file: string, bytes: number): void {
    this.file = file;
    this.current = bytes;
    this.emit(true);
  }

  update(file: string, bytes: number): void {
    this.file = file;
    this.current = bytes;
    this.emit(false);
  }

  end(file: string, size: number): void {
    this.file = file;
    this.done += size;
    this.current = 0;
    // A file the listing gave no size for counts once its size is known.
    this.total = Math.max(this.total, this.done);
    this.emit(true);
  }

  finish(): void {
    this.total = this.done;
    this.emit(true);
  }

  private emit(force: boolean): void {
    if (!this.report) return;
    const now = performance.now();
    if (!force && now - this.lastAt < PROGRESS_INTERVAL_MS) return;
    this.lastAt = now;
    const downloaded = this.done + this.current;
    this.report({
      file: this.file,
      downloadedBytes: downloaded,
      totalBytes: Math.max(this.total, downloaded),
    });
  }
}
