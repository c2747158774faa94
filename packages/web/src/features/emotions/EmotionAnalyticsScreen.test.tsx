import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  EMOTIONS,
  type AnalyticsPeriod,
  type EmotionAnalytics,
  type EmotionDistribution,
  type EmotionTimeline,
} from '@adam/contracts';
import { json, mockFetch, type RecordedCall } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { EMOTION_COLORS } from './emotionColors';

const summary = (period: string, withEmotion = 8): EmotionAnalytics => ({
  period: period as AnalyticsPeriod,
  since: period === 'all' ? null : '2026-01-01T00:00:00.000Z',
  total_snippets: 10,
  with_emotion: withEmotion,
  emotions: EMOTIONS.map((emotion, i) => ({
    emotion,
    count: withEmotion ? 8 - i : 0,
    average: withEmotion ? 0.4 - i * 0.05 : 0,
    average_when_present: withEmotion ? 0.5 - i * 0.05 : 0,
    dominant_count: withEmotion && i < 2 ? 4 : 0,
  })),
  dominant: withEmotion ? 'joy' : null,
  diversity: withEmotion ? 0.5 : 0,
});

const distribution = (period: string, withEmotion = 8): EmotionDistribution => ({
  period: period as AnalyticsPeriod,
  total: withEmotion,
  distribution: withEmotion
    ? [
        { emotion: 'joy', count: 6, percentage: 75, average: 0.4 },
        { emotion: 'trust', count: 2, percentage: 25, average: 0.35 },
      ]
    : [],
});

const timeline = (hours: number, total = 2): EmotionTimeline => ({
  hours,
  buckets: Array.from({ length: hours }, (_, i) => ({
    hour: new Date(Date.UTC(2026, 0, 1, i)).toISOString(),
    total: i === hours - 1 ? total : 0,
    averages: Object.fromEntries(EMOTIONS.map((e) => [e, i === hours - 1 ? 0.3 : 0])),
    counts: Object.fromEntries(EMOTIONS.map((e) => [e, 0])),
  })),
});

function routes(withEmotion = 8) {
  return {
    ...loggedIn(),
    'GET /analytics/emotions': (c: RecordedCall) =>
      json(summary(c.query.period ?? 'day', withEmotion)),
    'GET /analytics/emotions/distribution': (c: RecordedCall) =>
      json(distribution(c.query.period ?? 'day', withEmotion)),
    'GET /analytics/emotions/timeline': (c: RecordedCall) =>
      json(timeline(Number(c.query.hours ?? 24), withEmotion ? 2 : 0)),
  };
}

describe('Emotion Analytics', () => {
  it('asks for the day period and a 24-hour timeline by default', async () => {
    const { callsTo } = mockFetch(routes());
    renderApp('/dashboard/emotions');
    await screen.findByRole('heading', { name: 'Emotion Analytics' });
    await waitFor(() => expect(callsTo('GET', '/analytics/emotions/timeline')).toHaveLength(1));
    expect(callsTo('GET', '/analytics/emotions')[0]?.query).toEqual({ period: 'day' });
    expect(callsTo('GET', '/analytics/emotions/distribution')[0]?.query).toEqual({ period: 'day' });
    expect(callsTo('GET', '/analytics/emotions/timeline')[0]?.query).toEqual({ hours: '24' });
    expect(screen.getByRole('radio', { name: 'Day' })).toBeChecked();
    expect(screen.getByRole('radio', { name: '24 h' })).toBeChecked();
  });

  it('shows the distribution with percentages, the dominant emotion, diversity and per-emotion figures', async () => {
    mockFetch(routes());
    renderApp('/dashboard/emotions');
    const dist = await screen.findByRole('region', { name: 'Dominant emotions' });
    expect(within(dist).getByRole('group', { name: 'Dominant joy' })).toHaveTextContent('75.0%');
    expect(within(dist).getByRole('group', { name: 'Dominant trust' })).toHaveTextContent('25.0%');
    expect(
      within(screen.getByRole('group', { name: 'Dominant emotion' })).getByText('Joy'),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole('group', { name: 'Diversity' })).getByText('0.50'),
    ).toBeInTheDocument();
    expect(
      within(screen.getByRole('group', { name: 'With an emotion' })).getByText('8'),
    ).toBeInTheDocument();

    const figures = screen.getByRole('region', { name: 'Per-emotion figures' });
    const rows = within(figures).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(EMOTIONS.length);
    // Sorted by average, strongest first: joy 0.4, count 8, when present 0.5, dominant in 4.
    expect(rows[0]).toHaveAccessibleName('joy');
    expect(
      within(rows[0]!)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['Joy', '8', '0.400', '0.500', '4']);
  });

  it('refetches the figures and the distribution with the chosen period', async () => {
    const { callsTo } = mockFetch(routes());
    renderApp('/dashboard/emotions');
    const u = userEvent.setup();
    await screen.findByRole('region', { name: 'Dominant emotions' });
    await u.click(screen.getByRole('radio', { name: 'Week' }));
    await waitFor(() =>
      expect(callsTo('GET', '/analytics/emotions').map((c) => c.query.period)).toEqual([
        'day',
        'week',
      ]),
    );
    expect(callsTo('GET', '/analytics/emotions/distribution').map((c) => c.query.period)).toEqual([
      'day',
      'week',
    ]);
    await u.click(screen.getByRole('radio', { name: 'All' }));
    await waitFor(() =>
      expect(callsTo('GET', '/analytics/emotions/distribution').at(-1)?.query.period).toBe('all'),
    );
    // The timeline has its own range.
    expect(callsTo('GET', '/analytics/emotions/timeline')).toHaveLength(1);
  });

  it('refetches the timeline with the chosen range', async () => {
    const { callsTo } = mockFetch(routes());
    renderApp('/dashboard/emotions');
    const u = userEvent.setup();
    await screen.findByRole('region', { name: 'Emotion timeline' });
    await u.click(screen.getByRole('radio', { name: '7 d' }));
    await waitFor(() =>
      expect(callsTo('GET', '/analytics/emotions/timeline').map((c) => c.query.hours)).toEqual([
        '24',
        '168',
      ]),
    );
    await u.click(screen.getByRole('radio', { name: '6 h' }));
    await waitFor(() =>
      expect(callsTo('GET', '/analytics/emotions/timeline').at(-1)?.query.hours).toBe('6'),
    );
  });

  it('shows an empty state when no snippet of the period has an emotion', async () => {
    mockFetch(routes(0));
    renderApp('/dashboard/emotions');
    expect(await screen.findByText('No emotions in this period')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Dominant emotions' })).not.toBeInTheDocument();
    expect(await screen.findByText('No snippet was stored in these hours.')).toBeInTheDocument();
  });

  it('gives every emotion of the contract its own colour', () => {
    const colours = EMOTIONS.map((e) => EMOTION_COLORS[e]);
    expect(new Set(colours).size).toBe(EMOTIONS.length);
  });
});
