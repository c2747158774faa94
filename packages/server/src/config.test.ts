import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_DIR, loadConfig } from './config.js';

const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');

describe('the data directory', () => {
  it("defaults to the repository's data/ folder, whatever the working directory", () => {
    // The tests run in packages/server: a cwd-relative default would be packages/server/data.
    expect(process.cwd()).not.toBe(repoRoot);
    expect(loadConfig({}).dataDir).toBe(path.join(repoRoot, 'data'));
    expect(DEFAULT_DATA_DIR).toBe(path.join(repoRoot, 'data'));
    expect(loadConfig({ ADAM_DATA_DIR: '' }).dataDir).toBe(path.join(repoRoot, 'data'));
  });

  it('reads an explicit ADAM_DATA_DIR from the working directory when relative', () => {
    expect(loadConfig({ ADAM_DATA_DIR: 'store' }).dataDir).toBe(path.resolve('store'));
    expect(loadConfig({ ADAM_DATA_DIR: '/srv/adam' }).dataDir).toBe('/srv/adam');
  });
});
