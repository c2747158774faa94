import type { ExportFormat, Snippet } from '@adam/contracts';

const CSV_COLUMNS = [
  'id',
  'text',
  'theme',
  'quality_score',
  'language',
  'word_count',
  'created_at',
  'indexed_at',
  'source_title',
  'source_url',
] as const;

/** Quotes a CSV field; a leading = + - @ is escaped so spreadsheets do not run it as a formula. */
function csvField(v: unknown): string {
  let s = v === null || v === undefined ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function exportSnippets(
  rows: Snippet[],
  format: ExportFormat,
): { body: string; contentType: string; filename: string } {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
  if (format === 'csv') {
    const lines = [CSV_COLUMNS.join(',')];
    for (const r of rows) {
      const flat: Record<string, unknown> = {
        ...r,
        source_title: r.source_info.title,
        source_url: r.source_info.url,
      };
      lines.push(CSV_COLUMNS.map((c) => csvField(flat[c])).join(','));
    }
    return {
      body: lines.join('\r\n') + '\r\n',
      contentType: 'text/csv; charset=utf-8',
      filename: `snippets-${stamp}.csv`,
    };
  }
  if (format === 'jsonl') {
    return {
      body: rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : ''),
      contentType: 'application/x-ndjson; charset=utf-8',
      filename: `snippets-${stamp}.jsonl`,
    };
  }
  return {
    body: JSON.stringify(
      { snippets: rows, total: rows.length, exported_at: new Date().toISOString() },
      null,
      2,
    ),
    contentType: 'application/json; charset=utf-8',
    filename: `snippets-${stamp}.json`,
  };
}
