import { Module, createRequire } from 'node:module';

/**
 * @fastify/swagger and @fastify/swagger-ui `require('yaml')` when they load, for the YAML
 * document only; loading yaml was most of their cost at start-up (~0.1 s). This puts, where their
 * `require('yaml')` finds it, a stand-in that loads the real package at its first use (GET
 * /api/docs/yaml), so a start that never serves YAML never loads it. Call it before importing
 * them; a second call, or yaml already loaded, leaves things as they are.
 */
export function deferYamlForSwagger(): void {
  const require = createRequire(import.meta.url);
  const fromSwagger = createRequire(require.resolve('@fastify/swagger'));
  const fromUi = createRequire(require.resolve('@fastify/swagger-ui'));
  for (const file of new Set([fromSwagger.resolve('yaml'), fromUi.resolve('yaml')])) {
    if (require.cache[file]) continue;
    let real: Record<PropertyKey, unknown> | null = null;
    const load = () => {
      if (!real) {
        // Out of the way, so that this require reads the package itself (and caches it there).
        delete require.cache[file];
        real = require(file) as Record<PropertyKey, unknown>;
      }
      return real;
    };
    const standIn = new Proxy(
      {},
      {
        get: (_, key) => load()[key],
        has: (_, key) => key in load(),
        ownKeys: () => Reflect.ownKeys(load()),
        getOwnPropertyDescriptor: (_, key) => {
          const d = Reflect.getOwnPropertyDescriptor(load(), key);
          // A proxy may not report a property its (empty) target lacks as non-configurable.
          return d && { ...d, configurable: true };
        },
      },
    );
    const stub = new Module(file);
    stub.filename = file;
    stub.loaded = true;
    stub.exports = standIn;
    require.cache[file] = stub;
  }
}
