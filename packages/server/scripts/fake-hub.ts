/**
 * Serves a directory of model repositories as a fake model hub, for the end-to-end suite and
 * for trying installs by hand without reaching a real hub:
 *
 *   tsx packages/server/scripts/fake-hub.ts <root> [port]
 *
 * `<root>/<owner>/<name>/...` is repository owner/name on the branch 'main' (see
 * test/fixtures/fake-hub.ts for the layout). Prints the hub's URL on the first line of stdout,
 * then runs until SIGINT or SIGTERM.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startFakeHub } from '../test/fixtures/fake-hub.js';

const [rootArg, portArg] = process.argv.slice(2);
if (!rootArg || (portArg !== undefined && !/^\d+$/.test(portArg))) {
  console.error('usage: fake-hub.ts <root directory of owner/name repositories> [port]');
  process.exit(2);
}
const root = path.resolve(rootArg);
if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
  console.error(`fake-hub: ${root} is not a directory`);
  process.exit(2);
}

const hub = await startFakeHub({ root, port: portArg ? Number(portArg) : 0 });
console.log(hub.url);
const repos = fs
  .readdirSync(root, { withFileTypes: true })
  .filter((owner) => owner.isDirectory())
  .flatMap((owner) =>
    fs
      .readdirSync(path.join(root, owner.name), { withFileTypes: true })
      .filter((name) => name.isDirectory())
      .map((name) => `${owner.name}/${name.name}`),
  );
console.error(
  `fake-hub: serving ${repos.length ? repos.join(', ') : 'no repository yet'} from ${root}`,
);

const stop = () => void hub.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
