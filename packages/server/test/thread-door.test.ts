import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Piscina } from 'piscina';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadDoor } from '../scripts/thread-door.mjs';
import { EMBEDDER_WORKER_FILE } from '../src/embedding/embedder-pool.js';
import { compiledSourcesDir } from '../src/lib/entry-module.js';

// piscina require()s a thread's module before import(); Node 20's require() of an ES module once
// aborted a test process. Compiled thread modules are loaded through a CommonJS door instead.
describe('a thread module behind its CommonJS door', () => {
  let dir: string;
  let pool: Piscina | undefined;

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-door-'));
    fs.writeFileSync(
      path.join(dir, 'tasks.js'),
      `import { threadId } from 'node:worker_threads';
export function double(n) { return { value: n * 2, threadId }; }
export async function later(n) { return n + 1; }
export const notATask = 3;
export default function (n) { return -n; }
`,
    );
    fs.writeFileSync(
      path.join(dir, 'broken.js'),
      `throw new Error('the module failed to load');\n`,
    );
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
    for (const name of ['tasks', 'broken']) {
      fs.writeFileSync(path.join(dir, `${name}.cjs`), threadDoor(`./${name}.js`));
    }
  });
  afterAll(async () => {
    await pool?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs each task by name, and the default export, on a thread', async () => {
    pool = new Piscina({ filename: path.join(dir, 'tasks.cjs'), maxThreads: 1 });
    const doubled = (await pool.run(21, { name: 'double' })) as { value: number; threadId: number };
    expect(doubled.value).toBe(42);
    expect(doubled.threadId).toBeGreaterThan(0);
    expect(await pool.run(1, { name: 'later' })).toBe(2);
    expect(await pool.run(5)).toBe(-5);
  });

  it('fails a task the module does not export, naming it', async () => {
    pool ??= new Piscina({ filename: path.join(dir, 'tasks.cjs'), maxThreads: 1 });
    await expect(pool.run(1, { name: 'missing' })).rejects.toThrow(
      './tasks.js exports no task missing',
    );
    await expect(pool.run(1, { name: 'notATask' })).rejects.toThrow('exports no task notATask');
  });

  it("fails each task of a module that cannot load with the module's own error", async () => {
    const broken = new Piscina({ filename: path.join(dir, 'broken.cjs'), maxThreads: 1 });
    try {
      await expect(broken.run(1)).rejects.toThrow('the module failed to load');
      await expect(broken.run(1, { name: 'other' })).rejects.toThrow('the module failed to load');
    } finally {
      await broken.close();
    }
  });

  it('loads neither zod nor the wire schemas on a thread: only the plain values it needs', () => {
    const compiled = compiledSourcesDir()!;
    const doors = fs
      .readdirSync(compiled, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.cjs'))
      // `adam worker`'s process entry, matched by its name: a process, which needs the schemas.
      .filter((f) => !f.endsWith('redis-worker.cjs'));
    expect(doors).toContain(path.join('engine', 'analyze.worker.cjs'));
    for (const door of doors) {
      const loaded = moduleFiles(path.join(compiled, door.replace(/\.cjs$/, '.js')));
      const withZod = loaded.filter((f) => fs.readFileSync(f, 'utf8').includes('$ZodType'));
      expect(
        withZod.map((f) => path.relative(compiled, f)),
        door,
      ).toEqual([]);
    }
  });

  it("is what the server's pools load from the compiled sources", () => {
    const compiled = compiledSourcesDir();
    expect(compiled).toBeDefined();
    expect(EMBEDDER_WORKER_FILE).toBe(path.join(compiled!, 'embedding', 'embedder.worker.cjs'));
    expect(fs.readFileSync(EMBEDDER_WORKER_FILE, 'utf8')).toContain(
      'import("./embedder.worker.js")',
    );
  });
});

/** A compiled module and every file it imports, statically or not, by relative path. */
function moduleFiles(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
      visit(path.resolve(path.dirname(file), spec!));
    }
  };
  visit(entry);
  return [...seen];
}
