import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_QUALITY_SETTINGS, type QualitySettings } from '@adam/contracts';
import { json, mockFetch, type RecordedCall } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const stored: QualitySettings = { ...DEFAULT_QUALITY_SETTINGS, search_history_retention_days: 45 };

describe('Quality Settings', () => {
  it('shows the whole quality section and saves every field with one PUT', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/settings/quality': json(stored),
      'PUT /admin/settings/quality': (call: RecordedCall) =>
        json({ ...stored, ...(call.body as { settings: object }).settings }),
    });
    renderApp('/dashboard/settings/quality');
    const u = userEvent.setup();
    expect(await screen.findByDisplayValue('45 days')).toBeInTheDocument();
    await u.click(screen.getByRole('switch', { name: /Record searches/ }));
    await u.click(screen.getByRole('switch', { name: /Run watched sets after a change/ }));
    const every = screen.getByRole('textbox', { name: 'Run watched sets every' });
    await u.clear(every);
    await u.type(every, '6');
    const threshold = screen.getByRole('textbox', { name: 'Drop threshold (nDCG@10)' });
    await u.clear(threshold);
    await u.type(threshold, '0.1');
    await u.click(screen.getByRole('button', { name: 'Save Quality Settings' }));
    await waitFor(() => expect(callsTo('PUT', '/admin/settings/quality')).toHaveLength(1));
    expect(callsTo('PUT', '/admin/settings/quality')[0]!.body).toEqual({
      settings: {
        search_history_enabled: false,
        search_history_retention_days: 45,
        evaluation_on_change: false,
        evaluation_schedule_hours: 6,
        evaluation_drop_threshold: 0.1,
      },
    });
    expect(await screen.findByText('Quality settings saved')).toBeInTheDocument();
  });

  it("shows the server's refusal at the field", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/settings/quality': json(stored),
      'PUT /admin/settings/quality': json(
        {
          detail: 'Invalid quality settings: evaluation_drop_threshold: must be at least 0.001',
          errors: [{ field: 'evaluation_drop_threshold', message: 'must be at least 0.001' }],
        },
        422,
      ),
    });
    renderApp('/dashboard/settings/quality');
    const u = userEvent.setup();
    await screen.findByDisplayValue('45 days');
    await u.click(screen.getByRole('button', { name: 'Save Quality Settings' }));
    expect(await screen.findByText('must be at least 0.001')).toBeInTheDocument();
  });

  it('says an emptied number is required and sends nothing', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/settings/quality': json(stored),
    });
    renderApp('/dashboard/settings/quality');
    const u = userEvent.setup();
    await u.clear(await screen.findByDisplayValue('45 days'));
    await u.click(screen.getByRole('button', { name: 'Save Quality Settings' }));
    expect(await screen.findByText('is required')).toBeInTheDocument();
    expect(callsTo('PUT', '/admin/settings/quality')).toHaveLength(0);
  });

  it('says when the settings cannot be loaded', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/settings/quality': json({ detail: 'disk error' }, 500),
    });
    renderApp('/dashboard/settings/quality');
    expect(
      await screen.findByText('The quality settings could not be loaded.'),
    ).toBeInTheDocument();
  });
});
