import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * Serves the built console (packages/web/dist) at `/`: its files, and index.html for every
 * client-side route. The build writes a .br and a .gz beside each compressible file
 * (packages/web/scripts/precompress.mjs), sent to a browser that accepts them: no compression
 * work per request. Source maps are neither built nor served. Nothing is served when `webDist`
 * is null or holds no build (API only).
 */
export async function consoleStatic(app: FastifyInstance, webDist: string | null): Promise<void> {
  if (!webDist || !fs.existsSync(path.join(webDist, 'index.html'))) return;
  await app.register(fastifyStatic, { root: webDist, serve: false, preCompressed: true });
  app.get('/*', { schema: { hide: true } }, (req, reply) => {
    if (req.url === '/api' || req.url.startsWith('/api/')) return reply.callNotFound();
    const rel = (req.params as { '*': string })['*'] ?? '';
    // A NUL cannot name a file (the file system call would throw): no such page.
    if (rel.includes('\0')) return reply.callNotFound();
    // A map would publish the console's sources; a build with maps must not serve them.
    if (rel.endsWith('.map')) return reply.callNotFound();
    const file = path.join(webDist, rel);
    if (
      rel &&
      file.startsWith(webDist + path.sep) &&
      fs.statSync(file, { throwIfNoEntry: false })?.isFile()
    ) {
      // Vite names assets by content hash: they never change under the same name.
      if (rel.startsWith('assets/'))
        reply.header('cache-control', 'public, max-age=31536000, immutable');
      else reply.header('cache-control', 'no-cache');
      return reply.sendFile(rel, { cacheControl: false });
    }
    // Client-side routes all load the console.
    return reply
      .header('cache-control', 'no-cache')
      .sendFile('index.html', { cacheControl: false });
  });
}
