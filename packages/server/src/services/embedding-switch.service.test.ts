import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_SPACE, type EmbeddingSpace } from '../engine/engine.js';
import { AppError } from '../lib/errors.js';
import { createLogger, LogSink } from '../logging.js';
import { LOCK_FILE } from '../lib/data-dir-lock.js';
import type { JobRepository, JobRow } from '../store/job.repository.js';
import type { SnippetRepository } from '../store/snippet.repository.js';
import {
  ACTIVE_EMBEDDER_FILE,
  EmbeddingSwitchService,
  loadActiveSpace,
  readActiveSpace,
  writeActiveSpace,
} from './embedding-switch.service.js';
import { NEXT_INDEX_DIR, type IndexService } from './index.service.js';
import type { JobService } from './job.service.js';

const log = createLogger({ level: 'silent', sink: new LogSink(), stdout: false });
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'adam-active-'));

describe('the recorded active space', () => {
  it('is the built-in one until a switch records another, which the next start reads', () => {
    const dataDir = tmp();
    expect(readActiveSpace(dataDir, log)).toEqual(BUILTIN_SPACE);
    const model = fs.mkdtempSync(path.join(dataDir, 'model-'));
    const space: EmbeddingSpace = { id: 'onnx:a/b@main', dimension: 64, model: { dir: model } };
    writeActiveSpace(dataDir, space);
    expect(readActiveSpace(dataDir, log)).toEqual(space);
    // Inside the data directory, the model is recorded relative to it: the directory can move.
    const file = path.join(dataDir, ACTIVE_EMBEDDER_FILE);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).dir).toBe(path.basename(model));
    const moved = `${dataDir}-moved`;
    fs.renameSync(dataDir, moved);
    expect(readActiveSpace(moved, log).model).toEqual({
      dir: path.join(moved, path.basename(model)),
    });
    fs.renameSync(moved, dataDir);
    writeActiveSpace(dataDir, BUILTIN_SPACE);
    expect(readActiveSpace(dataDir, log)).toEqual(BUILTIN_SPACE);
  });

  it('leaves the switch files of a directory another live process holds', () => {
    const dataDir = tmp();
    const next = path.join(dataDir, 'index', NEXT_INDEX_DIR);
    fs.mkdirSync(next, { recursive: true });
    const snippets = {} as SnippetRepository;
    const load = () => loadActiveSpace({ dataDir, indexDir: path.dirname(next), snippets, log });
    // The parent process: alive, and not this one.
    const lock = { pid: process.ppid, started_at: new Date().toISOString(), role: 'server' };
    fs.writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify(lock));
    expect(load()).toEqual(BUILTIN_SPACE);
    expect(fs.existsSync(next)).toBe(true);
    fs.rmSync(path.join(dataDir, LOCK_FILE));
    expect(load()).toEqual(BUILTIN_SPACE);
    expect(fs.existsSync(next)).toBe(false);
  });

  it('falls back to the built-in one when the model is gone or the file unreadable', () => {
    const dataDir = tmp();
    writeActiveSpace(dataDir, { id: 'onnx:a/b@main', dimension: 64, model: { dir: '/nowhere' } });
    expect(readActiveSpace(dataDir, log)).toEqual(BUILTIN_SPACE);
    fs.writeFileSync(path.join(dataDir, ACTIVE_EMBEDDER_FILE), '{"id": ');
    expect(readActiveSpace(dataDir, log)).toEqual(BUILTIN_SPACE);
  });
});

describe('EmbeddingSwitchService.switchTo', () => {
  function service(opts: { running?: Partial<JobRow>[]; switchingTo?: EmbeddingSpace } = {}) {
    const created: unknown[] = [];
    const svc = new EmbeddingSwitchService({
      engine: { space: BUILTIN_SPACE },
      index: { switchingTo: opts.switchingTo ?? null } as unknown as IndexService,
      jobs: {
        create: (j: unknown) => (created.push(j), { id: 7 }),
      } as unknown as JobService,
      jobRows: {
        listByStatusAndType: () => opts.running ?? [],
      } as unknown as JobRepository,
      log,
    });
    return { svc, created };
  }
  const status = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return [(e as AppError).status, (e as Error).message];
    }
    return null;
  };
  const model = () => fs.mkdtempSync(path.join(tmp(), 'model-'));

  it('queues a switch_embedder job for an installed model', () => {
    const { svc, created } = service();
    const dir = model();
    expect(svc.switchTo({ id: 'onnx:a/b@main', dimension: 64, dir })).toEqual({ job_id: 7 });
    expect(created).toEqual([
      expect.objectContaining({
        type: 'switch_embedder',
        input: { space: { id: 'onnx:a/b@main', dimension: 64, dir } },
      }),
    ]);
  });

  it('answers 409 for the active space and while a switch is queued or running', () => {
    expect(status(() => service().svc.switchTo({ ...BUILTIN_SPACE, dir: null }))).toEqual([
      409,
      'builtin-384 is already the active embedder',
    ]);
    const target = { id: 'onnx:a/b@main', dimension: 64, dir: model() };
    expect(status(() => service({ running: [{ id: 3 }] }).svc.switchTo(target))).toEqual([
      409,
      'A switch of the embedding model is already running (job 3): wait for it or cancel it',
    ]);
    const building = { id: 'onnx:c/d@main', dimension: 32, model: { dir: '/m' } };
    expect(status(() => service({ switchingTo: building }).svc.switchTo(target))?.[0]).toBe(409);
  });

  it('answers 400 for a target it cannot embed with', () => {
    const { svc, created } = service();
    expect(status(() => svc.switchTo({ id: 'onnx:a/b@main', dimension: 64, dir: null }))).toEqual([
      400,
      'onnx:a/b@main names no model directory and is not the built-in embedder',
    ]);
    expect(
      status(() => svc.switchTo({ id: 'onnx:a/b@main', dimension: 64, dir: '/gone' })),
    ).toEqual([400, 'The model directory of onnx:a/b@main was not found']);
    expect(
      status(() => svc.switchTo({ id: 'onnx:a/b@main', dimension: 0, dir: model() }))?.[0],
    ).toBe(400);
    expect(created).toEqual([]);
  });
});
