/**
 * Every selected suite's server, started side by side: Playwright starts its webServers one after
 * the other, and fourteen `npm start`s in a row were a minute of the run. The first one starts
 * alone, because `npm start` builds whatever is missing and two builds must not write the same
 * dist folders; the others start together once it answers.
 *
 * Ready when every server answers /api/v1/health: then SERVERS_READY_URL answers 200, which is
 * what Playwright waits for. A server that exits before the run ends stops the others and fails
 * the run at once (its stderr is passed through). Playwright's stop (SIGTERM, or a kill of the process group) ends the servers with this.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { SERVERS_READY_URL, selectedSuites, suiteDataDir, suiteEnv, suitePort } from './fixtures';

const START_SCRIPT = path.resolve(import.meta.dirname, '..', '..', '..', 'scripts', 'start.mjs');
const HEALTH_POLL_MS = 100;
const children = new Set<ChildProcess>();

function startSuite(suite: string): ChildProcess {
  fs.rmSync(suiteDataDir(suite), { recursive: true, force: true });
  const child = spawn(process.execPath, [START_SCRIPT], {
    env: { ...process.env, ...suiteEnv(suite) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[${suite}] ${chunk}`));
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (!stopping) {
      console.error(`[${suite}] server exited (${signal ?? `code ${code}`}) before the run ended`);
      stop(1);
    }
  });
  return child;
}

async function healthy(suite: string): Promise<void> {
  const url = `http://127.0.0.1:${suitePort(suite)}/api/v1/health`;
  for (;;) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS));
  }
}

let stopping = false;
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  const exit = () => process.exit(code);
  if (children.size === 0) exit();
  for (const child of children) child.on('exit', () => children.size === 0 && exit());
}
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));

const [first, ...rest] = selectedSuites();
if (first) {
  startSuite(first);
  await healthy(first);
  for (const suite of rest) startSuite(suite);
  await Promise.all(rest.map(healthy));
}

const ready = new URL(SERVERS_READY_URL);
http
  .createServer((_req, res) => res.end('ready'))
  .listen(Number(ready.port), ready.hostname, () =>
    console.log(`[e2e] ${selectedSuites().length} servers ready`),
  );
