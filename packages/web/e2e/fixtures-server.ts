/**
 * The end-to-end fixtures: a local web site and a fake encyclopedia on fixed ports, shared by
 * every suite's server (each allows them through ADAM_FETCH_ALLOW). Playwright's first
 * webServer runs this until the run ends.
 */
import { startFakeEncyclopedia } from '../../server/test/fixtures/fake-encyclopedia';
import { startFixtureSite } from '../../server/test/fixtures/fixture-site';
import { E2E_PORTS } from './fixtures';

const site = await startFixtureSite(E2E_PORTS.site);
const encyclopedia = await startFakeEncyclopedia(E2E_PORTS.encyclopedia);

const stop = () =>
  void Promise.all([site.close(), encyclopedia.close()]).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
