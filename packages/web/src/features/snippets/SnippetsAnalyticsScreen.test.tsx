import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { SnippetAnalytics } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const analytics: SnippetAnalytics = {
  total: 42,
  themes: [
    { theme: 'science', count: 30 },
    { theme: 'general', count: 12 },
  ],
  quality: Array.from({ length: 10 }, (_, i) => ({
    from: i / 10,
    to: (i + 1) / 10,
    count: i === 8 ? 30 : i === 5 ? 12 : 0,
  })),
  average_quality: 0.78,
  growth: [
    { day: '2026-03-01', count: 40, cumulative: 40 },
    { day: '2026-03-02', count: 2, cumulative: 42 },
  ],
  top_sources: [
    {
      url: 'https://fixture.test/articles/honeybees',
      domain: 'fixture.test',
      title: 'Honeybees',
      segments_count: 30,
    },
  ],
  languages: [
    { language: 'en', count: 40 },
    { language: 'fr', count: 2 },
  ],
};

describe('Snippets analytics', () => {
  it('asks for the last 30 days, then for the period picked', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /analytics/snippets': json(analytics),
    });
    renderApp('/dashboard/snippets/analytics');
    expect(await screen.findByText('Honeybees')).toBeInTheDocument();
    expect(callsTo('GET', '/analytics/snippets')[0]?.query).toEqual({ days: '30' });

    const user = userEvent.setup();
    await user.click(screen.getByText('7 days'));
    await waitFor(() => expect(callsTo('GET', '/analytics/snippets')).toHaveLength(2));
    expect(callsTo('GET', '/analytics/snippets')[1]?.query).toEqual({ days: '7' });
  });

  it('shows the totals, top sources and languages', async () => {
    mockFetch({ ...loggedIn(), 'GET /analytics/snippets': json(analytics) });
    renderApp('/dashboard/snippets/analytics');
    const sources = await screen.findByTestId('top-sources');
    expect(within(sources).getByText('fixture.test')).toBeInTheDocument();
    expect(within(sources).getByText('30')).toBeInTheDocument();
    expect(screen.getByText('0.78')).toBeInTheDocument();
    const languages = screen.getByTestId('languages');
    expect(within(languages).getByText('en')).toBeInTheDocument();
    expect(within(languages).getByText('40 · 95.2%')).toBeInTheDocument();
    expect(within(screen.getByTestId('theme-legend')).getByText('science')).toBeInTheDocument();
  });

  it('says so when the period has no snippets', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /analytics/snippets': json({
        ...analytics,
        total: 0,
        themes: [],
        quality: analytics.quality.map((b) => ({ ...b, count: 0 })),
        average_quality: null,
        growth: [],
        top_sources: [],
        languages: [],
      }),
    });
    renderApp('/dashboard/snippets/analytics');
    expect(await screen.findByText('No snippets in the last 30 days')).toBeInTheDocument();
  });
});
