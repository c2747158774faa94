/** Builds (or checks) the 1M bench data directory: `tsx bench/gen-1m.ts [rows]`. */
import { ensureMillion } from './data-1m.js';

const rows = Number(process.argv[2]) || undefined;
const started = performance.now();
const data = await ensureMillion(rows ? { rows } : {});
console.log(
  `${data.rows.toLocaleString('en')} snippets ready in ${data.dir} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
