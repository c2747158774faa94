import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { EventBus } from '../lib/event-bus.js';
import { createLogger, LogSink } from '../logging.js';
import { openDatabase, type Db } from '../store/db.js';
import { SettingsRepository } from '../store/settings.repository.js';
import { SettingsService } from './settings.service.js';

const opened: { db: Db; dir: string }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) {
    o.db.close();
    fs.rmSync(o.dir, { recursive: true, force: true });
  }
});

function service(dir: string): SettingsService {
  const db = openDatabase(dir);
  opened.push({ db, dir });
  const log = createLogger({ level: 'error', sink: new LogSink(), stdout: false });
  return new SettingsService({ settings: new SettingsRepository(db), bus: new EventBus(), log });
}

describe('SettingsService.get', () => {
  it('sees a save made by another connection (a worker, the CLI) at the next read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-settings-'));
    const server = service(dir);
    const worker = service(dir);
    expect(server.get('processing').max_concurrent_scrapes).toBe(
      DEFAULT_PROCESSING_SETTINGS.max_concurrent_scrapes,
    );
    worker.update('processing', { max_concurrent_scrapes: 7 });
    expect(server.get('processing').max_concurrent_scrapes).toBe(7);
    server.update('processing', { max_concurrent_scrapes: 3 });
    expect(worker.get('processing').max_concurrent_scrapes).toBe(3);
    expect(server.get('processing').max_concurrent_scrapes).toBe(3);
  });

  it('answers a fresh object each time: a caller changing it changes nothing stored', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-settings-'));
    const settings = service(dir);
    const first = settings.get('crawler');
    first.min_delay_ms = 1;
    expect(settings.get('crawler').min_delay_ms).not.toBe(1);
    expect(settings.get('crawler')).not.toBe(settings.get('crawler'));
  });
});
