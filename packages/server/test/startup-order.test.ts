import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Adam, BuildOptions } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { serve } from '../src/main.js';
import { linkSharedModel, tempDir } from './helpers.js';

/** What `npm start`'s serve() handed to buildApp, and whether its warm-ups were held then. */
const seen: { opts?: BuildOptions; heldAtBuild?: boolean[]; adam?: Adam } = {};

vi.mock('../src/app.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/app.js')>();
  return {
    ...real,
    buildApp: async (...args: Parameters<typeof real.buildApp>) => {
      const adam = await real.buildApp(...args);
      const gates = args[1]?.startGates ?? {};
      seen.opts = args[1];
      seen.heldAtBuild = await Promise.all([gates.engine, gates.index, gates.keyword].map(isHeld));
      seen.adam = adam;
      return adam;
    },
  };
});

/** Whether a promise is still pending (false for none: nothing holds the step). */
async function isHeld(p: Promise<void> | undefined): Promise<boolean> {
  if (!p) return false;
  let settled = false;
  void p.then(() => (settled = true));
  // A settled promise's callbacks all run before the next turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

afterEach(async () => {
  await seen.adam?.app.close();
});

describe('npm start (serve)', () => {
  it('starts the engine threads and loads the indexes only once it listens, and they then start', async () => {
    const dataDir = tempDir();
    linkSharedModel(dataDir);
    const config = loadConfig({
      ADAM_DATA_DIR: dataDir,
      ADAM_WEB_DIST: '',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    await serve(config);
    // Held while the app was built: nothing competes with the main thread's start-up.
    expect(seen.heldAtBuild).toEqual([true, true, true]);
    const adam = seen.adam!;
    expect(adam.app.server.listening).toBe(true);
    // Let go at listen: the engine starts and a job can run.
    expect(await adam.engineStarted).toBe(true);
    const { startGates } = seen.opts!;
    expect(await isHeld(startGates?.index)).toBe(false);
    const port = (adam.app.server.address() as { port: number }).port;
    const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
    expect(health.status).toBe(200);
  }, 120_000);
});
