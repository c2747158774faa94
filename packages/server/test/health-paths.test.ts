import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('/health and file paths', () => {
  it('tells where the data lives only to a caller with a key', async () => {
    s = await startServer();
    // A failing check whose message names a file, as a file system error does.
    s.adam.services.health.register('probe', () => {
      throw new Error(`ENOENT: no such file or directory, open '${s!.dataDir}/models/x.onnx'`);
    });

    const anonymous = await s.api('/api/v1/health');
    expect(anonymous.status).toBe(200);
    const text = JSON.stringify(anonymous.body);
    expect(text).not.toContain(s.dataDir);
    expect(text).not.toMatch(/"\/(tmp|home|srv|var|work)\//);
    expect(anonymous.body.components.database).toMatchObject({
      status: 'healthy',
      details: { journal_mode: 'wal' },
    });
    expect(anonymous.body.components.database.details.path).toBeUndefined();
    expect(anonymous.body.components.probe).toEqual({
      status: 'unhealthy',
      error: "ENOENT: no such file or directory, open '[path]'",
    });

    const key = await s.login();
    const authed = await s.api('/api/v1/health', { key });
    expect(authed.body.components.database.details.path).toBe(`${s.dataDir}/adam.db`);
    expect(authed.body.components.probe.error).toContain(`${s.dataDir}/models/x.onnx`);
    // A wrong key is no key: the public answer, not a 401.
    const wrong = await s.api('/api/v1/health', { key: 'nope' });
    expect(wrong.status).toBe(200);
    expect(JSON.stringify(wrong.body)).not.toContain(s.dataDir);
  });
});
