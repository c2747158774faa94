/**
 * CPU per thread of this process, from /proc/self/task/<tid>/stat (Linux only: elsewhere
 * `threadCpu()` answers null and the bench prints nothing).
 *
 * Node 20 names every thread "node", so the names come from elsewhere:
 * - main: the thread whose tid is the pid;
 * - worker threads: every Worker started after `labelThreads()` gets a preload (`--import`) that
 *   posts its tid on a BroadcastChannel; the label is its script's file name, or for a piscina
 *   worker the task module piscina hands it in its first message (analyze.worker.ts, ...);
 * - the libuv threadpool: the threads that work while `labelThreads()` runs four pbkdf2 on it;
 * - "node's own": the other threads there at that moment (V8's platform workers, which run the
 *   GC's concurrent marking and the JIT's background compiles, the loader's thread);
 * - anything started later and not a Worker: "native, started later" (the loader hooks thread
 *   of each worker under tsx, onnxruntime's pools).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import wt from 'node:worker_threads';

const CHANNEL = 'adam-bench-threads';
/** Clock ticks a second of /proc's utime and stime (USER_HZ: 100 on every Linux we run). */
const TICK_MS = 10;

const labels = new Map<number, string>();
const workerScripts = new Map<number, string>();
let listening: wt.BroadcastChannel | null = null;

/** Ticks (utime + stime) per tid, now; null where /proc/self/task is not there. */
export function threadCpu(): Map<number, number> | null {
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const out = new Map<number, number>();
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // The fields after the name (which may hold spaces) start after its closing parenthesis.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(f[11]) + Number(f[12]));
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return out;
}

function labelOf(tid: number): string {
  if (tid === process.pid) return 'main';
  return labels.get(tid) ?? 'native, started later (loader hooks of workers, onnxruntime, ...)';
}

/**
 * Names the threads there now and every Worker started from here on (see the header). Call
 * before the server starts. Answers false off Linux.
 */
export async function labelThreads(): Promise<boolean> {
  const before = threadCpu();
  if (!before) return false;
  await Promise.all(
    Array.from(
      { length: 4 },
      () => new Promise((resolve) => crypto.pbkdf2('x', 'y', 400_000, 32, 'sha256', resolve)),
    ),
  );
  const after = threadCpu()!;
  for (const [tid, ticks] of after) {
    if (tid === process.pid) continue;
    const pool = ticks - (before.get(tid) ?? 0) >= 5;
    labels.set(tid, pool ? 'libuv threadpool' : "node's own (V8 GC/JIT platform, loader)");
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-bench-threads-'));
  // Read by each worker as it starts: kept until this process ends.
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const preload = path.join(dir, 'report-thread.mjs');
  fs.writeFileSync(
    preload,
    `import fs from 'node:fs';
import { BroadcastChannel, parentPort, threadId } from 'node:worker_threads';
const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
const post = (task) => {
  const c = new BroadcastChannel(${JSON.stringify(CHANNEL)});
  c.postMessage({ tid, threadId, task });
  c.close();
};
post(null);
// A piscina worker learns its task module from its first message. Its own listener is wrapped
// (one of our own would start the port before it is there, and it would miss that message).
if (parentPort) {
  const on = parentPort.on;
  parentPort.on = function (name, fn) {
    if (name !== 'message') return on.call(this, name, fn);
    parentPort.on = on;
    let first = true;
    return on.call(this, name, function (m) {
      if (first && m && typeof m === 'object' && typeof m.filename === 'string') post(m.filename);
      first = false;
      return fn.apply(this, arguments);
    });
  };
}
`,
  );
  const preloadUrl = pathToFileURL(preload).href;
  const Base = wt.Worker;
  class Labelled extends Base {
    constructor(script: string | URL, options: wt.WorkerOptions = {}) {
      super(script, {
        ...options,
        execArgv: [...(options.execArgv ?? process.execArgv), '--import', preloadUrl],
      });
      workerScripts.set(this.threadId, path.basename(String(script)));
    }
  }
  (wt as { Worker: typeof wt.Worker }).Worker = Labelled;
  module.syncBuiltinESMExports();
  listening = new wt.BroadcastChannel(CHANNEL);
  listening.unref();
  listening.onmessage = (e) => {
    const { tid, threadId, task } = (e as MessageEvent).data as {
      tid: number;
      threadId: number;
      task: string | null;
    };
    const name = task ? path.basename(task.replace(/^file:\/\//, '')) : workerScripts.get(threadId);
    labels.set(tid, `worker ${name ?? threadId}`);
  };
  return true;
}

/** CPU ms per thread label between two readings, most first (threads of one label summed). */
export function cpuByLabel(
  from: Map<number, number>,
  to: Map<number, number>,
): { label: string; threads: number; ms: number }[] {
  const sums = new Map<string, { threads: number; ms: number }>();
  for (const [tid, ticks] of to) {
    const ms = (ticks - (from.get(tid) ?? 0)) * TICK_MS;
    const label = labelOf(tid);
    const s = sums.get(label) ?? { threads: 0, ms: 0 };
    s.threads++;
    s.ms += ms;
    sums.set(label, s);
  }
  return [...sums]
    .map(([label, s]) => ({ label, ...s }))
    .filter((s) => s.ms > 0)
    .sort((a, b) => b.ms - a.ms);
}
