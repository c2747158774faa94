import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import prepareTestRun from '../global-setup.js';
import { formatTable, readReport, REPORT_ENV } from './report.js';

/** `npm run test:reliability`: the shared model and compiled sources, and the table of every check's figure at the end. */
export default async function setup(): Promise<() => void> {
  const endTestRun = await prepareTestRun();
  const file = path.join(os.tmpdir(), `adam-reliability-${process.pid}.jsonl`);
  fs.rmSync(file, { force: true });
  process.env[REPORT_ENV] = file; // inherited by the test workers, started after this
  return () => {
    const rows = readReport(file);
    fs.rmSync(file, { force: true });
    endTestRun();
    process.stdout.write(`\nReliability checks (${rows.length})\n${formatTable(rows)}\n`);
  };
}
