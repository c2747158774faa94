import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

const require = createRequire(import.meta.url);
const yamlEntry = createRequire(require.resolve('@fastify/swagger')).resolve('yaml');

/** The yaml package's own modules loaded in this thread (its entry file aside: the stand-in's). */
const yamlModulesLoaded = () =>
  Object.keys(require.cache).filter(
    (f) => f.startsWith(path.dirname(yamlEntry) + path.sep) && f !== yamlEntry,
  );

let s: TestServer | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

describe('the API docs at start-up (yaml loads at the YAML document’s first request)', () => {
  it('starts without loading yaml, and still serves the YAML document, equal to the JSON one', async () => {
    expect(yamlModulesLoaded()).toEqual([]);
    s = await startServer();
    expect(yamlModulesLoaded()).toEqual([]);

    const res = await fetch(`${s.url}/api/docs/yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/x-yaml');
    const text = await res.text();
    expect(yamlModulesLoaded().length).toBeGreaterThan(0);

    const yaml = require(yamlEntry) as typeof import('yaml');
    const json = await s.api('/api/docs/json');
    expect(json.status).toBe(200);
    expect(yaml.parse(text)).toEqual(json.body);
    expect(Object.keys(json.body.paths)).toContain('/api/v1/health');
  });
});
