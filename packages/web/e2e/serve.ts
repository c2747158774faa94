/**
 * The end-to-end server: a local fixture site and a fake encyclopedia on fixed ports next to the
 * app's port, then `npm start`'s script with the fetcher allowed to reach them. Playwright's
 * webServer runs this; the specs find the fixtures through `e2e/fixtures.ts`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startFakeEncyclopedia } from '../../server/test/fixtures/fake-encyclopedia';
import { startFixtureSite } from '../../server/test/fixtures/fixture-site';
import { E2E_PORTS } from './fixtures';

const root = path.resolve(import.meta.dirname, '..', '..', '..');

const site = await startFixtureSite(E2E_PORTS.site);
const encyclopedia = await startFakeEncyclopedia(E2E_PORTS.encyclopedia);

const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
  stdio: 'inherit',
  env: {
    ...process.env,
    // The fixture site and the fake encyclopedia: both are loopback, which the fetcher refuses.
    ADAM_FETCH_ALLOW: `127.0.0.1:${site.port},127.0.0.1:${encyclopedia.port}`,
    ADAM_WIKIPEDIA_URL: `${encyclopedia.url}/{lang}`,
  },
});

const stop = async () => {
  child.kill('SIGTERM');
  await Promise.all([site.close(), encyclopedia.close()]);
};
process.on('SIGTERM', () => void stop().then(() => process.exit(0)));
process.on('SIGINT', () => void stop().then(() => process.exit(0)));
child.on('exit', (code) => {
  void Promise.all([site.close(), encyclopedia.close()]).then(() => process.exit(code ?? 0));
});
