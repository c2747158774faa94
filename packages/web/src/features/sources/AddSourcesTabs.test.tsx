import { beforeAll, describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { UPLOAD_LIMITS, type ImportSummary } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { makeJob } from '../jobs/jobs.fixtures';

const ADD = '/dashboard/sources/add';
const now = () => new Date().toISOString();
/** jsdom's Blob has no text(): read it as a browser of old would. */
const readText = (blob: Blob) =>
  new Promise<string>((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.readAsText(blob);
  });
const panel = () => screen.getByRole('tabpanel');

async function paste(name: string, text: string) {
  const u = userEvent.setup();
  const box = await screen.findByRole('textbox', { name });
  await u.click(box);
  await u.paste(text);
  return u;
}

const summary = (over: Partial<ImportSummary> = {}): ImportSummary => ({
  dry_run: true,
  job_id: null,
  records: 12,
  restored: 9,
  analysed: 3,
  duplicates: 2,
  vectors_reused: 7,
  to_embed: 2,
  embedder: 'all-MiniLM-L6-v2',
  ...over,
});

describe('Add Sources tabs', () => {
  // The screen loads lazily: compiled here, outside the first query's wait, on a busy machine.
  beforeAll(() => import('./AddSourcesScreen'), 60_000);

  it('opens the tab the URL names and keeps the chosen tab in the URL', async () => {
    mockFetch({ ...loggedIn() });
    const { location } = renderApp(`${ADD}?tab=crawl`);
    expect(await screen.findByRole('textbox', { name: 'Start URLs' })).toBeVisible();
    expect(screen.queryByRole('textbox', { name: 'URLs' })).toBeNull();
    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: 'Import' }));
    await waitFor(() => expect(location()).toBe(`${ADD}?tab=import`));
    await u.click(screen.getByRole('tab', { name: 'URL list' }));
    await waitFor(() => expect(location()).toBe(ADD));
    expect(screen.getByRole('textbox', { name: 'URLs' })).toBeVisible();
  });

  describe('Crawl a site', () => {
    it('sends the crawl as asked', async () => {
      const { callsTo } = mockFetch({
        ...loggedIn(),
        'POST /sources/crawl': json({
          job_id: 21,
          start_urls: ['https://docs.test/'],
          status: 'pending',
        }),
        'GET /sources/jobs/21': json(makeJob({ id: 21, type: 'crawl_site' })),
      });
      renderApp(`${ADD}?tab=crawl`);
      const u = await paste('Start URLs', '  https://docs.test/  \n\n');
      await u.click(screen.getByRole('radio', { name: 'Path prefix' }));
      const depth = screen.getByRole('textbox', { name: 'Max depth' });
      await u.clear(depth);
      await u.paste('5');
      const pages = screen.getByRole('textbox', { name: 'Max pages' });
      await u.clear(pages);
      await u.paste('2000');
      await paste('Include patterns', '/docs/*\n\n');
      await paste('Exclude patterns', '*/tag/*\n*?page=*');
      await u.click(screen.getByRole('switch', { name: /Use sitemaps/ }));
      await u.click(within(panel()).getByRole('combobox', { name: 'Priority' }));
      await u.click(await screen.findByRole('option', { name: 'high' }));
      await u.click(screen.getByRole('button', { name: 'Start crawl' }));

      await waitFor(() => expect(callsTo('POST', '/sources/crawl')).toHaveLength(1));
      expect(callsTo('POST', '/sources/crawl')[0]?.body).toEqual({
        start_urls: ['https://docs.test/'],
        scope: 'prefix',
        max_depth: 5,
        max_pages: 2000,
        include_patterns: ['/docs/*'],
        exclude_patterns: ['*/tag/*', '*?page=*'],
        use_sitemaps: false,
        language: 'auto',
        priority: 'high',
      });
      expect(await screen.findByTestId('followed-job')).toHaveTextContent('Job #21');
    });

    it("shows a followed crawl's live counts and skip reasons", async () => {
      let job = makeJob({ id: 21, type: 'crawl_site' });
      mockFetch({
        ...loggedIn(),
        'POST /sources/crawl': json({
          job_id: 21,
          start_urls: ['https://docs.test/'],
          status: 'pending',
        }),
        'GET /sources/jobs/21': () => json(job),
      });
      renderApp(`${ADD}?tab=crawl`);
      await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
      const socket = FakeWebSocket.latest()!;
      act(() => socket.open());
      const u = await paste('Start URLs', 'https://docs.test/');
      await u.click(screen.getByRole('button', { name: 'Start crawl' }));
      const card = await screen.findByTestId('followed-job');
      await within(card).findByTestId('job-status');
      job = { ...job, status: 'processing' };
      act(() =>
        socket.push({
          type: 'job_progress',
          job_id: 21,
          progress: 0.2,
          stage: 'Crawled 40 pages (depth 2): 30 stored, 12 skipped, 55 queued',
          stats: {
            crawl: {
              discovered: 107,
              queued: 55,
              fetched: 40,
              stored: 30,
              skipped: {
                robots: 4,
                scope: 0,
                pattern: 0,
                duplicate: 8,
                too_large: 0,
                noindex: 0,
                error: 0,
              },
              depth: 2,
            },
          },
          segmentation_method: null,
          last_fallback_reason: null,
          timestamp: now(),
        }),
      );
      const progress = await within(card).findByLabelText('Crawl progress');
      expect(within(progress).getByTestId('crawl-progress-discovered')).toHaveTextContent('107');
      expect(within(progress).getByTestId('crawl-progress-queued')).toHaveTextContent('55');
      expect(within(progress).getByTestId('crawl-progress-fetched')).toHaveTextContent('40');
      expect(within(progress).getByTestId('crawl-progress-stored')).toHaveTextContent('30');
      const skipped = within(progress).getByLabelText('Skipped by reason');
      expect(skipped).toHaveTextContent('robots.txt 4');
      expect(skipped).toHaveTextContent('duplicate 8');
      expect(skipped).not.toHaveTextContent('scope');
    });

    it("puts the server's 422 details next to the fields they name", async () => {
      const bad = "'ftp://x' is not a valid http(s) URL";
      mockFetch({
        ...loggedIn(),
        'POST /sources/crawl': json(
          {
            detail: `Invalid request body: ...`,
            errors: [
              { field: 'start_urls[1]', message: bad },
              { field: 'max_pages', message: 'must be at most 100000' },
              { field: 'exclude_patterns.1', message: 'must not be empty' },
            ],
          },
          422,
        ),
      });
      renderApp(`${ADD}?tab=crawl`);
      const u = await paste('Start URLs', 'https://ok.test/\n\nftp://x');
      await paste('Exclude patterns', '*/a/*\n\n*/b/*');
      await u.click(screen.getByRole('button', { name: 'Start crawl' }));

      const alert = await screen.findByLabelText('Invalid start URLs');
      expect(within(alert).getByText(`Line 3: ${bad}`)).toBeInTheDocument();
      expect(screen.getByRole('textbox', { name: 'Start URLs' })).toHaveAttribute(
        'aria-invalid',
        'true',
      );
      const pages = screen.getByRole('textbox', { name: 'Max pages' });
      expect(pages).toHaveAttribute('aria-invalid', 'true');
      expect(pages).toHaveAccessibleDescription(expect.stringContaining('must be at most 100000'));
      const exclude = screen.getByRole('textbox', { name: 'Exclude patterns' });
      expect(exclude).toHaveAccessibleDescription(
        expect.stringContaining('Line 3: must not be empty'),
      );
      expect(screen.getByRole('textbox', { name: 'Include patterns' })).not.toHaveAttribute(
        'aria-invalid',
        'true',
      );
    });

    it('puts an unusable pattern, named only in the detail, under its list', async () => {
      const detail = 'The include pattern 1 contains a space or a control character at position 3';
      mockFetch({ ...loggedIn(), 'POST /sources/crawl': json({ detail }, 422) });
      renderApp(`${ADD}?tab=crawl`);
      const u = await paste('Start URLs', 'https://ok.test/');
      await paste('Include patterns', '/a\u0001b');
      await u.click(screen.getByRole('button', { name: 'Start crawl' }));
      await waitFor(() =>
        expect(
          screen.getByRole('textbox', { name: 'Include patterns' }),
        ).toHaveAccessibleDescription(expect.stringContaining(detail)),
      );
    });
  });

  describe('Upload files', () => {
    it('refuses a file over the limit, or of another type, before sending anything', async () => {
      const { callsTo } = mockFetch({ ...loggedIn() });
      renderApp(`${ADD}?tab=upload`);
      const u = userEvent.setup({ applyAccept: false });
      const huge = new File(['%PDF-1.7'], 'huge.pdf', { type: 'application/pdf' });
      Object.defineProperty(huge, 'size', { value: UPLOAD_LIMITS.max_file_bytes + 1 });
      const exe = new File(['MZ'], 'tool.exe');
      const input = await screen.findByLabelText('Files');
      await u.upload(input, [huge, exe]);

      const refused = await screen.findByLabelText('Files not added');
      expect(refused).toHaveTextContent('huge.pdf is 50 MB: a file may be at most 50 MB');
      expect(refused).toHaveTextContent('tool.exe: not a PDF, DOCX, Markdown, HTML or text file');
      expect(screen.queryByRole('table', { name: 'Chosen files' })).toBeNull();
      expect(screen.getByRole('button', { name: 'Upload files' })).toBeDisabled();
      expect(callsTo('POST', '/sources/upload')).toHaveLength(0);
    });

    it("checks against the server's current upload limits, not the built-in ones", async () => {
      const { callsTo } = mockFetch({
        ...loggedIn(),
        'GET /admin/settings/uploads': json({ max_file_mib: 2, max_files: 2, max_total_mib: 3 }),
      });
      renderApp(`${ADD}?tab=upload`);
      const u = userEvent.setup();
      const sized = (name: string, bytes: number) => {
        const f = new File(['text'], name, { type: 'text/plain' });
        Object.defineProperty(f, 'size', { value: bytes });
        return f;
      };
      const MIB = 1024 * 1024;
      const input = await screen.findByLabelText('Files');
      // The limits shown, and checked, once the server's have arrived.
      expect(
        await within(panel()).findByText(/Up to 2 files, 2 MB each, 3 MB in all/),
      ).toBeInTheDocument();
      // big.txt is under the built-in 50 MiB, over the server's 2.
      await u.upload(input, [
        sized('big.txt', 3 * MIB),
        sized('a.txt', 2 * MIB),
        sized('b.txt', 1.5 * MIB),
        sized('c.txt', 1000),
        sized('d.txt', 1000),
      ]);
      const refused = await screen.findByLabelText('Files not added');
      expect(refused).toHaveTextContent('big.txt is 3 MB: a file may be at most 2 MB');
      expect(refused).toHaveTextContent('b.txt: one upload may hold at most 3 MB in all');
      expect(refused).toHaveTextContent('d.txt: at most 2 files in one upload');
      const table = screen.getByRole('table', { name: 'Chosen files' });
      expect(
        within(table)
          .getAllByRole('row')
          .map((r) => r.querySelector('td')?.textContent),
      ).toEqual(['a.txt', 'c.txt']);
      expect(callsTo('POST', '/sources/upload')).toHaveLength(0);
    });

    it('sends the files and options as one form, shows a refusal, then follows the job', async () => {
      let answer = json(
        { detail: 'Unsupported files: notes.md is not text (it holds NUL bytes)' },
        415,
      );
      const { callsTo } = mockFetch({
        ...loggedIn(),
        'POST /sources/upload': () => answer,
        'GET /sources/jobs/31': json(makeJob({ id: 31, type: 'process_documents' })),
      });
      renderApp(`${ADD}?tab=upload`);
      const u = userEvent.setup();
      const pdf = new File(['%PDF-1.7 body'], 'report.pdf', { type: 'application/pdf' });
      const md = new File(['# Notes'], 'notes.md', { type: 'text/markdown' });
      await u.upload(await screen.findByLabelText('Files'), [pdf, md]);
      const table = await screen.findByRole('table', { name: 'Chosen files' });
      expect(within(table).getAllByRole('row')).toHaveLength(2);
      await u.click(within(panel()).getByRole('combobox', { name: 'Language' }));
      await u.click(await screen.findByRole('option', { name: 'French' }));

      await u.click(screen.getByRole('button', { name: 'Upload files' }));
      const refusal = await screen.findByLabelText('Upload refused');
      expect(refusal).toHaveTextContent('notes.md is not text (it holds NUL bytes)');
      const call = callsTo('POST', '/sources/upload')[0]!;
      const form = call.rawBody as FormData;
      expect(form).toBeInstanceOf(FormData);
      expect(form.get('language')).toBe('fr');
      expect(form.get('priority')).toBe('normal');
      expect(form.has('min_quality')).toBe(false);
      expect((form.getAll('files') as File[]).map((f) => f.name)).toEqual([
        'report.pdf',
        'notes.md',
      ]);
      // The browser sets the multipart type with its boundary.
      expect(call.headers['content-type']).toBeUndefined();

      answer = json({
        job_id: 31,
        status: 'pending',
        files: [
          {
            name: 'report.pdf',
            type: 'pdf',
            size: 13,
            source_url: 'file:0123456789abcdef/report.pdf',
          },
        ],
      });
      await u.click(within(table).getByRole('button', { name: 'Remove notes.md' }));
      await u.click(screen.getByRole('button', { name: 'Upload files' }));
      expect(await screen.findByText('Job 31 queued with 1 file')).toBeInTheDocument();
      expect(await screen.findByTestId('followed-job')).toHaveTextContent('Job #31');
      expect(screen.queryByLabelText('Upload refused')).toBeNull();
      expect(screen.queryByRole('table', { name: 'Chosen files' })).toBeNull();
    });
  });

  describe('Import', () => {
    const chooseFile = async (u: ReturnType<typeof userEvent.setup>, text: string) => {
      const file = new File([text], 'export.jsonl', { type: '' });
      // FileInput's button carries the label; the file goes to its hidden input.
      const input = panel().querySelector<HTMLInputElement>('input[type="file"]')!;
      await u.upload(input, file);
    };

    it('checks the file first, shows the counts, then imports and follows the job', async () => {
      const { callsTo } = mockFetch({
        ...loggedIn(),
        'POST /snippets/import': (call) =>
          json(
            call.query.dry_run === 'true' ? summary() : summary({ dry_run: false, job_id: 41 }),
            call.query.dry_run === 'true' ? 200 : 202,
          ),
        'GET /sources/jobs/41': json(makeJob({ id: 41, type: 'import_snippets' })),
      });
      renderApp(`${ADD}?tab=import`);
      const u = userEvent.setup({ applyAccept: false });
      await screen.findByRole('tab', { name: 'Import', selected: true });
      expect(screen.getByRole('button', { name: 'Import' })).toBeDisabled();
      await chooseFile(u, '{"text":"a"}\n{"text":"b"}\n');
      await u.click(screen.getByRole('button', { name: 'Check file' }));

      const result = await screen.findByLabelText('Check result');
      for (const [label, value] of [
        ['Records', '12'],
        ['Restored', '9'],
        ['Analysed', '3'],
        ['Duplicates', '2'],
        ['Vectors reused', '7'],
        ['To embed', '2'],
      ] as const) {
        expect(within(result).getByLabelText(label)).toHaveTextContent(value);
      }
      const check = callsTo('POST', '/snippets/import')[0]!;
      expect(check.query.dry_run).toBe('true');
      expect(check.headers['content-type']).toBe('application/x-ndjson');
      expect(await readText(check.rawBody as Blob)).toBe('{"text":"a"}\n{"text":"b"}\n');

      await u.click(screen.getByRole('button', { name: 'Import' }));
      expect(await screen.findByText('Import job 41 queued with 12 records')).toBeInTheDocument();
      expect(callsTo('POST', '/snippets/import')[1]?.query.dry_run).toBe('false');
      expect(await screen.findByTestId('followed-job')).toHaveTextContent('Job #41');
    });

    it('names the bad lines of a refused file and imports nothing', async () => {
      const { callsTo } = mockFetch({
        ...loggedIn(),
        'POST /snippets/import': json(
          {
            detail:
              '2 of 3 lines are not valid records, nothing was imported: line 2: text: required; line 3: not JSON',
            errors: [
              { field: 'line 2', message: 'text: required' },
              { field: 'line 3', message: 'not JSON' },
            ],
          },
          422,
        ),
      });
      renderApp(`${ADD}?tab=import`);
      const u = userEvent.setup({ applyAccept: false });
      await screen.findByRole('tab', { name: 'Import', selected: true });
      await chooseFile(u, '{"text":"a"}\n{"title":"x"}\n{oops\n');
      await u.click(screen.getByRole('button', { name: 'Check file' }));

      const refused = await screen.findByLabelText('Import refused');
      expect(refused).toHaveTextContent('2 of 3 lines are not valid records, nothing was imported');
      const items = within(refused).getAllByRole('listitem');
      expect(items.map((i) => i.textContent)).toEqual([
        'Line 2: text: required',
        'Line 3: not JSON',
      ]);
      expect(screen.getByRole('button', { name: 'Import' })).toBeDisabled();
      expect(callsTo('POST', '/snippets/import')).toHaveLength(1);
    });
  });
});
