import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelChecksumsOnThisThread } from '../src/embedding/builtin-model.js';
import { startServer, type TestServer } from './helpers.js';

/**
 * The in-thread query embedder is loaded without stalling the server's event loop: its 44 MB
 * model file is read and checksummed on an engine thread (0.2–1.7 s of the loop when done
 * here), and only mapped on this one.
 */
let s: TestServer;
/** Before the server: other files of the worker may have loaded the model here before. */
let checksumsBefore: number;

beforeAll(async () => {
  checksumsBefore = modelChecksumsOnThisThread();
  s = await startServer({ engineWithServer: true });
}, 120_000);
afterAll(async () => {
  await s.close();
});

describe('in-thread embedder load', () => {
  it('checksums the model file on an engine thread only; short queries then embed here', async () => {
    expect(await s.adam.engineStarted).toBe(true);
    const engine = s.adam.services.engine;
    expect(engine.stats()).toMatchObject({ ready: true });
    expect(modelChecksumsOnThisThread()).toBe(checksumsBefore);

    // The mapped model embeds like the engine threads' own copy.
    const short = 'volcanic eruption';
    const before = engine.stats().in_thread;
    const [here] = await engine.embed([short]);
    expect(engine.stats().in_thread).toBe(before + 1);
    const [, onPool] = await engine.embed(['padding so the batch goes to a worker', short]);
    expect(Array.from(here!)).toEqual(Array.from(onPool!));
  });
});
