import type { ExportFormat, Snippet } from '@adam/contracts';

/**
 * The serializer exports had before they streamed: the whole file made at once. The streamed
 * export (on its thread) must give these bytes, so both the writer's and the thread's tests
 * compare against this one copy.
 */
export function wholeFile(rows: Snippet[], format: ExportFormat, exportedAt: string): string {
  const COLUMNS = [
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
    'section',
  ];
  const field = (v: unknown) => {
    let s = v === null || v === undefined ? '' : String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  if (format === 'csv') {
    const lines = [COLUMNS.join(',')];
    for (const r of rows) {
      const flat: Record<string, unknown> = {
        ...r,
        source_title: r.source_info.title,
        source_url: r.source_info.url,
      };
      lines.push(COLUMNS.map((c) => field(flat[c])).join(','));
    }
    return lines.join('\r\n') + '\r\n';
  }
  if (format === 'jsonl')
    return rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
  return JSON.stringify({ snippets: rows, total: rows.length, exported_at: exportedAt }, null, 2);
}
