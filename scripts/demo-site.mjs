// The sample site ADAM's demo ingests (demo/site/): a few articles about bees, served on loopback
// so the product can be tried with no internet. Used by `npm run demo` and by the README test.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const DEMO_SITE_DIR = path.resolve(import.meta.dirname, '..', 'demo', 'site');

/** The site's articles (its index page only links them). */
export const DEMO_ARTICLES = [
  'honey-bees.html',
  'pollination.html',
  'the-hive.html',
  'honey.html',
  'beekeeping.html',
];

/**
 * Serves demo/site/ on 127.0.0.1:`port` (0: any free port); answers the server and its base URL.
 * Only the site's own files: a name with a slash or a dot-dot is a 404.
 */
export async function serveDemoSite(port = 0) {
  const files = new Set(fs.readdirSync(DEMO_SITE_DIR));
  const server = http.createServer((req, res) => {
    let name;
    try {
      name = decodeURIComponent((req.url ?? '/').split('?')[0].slice(1)) || 'index.html';
    } catch {
      name = ''; // a malformed escape: not one of the files
    }
    if (!files.has(name) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = fs.readFileSync(path.join(DEMO_SITE_DIR, name));
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-length': body.length,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: bound } = server.address();
  return { server, url: `http://127.0.0.1:${bound}` };
}
