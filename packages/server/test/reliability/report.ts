import fs from 'node:fs';

/** One row of `npm run test:reliability`'s table. */
export interface CheckRow {
  /** What is checked, short: "login timing: unknown user vs wrong password". */
  check: string;
  /** Attempts made (requests, kills, forms tried...). */
  runs: number;
  /** Attempts that broke the promise; the test asserts 0 after reporting. */
  failures: number;
  /** The measured figure next to its reference: "p99 38 ms (hello-world 2 ms)". */
  figure: string;
}

export const REPORT_ENV = 'ADAM_RELIABILITY_REPORT';

/**
 * Records a row for the table. Report before asserting, so a broken promise still shows its
 * figure. Outside `npm run test:reliability` (no report file) it does nothing.
 */
export function report(row: CheckRow): void {
  const file = process.env[REPORT_ENV];
  if (!file) return;
  fs.appendFileSync(file, JSON.stringify(row) + '\n');
}

export function readReport(file: string): CheckRow[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CheckRow);
}

/** The rows as a plain-text table, in the order they were reported. */
export function formatTable(rows: CheckRow[]): string {
  const head: [string, string, string, string] = ['check', 'runs', 'failures', 'figure'];
  const cells = rows.map((r) => [r.check, String(r.runs), String(r.failures), r.figure]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === 1 || i === 2 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}
