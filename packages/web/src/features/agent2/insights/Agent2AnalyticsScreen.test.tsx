import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import { Agent2AnalyticsScreen } from '../Agent2AnalyticsScreen';
import { LAB_FIXTURE } from '../lab/lab.fixtures';
import { renderLab } from '../../../test/renderLab';

const figure = (name: string) => within(screen.getByRole('group', { name }));
const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;

describe('Agent 2 Analytics', () => {
  it('shows the success rate and counts over every experience, archived babies included', async () => {
    const state = LAB_FIXTURE;
    const all = state.babies.flatMap((b) => b.experiences);
    const successes = all.filter((e) => e.result.score > 0.6).length;
    const capitalized = all.filter((e) => e.capitalized).length;
    expect(state.babies.some((b) => b.status === 'archived' && b.experiences.length > 0)).toBe(
      true,
    );

    renderLab(<Agent2AnalyticsScreen />, { state });
    await screen.findByRole('heading', { name: 'Agent 2 Analytics' });

    expect(figure('Success rate').getByText(pct(successes, all.length))).toBeInTheDocument();
    expect(
      figure('Success rate').getByText(
        `${successes} of ${all.length} experiences scored above the success line`,
      ),
    ).toBeInTheDocument();
    expect(figure('Experiences').getByText(String(all.length))).toBeInTheDocument();
    expect(figure('Capitalised').getByText(String(capitalized))).toBeInTheDocument();
    const originality = all.reduce((sum, e) => sum + e.result.originality, 0) / all.length;
    expect(figure('Mean originality').getByText(originality.toFixed(3))).toBeInTheDocument();
  });

  it('lists the themes with their experiences and success rate', async () => {
    const state = LAB_FIXTURE;
    renderLab(<Agent2AnalyticsScreen />, { state });
    const table = within(await screen.findByRole('region', { name: 'Themes' }));
    for (const [theme, label] of [
      ['science', 'Science'],
      ['technology', 'Technology'],
      ['philosophy', 'Philosophy'],
      ['general', 'General'],
    ] as const) {
      const ofTheme = state.babies.flatMap((b) => b.experiences).filter((e) => e.theme === theme);
      const row = within(table.getByRole('row', { name: label }));
      const cells = row.getAllByRole('cell');
      expect(cells[1]).toHaveTextContent(String(ofTheme.length));
      expect(cells[2]).toHaveTextContent(
        pct(ofTheme.filter((e) => e.result.success).length, ofTheme.length),
      );
    }
  });

  it('draws the score distribution, success per generation and originality panels', async () => {
    renderLab(<Agent2AnalyticsScreen />, { state: LAB_FIXTURE });
    for (const name of [
      'Score distribution',
      'Success rate per generation',
      'Originality over time',
    ])
      expect(await screen.findByRole('region', { name })).toBeInTheDocument();
    // The histogram's zones, named with the spec's thresholds.
    const histogram = within(screen.getByRole('region', { name: 'Score distribution' }));
    expect(histogram.getByText('Failure (≤ 0.60)')).toBeInTheDocument();
    expect(histogram.getByText('Success (0.60–0.75)')).toBeInTheDocument();
    expect(histogram.getByText('Capitalisable (> 0.75)')).toBeInTheDocument();
  });
});
