import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { Agent, request } from 'undici';
import { serverRoot } from '../process-tree.js';
import { percentile, percentiles, type ServeChild } from './load-harness.js';

/**
 * What the socket-flood checks share: a flooding client in its own process (its sends never
 * delay the /health probe's event loop) and a sequential /health probe.
 */

export interface SocketClose {
  code: number;
  reason: string;
  /** Messages the flooder had sent on that socket when it closed. */
  sent: number;
}

export interface Flooder {
  /** Each close of a flooding socket, as it happens. */
  closes: SocketClose[];
  /** Resolves at the first close (or when the flooder ends without one: null). */
  firstClose: Promise<SocketClose | null>;
  /** Resolves when the flooder has ended, with all messages it sent. */
  done: Promise<{ sent: number; output: string }>;
  stop: () => Promise<void>;
}

// Sends `request_update` on one authenticated socket at `rate` a second, in batches every 5 ms
// (catching up when its timer is late, never more than 100 ms behind), until `durationMs` has
// passed; with `reconnect`, opens a new socket whenever the server closes one.
const FLOODER = `
const WebSocket = require('ws');
const { url, key, rate, durationMs, reconnect } = JSON.parse(process.env.FLOOD);
const end = Date.now() + durationMs;
const MSG = JSON.stringify({ type: 'request_update' });
let total = 0;
const out = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
function open() {
  const ws = new WebSocket(url, { headers: { 'x-api-key': key } });
  let timer = null;
  let sent = 0;
  ws.once('message', () => {
    let last = performance.now();
    let owed = 0;
    timer = setInterval(() => {
      const now = performance.now();
      owed = Math.min(owed + ((now - last) * rate) / 1000, rate / 10);
      last = now;
      while (owed >= 1 && ws.readyState === WebSocket.OPEN) {
        ws.send(MSG);
        sent++;
        total++;
        owed--;
      }
      if (Date.now() >= end) ws.terminate();
    }, 5);
  });
  ws.on('error', () => {});
  ws.on('close', (code, reason) => {
    clearInterval(timer);
    if (Date.now() < end) out({ event: 'close', code, reason: String(reason), sent });
    if (reconnect && Date.now() < end) open();
    else out({ event: 'done', sent: total });
  });
}
open();
`;

export function startFlooder(
  server: ServeChild,
  opts: { rate: number; durationMs: number; reconnect: boolean },
): Flooder {
  const env = {
    ...process.env,
    FLOOD: JSON.stringify({
      url: `${server.url.replace(/^http/, 'ws')}/api/v1/ws`,
      key: server.key,
      ...opts,
    }),
  };
  // From the server package: `ws` resolves from there.
  const proc = spawn(process.execPath, ['-e', FLOODER], {
    cwd: serverRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closes: SocketClose[] = [];
  let output = '';
  let pending = '';
  let onClose: (c: SocketClose | null) => void = () => {};
  let onDone: (r: { sent: number; output: string }) => void = () => {};
  const firstClose = new Promise<SocketClose | null>((r) => (onClose = r));
  const done = new Promise<{ sent: number; output: string }>((r) => (onDone = r));
  let sent = 0;
  proc.stderr.on('data', (d) => (output += String(d)));
  proc.stdout.on('data', (d) => {
    pending += String(d);
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const msg = JSON.parse(line) as { event: string } & SocketClose;
      if (msg.event === 'close') {
        const c = { code: msg.code, reason: msg.reason, sent: msg.sent };
        closes.push(c);
        onClose(c);
      } else if (msg.event === 'done') sent = msg.sent;
    }
  });
  proc.once('exit', () => {
    onClose(null);
    onDone({ sent, output });
  });
  return {
    closes,
    firstClose,
    done,
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
      await done;
    },
  };
}

export interface HealthProbe {
  /** Latencies of the 200 answers, ms. */
  ms: number[];
  /** Answers other than 200, and transport errors (status 0). */
  other: number[];
}

/** Sequential GET /api/v1/health until `until` settles (and at least `minCalls` were made). */
export async function probeHealth(
  base: string,
  until: Promise<unknown>,
  minCalls = 0,
): Promise<HealthProbe> {
  let settled = false;
  void until.finally(() => (settled = true));
  const agent = new Agent({ connections: 1 });
  const probe: HealthProbe = { ms: [], other: [] };
  try {
    while (!settled || probe.ms.length + probe.other.length < minCalls) {
      const t0 = performance.now();
      try {
        const res = await request(`${base}/api/v1/health`, {
          dispatcher: agent,
          headersTimeout: 30_000,
        });
        await res.body.text();
        if (res.statusCode === 200) probe.ms.push(performance.now() - t0);
        else probe.other.push(res.statusCode);
      } catch {
        probe.other.push(0);
      }
    }
  } finally {
    await agent.close();
  }
  return probe;
}

export interface FloodMeasurement {
  idle: number[];
  flooded: number[];
  /** Answers of /health other than 200, in both phases. */
  other: number[];
  sent: number;
  closes: SocketClose[];
  ratio: number;
  /** The server's CPU use (fraction of one core) in each phase, the probe's own calls included. */
  cpu: { idle: number; flooded: number };
  figure: string;
}

const pct = (f: number) => `${Math.round(f * 100)}%`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU time a process has used, ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * /health p95 idle, then under a flood of `rate` messages a second from one socket (which
 * reconnects whenever the server closes it, so the flood lasts the whole phase), in one run.
 */
export async function measureFlood(
  server: ServeChild,
  opts: { rate: number; idleMs: number; floodMs: number },
): Promise<FloodMeasurement> {
  const pid = server.proc.pid;
  let cpu0 = cpuMs(pid);
  let t0 = performance.now();
  const idle = await probeHealth(server.url, sleep(opts.idleMs));
  const idleCpu = (cpuMs(pid) - cpu0) / (performance.now() - t0);
  // The first second is left out: it holds the flooder's start-up, not the flood.
  const flooder = startFlooder(server, {
    rate: opts.rate,
    durationMs: opts.floodMs + 1000,
    reconnect: true,
  });
  let flooded: HealthProbe;
  try {
    await sleep(1000);
    cpu0 = cpuMs(pid);
    t0 = performance.now();
    flooded = await probeHealth(server.url, flooder.done);
  } finally {
    await flooder.stop();
  }
  const floodCpu = (cpuMs(pid) - cpu0) / (performance.now() - t0);
  const { sent } = await flooder.done;
  const p95Idle = percentile(idle.ms, 95);
  const p95Flood = percentile(flooded.ms, 95);
  const ratio = p95Flood / p95Idle;
  const codes = [...new Set(flooder.closes.map((c) => c.code))].join(', ') || 'none';
  const figure =
    `/health ${percentiles(flooded.ms)} (n=${flooded.ms.length}) under ${sent} messages in ` +
    `${opts.floodMs / 1000} s from one socket, idle ${percentiles(idle.ms)} (n=${idle.ms.length}); ` +
    `p95 ratio ${ratio.toFixed(2)}; ${flooder.closes.length} flooding sockets closed (codes ${codes}); ` +
    `server CPU ${pct(floodCpu)} flooded, ${pct(idleCpu)} idle (the probe's own load included)`;
  return {
    idle: idle.ms,
    flooded: flooded.ms,
    other: [...idle.other, ...flooded.other],
    sent,
    closes: flooder.closes,
    ratio,
    cpu: { idle: idleCpu, flooded: floodCpu },
    figure,
  };
}
