import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './helpers.js';

/**
 * The README's "Five minutes with ADAM" shell block, run as written against a started server,
 * with only its address and URL lines pointed at the sample site (demo/site/, allowed as
 * ADAM_FETCH_ALLOW says): so the walkthrough cannot drift from the API again.
 */
const repoRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const HAS_CURL = spawnSync('curl', ['--version']).status === 0;
if (!HAS_CURL && process.env.CI) throw new Error('CI needs curl (the .ci/run script installs it)');
if (!HAS_CURL)
  console.warn('curl not found: install it (`apt-get install curl`) to run the README test');

interface DemoSite {
  serveDemoSite(port?: number): Promise<{ server: http.Server; url: string }>;
  DEMO_ARTICLES: string[];
}

/** The README's shell block under "Five minutes with ADAM". */
function readmeBlock(): string {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Five minutes with ADAM'));
  const start = section.indexOf('```sh\n') + '```sh\n'.length;
  return section.slice(start, section.indexOf('```', start));
}

/** The block with one of its variable lines replaced; fails if the README lost that line. */
function setVariable(block: string, name: string, value: string): string {
  const line = block.split('\n').find((l) => l.startsWith(`${name}=`));
  if (!line) throw new Error(`the README's block has no ${name}= line`);
  return block.replace(line, `${name}=${value}`);
}

function runBash(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!HAS_CURL)("the README's walkthrough, pasted as written", () => {
  let s: TestServer;
  let site: { server: http.Server; url: string };
  let block: string;

  beforeAll(async () => {
    const demo = (await import(path.join(repoRoot, 'scripts', 'demo-site.mjs'))) as DemoSite;
    site = await demo.serveDemoSite();
    s = await startServer({ env: { ADAM_FETCH_ALLOW: new URL(site.url).host } });
    const urls = demo.DEMO_ARTICLES.slice(0, 2).map((a) => `${site.url}/${a}`);
    block = setVariable(
      setVariable(readmeBlock(), 'API', `${s.url}/api/v1`),
      'URLS',
      `'${JSON.stringify(urls)}'`,
    );
  });
  afterAll(async () => {
    await s?.close();
    site?.server.close();
  });

  it('logs in, ingests the pages, prints the job to 100% and answers the search', async () => {
    const r = await runBash(block);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trim().split('\n');
    // The watch loop's last line says the job ended, in percent (progress is a fraction).
    const ended = lines.findIndex((l) => /^completed 100% /.test(l));
    expect(ended, r.stdout).toBeGreaterThanOrEqual(0);
    for (const l of lines.slice(0, ended)) expect(l).toMatch(/^(pending|processing) \d{1,3}% /);
    const answers = lines.slice(ended + 1);
    expect(answers.length).toBeGreaterThan(0);
    for (const a of answers) expect(a).toMatch(/^\d\.\d{3} [a-z]+ {2}\S/);
    expect(answers.join('\n')).toMatch(/pollen|flower/i);
  }, 180_000);

  it('works after the password change with PASSWORD set, and says so when it is wrong', async () => {
    const key = await s.login();
    const changed = await s.api('/api/v1/auth/password', {
      method: 'POST',
      key,
      body: { current_password: 'admin', new_password: 'a longer walkthrough password' },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(204);

    const wrong = await runBash(block);
    // The login's refusal is shown, each later step says what the server answered, and the
    // loop ends instead of waiting on an undefined job.
    expect(wrong.stderr).toMatch(/^login: /m);
    expect(wrong.stdout).toMatch(/^error: /m);

    const right = await runBash(setVariable(block, 'PASSWORD', "'a longer walkthrough password'"));
    expect(right.stderr).toBe('');
    expect(right.stdout).toMatch(/^completed 100% /m);
  }, 180_000);
});
