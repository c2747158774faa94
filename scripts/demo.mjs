// `npm run demo`: ADAM with something to find, offline, in about a minute. Serves the sample site
// (demo/site/) on loopback, allows the fetcher to reach it, starts the server as `npm start` does
// (building what is missing) on its own data directory (demo/data/), ingests the site's articles
// and prints a search. The server keeps running until Ctrl-C.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_ARTICLES, serveDemoSite } from './demo-site.mjs';

const root = path.resolve(import.meta.dirname, '..');
const envFile = path.join(root, '.env');
if (fs.existsSync(envFile)) process.loadEnvFile(envFile);

const port = Number(process.env.PORT ?? 8000);
const host = process.env.HOST && process.env.HOST !== '0.0.0.0' ? process.env.HOST : '127.0.0.1';
const api = `http://${host}:${port}/api/v1`;
const email = process.env.ADAM_DEMO_EMAIL ?? 'admin@example.com';
const password = process.env.ADAM_DEMO_PASSWORD ?? 'admin';
const dataDir = process.env.ADAM_DEMO_DATA_DIR ?? path.join(root, 'demo', 'data');

const site = await serveDemoSite(Number(process.env.ADAM_DEMO_SITE_PORT ?? 0));
const siteHost = new URL(site.url).host;
console.log(`[demo] sample site on ${site.url}`);

const allow = [process.env.ADAM_FETCH_ALLOW, siteHost].filter(Boolean).join(',');
const server = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, ADAM_DATA_DIR: dataDir, ADAM_FETCH_ALLOW: allow },
});
let serverExited = false;
server.on('exit', (code, signal) => {
  serverExited = true;
  site.server.close();
  process.exitCode = code ?? (signal ? 1 : 0);
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => (serverExited ? process.exit() : server.kill(signal)));
}

async function call(p, init = {}) {
  const res = await fetch(`${api}${p}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${p}: ${res.status} ${body.detail ?? ''}`);
  return body;
}

/** Waits for the server (a first start builds the console and the server: minutes). */
async function serverUp() {
  for (;;) {
    if (serverExited) throw new Error('the server stopped before it answered');
    try {
      if ((await fetch(`${api}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
}

async function run() {
  await serverUp();
  let key;
  try {
    key = (await call('/auth/login', { method: 'POST', body: JSON.stringify({ email, password }) }))
      .api_key;
  } catch (e) {
    throw new Error(
      `${e.message}\n[demo] set ADAM_DEMO_PASSWORD to the password of ${email} in ${dataDir}`,
    );
  }
  const headers = { 'x-api-key': key };
  const urls = DEMO_ARTICLES.map((name) => `${site.url}/${name}`);
  const { job_id: jobId } = await call('/sources/process', {
    method: 'POST',
    headers,
    body: JSON.stringify({ urls, language: 'en' }),
  });
  console.log(`[demo] job ${jobId}: ingesting ${urls.length} articles of the sample site`);
  let job;
  for (;;) {
    job = await call(`/sources/jobs/${jobId}`, { headers });
    if (['completed', 'failed', 'cancelled'].includes(job.status)) break;
    await sleep(1000);
  }
  for (const e of job.errors) console.log(`[demo]   ${e.url ?? ''} ${e.message}`);
  const added = job.stats.segments_created ?? 0;
  console.log(`[demo] job ${jobId} ${job.status}: ${added} snippets added`);
  for (const query of ['how do bees tell each other where flowers are', 'why does honey keep']) {
    const found = await call('/snippets/search', {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, k: 3 }),
    });
    console.log(`[demo] search "${query}":`);
    for (const r of found.results)
      console.log(
        `  ${r.score.toFixed(3)}  ${r.text.slice(0, 110)}${r.text.length > 110 ? '…' : ''}`,
      );
  }
  console.log(
    `[demo] console: http://${host}:${port} (${email} / ${password}) · data: ${dataDir} · Ctrl-C stops`,
  );
}

run().catch((e) => {
  console.error(`[demo] ${e.message}`);
  if (!serverExited) server.kill('SIGTERM');
});
