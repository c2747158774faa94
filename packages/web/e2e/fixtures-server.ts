/**
 * The end-to-end fixtures: a local web site, a fake encyclopedia and a fake model hub on fixed
 * ports, shared by every suite's server (each allows them through ADAM_FETCH_ALLOW). Playwright's
 * first webServer runs this until the run ends.
 *
 * The hub serves the tiny models our generator writes (no weights are ever downloaded): the
 * embedder as adam-test/tiny-embedder, and the tiny token classifier under the repository the
 * catalogue names for the language packs, so installing a pack from the console works offline.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeEncyclopedia } from '../../server/test/fixtures/fake-encyclopedia';
import { startFakeHub } from '../../server/test/fixtures/fake-hub';
import { startFixtureSite } from '../../server/test/fixtures/fixture-site';
import {
  writeTinyEmbeddingModel,
  writeTinyTextClassifier,
  writeTinyTokenClassifier,
} from '../../server/test/fixtures/tiny-models';
import { E2E_HUB_REPOS, E2E_PORTS } from './fixtures';

const hubRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-e2e-hub-'));
await writeTinyEmbeddingModel(path.join(hubRoot, E2E_HUB_REPOS.embedder));
await writeTinyTextClassifier(path.join(hubRoot, E2E_HUB_REPOS.sentiment));
for (const repo of E2E_HUB_REPOS.languagePacks) {
  await writeTinyTokenClassifier(path.join(hubRoot, repo));
}

const site = await startFixtureSite(E2E_PORTS.site);
const encyclopedia = await startFakeEncyclopedia(E2E_PORTS.encyclopedia);
const hub = await startFakeHub({ root: hubRoot, port: E2E_PORTS.hub });

const stop = () =>
  void Promise.all([site.close(), encyclopedia.close(), hub.close()]).then(() => {
    fs.rmSync(hubRoot, { recursive: true, force: true });
    process.exit(0);
  });
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
