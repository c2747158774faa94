import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_THREAD_MAX_WORDS } from '../src/engine/engine.js';
import { ARTICLES } from './corpus.js';
import { saveText, startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;
/** engine.stats() right after the app was built, before any request. */
let atStart: ReturnType<TestServer['adam']['services']['engine']['stats']>;

beforeAll(async () => {
  s = await startServer({ engineWithServer: true });
  atStart = s.adam.services.engine.stats();
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
});

const engine = () => s.adam.services.engine;

describe('engine start', () => {
  it('starts the worker pool and the models with the app, before any request', async () => {
    expect(atStart.started).toBe(true);
    expect(atStart.completed).toBe(0);
    expect(await s.adam.engineStarted).toBe(true);
    expect(engine().stats()).toMatchObject({ started: true, ready: true });
    const health = await s.api('/api/v1/health');
    expect(health.body.components.workers.details.engine).toMatchObject({
      started: true,
      ready: true,
      threads: 1,
    });
  });

  it('embeds a search query on the server thread, never on a worker', async () => {
    await s.adam.engineStarted;
    await saveText(s, key, ARTICLES.photosynthesis, 'Photosynthesis');
    const before = engine().stats();
    const r = await s.api('/api/v1/snippets/search', {
      method: 'POST',
      key,
      body: { query: 'How do plants turn light into sugar?' },
    });
    expect(r.status).toBe(200);
    expect(r.body.results.length).toBeGreaterThan(0);
    const after = engine().stats();
    expect(after.in_thread).toBe(before.in_thread + 1);
    // No task went to the pool: the search did not wait for a worker.
    expect(after.completed).toBe(before.completed);
  });

  it('sends long texts and batches to the workers, with the same vectors as in-thread', async () => {
    await s.adam.engineStarted;
    const short = 'ancient thinkers on virtue and calm acceptance';
    const long = Array.from({ length: IN_THREAD_MAX_WORDS + 1 }, (_, i) => `word${i}`).join(' ');
    const before = engine().stats();
    const [here] = await engine().embed([short]);
    const [fromPool, longVector] = await engine().embed([short, long]);
    const [alsoPool] = await engine().embed([long]);
    const after = engine().stats();
    expect(after.in_thread).toBe(before.in_thread + 1);
    expect(after.completed).toBe(before.completed + 2);
    expect(Array.from(here!)).toEqual(Array.from(fromPool!));
    expect(Array.from(alsoPool!)).toEqual(Array.from(longVector!));
    expect(Array.from(await engine().embedQuery(short))).toEqual(Array.from(here!));
  });
});
