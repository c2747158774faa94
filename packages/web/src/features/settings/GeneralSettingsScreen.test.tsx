import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_GENERAL_SETTINGS, type GeneralSettings } from '@adam/contracts';
import { json, mockFetch, type RecordedCall } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const stored: GeneralSettings = { ...DEFAULT_GENERAL_SETTINGS, api_title: 'Stored API' };

describe('General Settings', () => {
  it('shows the stored values and saves the change with PUT', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/settings/general': json(stored),
      'PUT /admin/settings/general': (call: RecordedCall) =>
        json({ ...stored, ...(call.body as { settings: object }).settings }),
    });
    renderApp('/dashboard/settings/general');
    const u = userEvent.setup();
    expect(await screen.findByDisplayValue('Stored API')).toBeInTheDocument();
    await u.click(screen.getByRole('switch', { name: 'Auto Backup' }));
    const kept = screen.getByRole('textbox', { name: 'Automatic backups kept' });
    await u.clear(kept);
    await u.type(kept, '4');
    await u.click(screen.getByRole('button', { name: 'Save Settings' }));
    await waitFor(() => expect(callsTo('PUT', '/admin/settings/general')).toHaveLength(1));
    expect(callsTo('PUT', '/admin/settings/general')[0]!.body).toEqual({
      settings: { ...stored, auto_backup: false, backup_retention_count: 4 },
    });
    expect(await screen.findByText('General settings saved')).toBeInTheDocument();
  });

  it("shows the server's refusal at the field", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/settings/general': json(stored),
      'PUT /admin/settings/general': json(
        {
          detail: 'Invalid general settings: api_title: is required',
          errors: [{ field: 'api_title', message: 'is required' }],
        },
        422,
      ),
    });
    renderApp('/dashboard/settings/general');
    const u = userEvent.setup();
    await u.clear(await screen.findByDisplayValue('Stored API'));
    await u.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(await screen.findByText('is required')).toBeInTheDocument();
    expect(
      await screen.findByText('Invalid general settings: api_title: is required'),
    ).toBeInTheDocument();
  });

  it('says when the settings cannot be loaded', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/settings/general': json({ detail: 'disk error' }, 500),
    });
    renderApp('/dashboard/settings/general');
    expect(await screen.findByText('Failed to load settings')).toBeInTheDocument();
  });
});
