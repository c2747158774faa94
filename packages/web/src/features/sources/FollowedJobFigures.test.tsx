import { beforeAll, describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ImportResult, ImportSummary, Job } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { makeJob } from '../jobs/jobs.fixtures';
import { jobFigures } from './jobFigures';

/** The followed job card shows the figures each job type really has (issue 24). */

const ADD = '/dashboard/sources/add';

const importResult: ImportResult = {
  records: 12,
  imported: 9,
  duplicates: 2,
  vectors_reused: 7,
  reembedded: 2,
  analysed: 3,
  rejected: 1,
  sources: 4,
};

/** An import job as the server keeps it: records counted at the check, the result at commit. */
const importJob = (over: Partial<Job> = {}): Job =>
  makeJob({
    id: 41,
    type: 'import_snippets',
    urls: [],
    metadata: { records: 12 },
    // What the importer's progress writes: URL fields it does not use stay 0.
    stats: { urls_total: 0 },
    ...over,
  });

const figuresOf = (card: HTMLElement) =>
  Object.fromEntries(
    within(within(card).getByLabelText('Figures of job 41'))
      .getAllByLabelText(/.+/)
      .map((el) => [el.getAttribute('aria-label'), el.textContent]),
  );

async function followImport(job: Job) {
  const summary: ImportSummary = {
    dry_run: false,
    job_id: 41,
    records: 12,
    restored: 9,
    analysed: 3,
    duplicates: 2,
    vectors_reused: 7,
    to_embed: 2,
    embedder: 'all-MiniLM-L6-v2',
  };
  mockFetch({
    ...loggedIn(),
    'POST /snippets/import': (call) =>
      json(
        call.query.dry_run === 'true' ? { ...summary, dry_run: true, job_id: null } : summary,
        call.query.dry_run === 'true' ? 200 : 202,
      ),
    'GET /sources/jobs/41': json(job),
  });
  renderApp(`${ADD}?tab=import`);
  const u = userEvent.setup({ applyAccept: false });
  await screen.findByRole('tab', { name: 'Import', selected: true });
  const input = screen.getByRole('tabpanel').querySelector<HTMLInputElement>('input[type="file"]')!;
  await u.upload(input, new File(['{"text":"a"}\n'], 'export.jsonl'));
  await u.click(screen.getByRole('button', { name: 'Check file' }));
  await screen.findByLabelText('Check result');
  await u.click(screen.getByRole('button', { name: 'Import' }));
  const card = await screen.findByTestId('followed-job');
  await within(card).findByLabelText('Figures of job 41');
  return card;
}

describe('followed job figures', () => {
  // The screen loads lazily: compiled here, outside the first query's wait, on a busy machine.
  beforeAll(() => import('./AddSourcesScreen'), 60_000);

  it('shows a running import its records, and the rest as not counted yet (all or nothing)', async () => {
    const card = await followImport(importJob({ status: 'processing', progress: 0.4 }));
    expect(figuresOf(card)).toEqual({
      Records: '12',
      Imported: '-',
      Duplicates: '-',
      'Vectors reused': '-',
      'Re-embedded': '-',
      Analysed: '-',
      'Rejected segments': '-',
      Sources: '-',
    });
    expect(within(card).queryByText('URLs')).toBeNull();
  });

  it('shows a finished import what it imported, reused and re-embedded, and says so', async () => {
    const card = await followImport(
      importJob({
        status: 'completed',
        progress: 1,
        metadata: { records: 12, result: importResult },
        stats: { urls_total: 0, segments_created: 9, snippets_added: 9, duplicates: 2 },
      }),
    );
    expect(figuresOf(card)).toEqual({
      Records: '12',
      Imported: '9',
      Duplicates: '2',
      'Vectors reused': '7',
      'Re-embedded': '2',
      Analysed: '3',
      'Rejected segments': '1',
      Sources: '4',
    });
    expect(await screen.findByText('Import done: 9 snippets imported')).toBeInTheDocument();
  });
});

describe('jobFigures', () => {
  const values = (job: Job) => Object.fromEntries(jobFigures(job).map((f) => [f.label, f.value]));

  it('counts an upload in files: parsed, failed, their segments and duplicates', () => {
    const upload = makeJob({
      type: 'process_documents',
      urls: ['file:a/report.pdf', 'file:a/notes.docx', 'file:a/bad.pdf'],
      stats: { urls_total: 3, urls_done: 2, urls_failed: 1, segments_created: 40, duplicates: 5 },
    });
    expect(values(upload)).toEqual({
      Files: 3,
      Parsed: 2,
      Failed: 1,
      Segments: 40,
      Duplicates: 5,
    });
    // Queued, before the job has counted anything: its files are known from the start.
    expect(values(makeJob({ type: 'process_documents', urls: ['file:a/x.md'] }))).toEqual({
      Files: 1,
      Parsed: 0,
      Failed: 0,
      Segments: 0,
      Duplicates: 0,
    });
  });

  it('counts a URL list or a crawl in URLs', () => {
    const urls = makeJob({
      stats: { urls_total: 5, urls_done: 4, urls_failed: 1, segments_created: 30 },
    });
    expect(values(urls)).toEqual({ URLs: 5, Done: 4, Failed: 1, Segments: 30 });
  });

  it('ignores an import result that is not one', () => {
    const odd = importJob({ metadata: { records: 3, result: { imported: 'many' } } });
    expect(values(odd)).toMatchObject({ Records: 3, Imported: null });
  });
});
