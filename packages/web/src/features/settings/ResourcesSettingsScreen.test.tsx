import { describe, expect, it } from 'vitest';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

describe('Resources settings', () => {
  it('saves metrics_refresh_ms under settings', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'PUT /admin/settings/resources': (call) =>
        json((call.body as { settings: Record<string, unknown> }).settings),
    });
    renderApp('/dashboard/settings/resources');
    const u = userEvent.setup();
    const input = await screen.findByLabelText('Metrics Refresh Interval');
    await u.clear(input);
    await u.type(input, '2000');
    await u.click(screen.getByRole('button', { name: 'Save Resources Settings' }));
    expect(await screen.findByText('Resources settings saved')).toBeInTheDocument();
    expect(callsTo('PUT', '/admin/settings/resources')[0]?.body).toEqual({
      settings: { metrics_refresh_ms: 2000 },
    });
  });

  it('holds the interval at 1000 ms or more', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'PUT /admin/settings/resources': (call) =>
        json((call.body as { settings: Record<string, unknown> }).settings),
    });
    renderApp('/dashboard/settings/resources');
    const u = userEvent.setup();
    const input = await screen.findByLabelText('Metrics Refresh Interval');
    await u.clear(input);
    await u.type(input, '500');
    await u.tab();
    expect(input).toHaveValue('1,000 ms');
    await u.click(screen.getByRole('button', { name: 'Save Resources Settings' }));
    expect(await screen.findByText('Resources settings saved')).toBeInTheDocument();
    expect(callsTo('PUT', '/admin/settings/resources')[0]?.body).toEqual({
      settings: { metrics_refresh_ms: 1000 },
    });
  });
});
