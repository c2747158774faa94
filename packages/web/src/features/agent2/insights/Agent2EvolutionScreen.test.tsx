import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, fireEvent, screen, within } from '@testing-library/react';
import { Agent2EvolutionScreen } from '../Agent2EvolutionScreen';
import { LAB_FIXTURE } from '../lab/lab.fixtures';
import { GENERATION_TICKS, TICK_MS, createLab, livingBabies } from '../lab/simulation';
import { renderLab } from '../../../test/renderLab';

const figure = (name: string) => within(screen.getByRole('group', { name }));

describe('Evolution Monitor', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the generation, the population and the fitness gained since generation 1', async () => {
    const state = LAB_FIXTURE;
    const [first, , last] = state.history;
    renderLab(<Agent2EvolutionScreen />, { state });
    await screen.findByRole('heading', { name: 'Evolution Monitor' });

    expect(figure('Generation').getByText(String(state.generation))).toBeInTheDocument();
    expect(figure('Population').getByText(String(livingBabies(state).length))).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Evolution' })).toBeChecked();
    expect(screen.getByText('Evolution Active')).toBeInTheDocument();

    expect(figure('Best fitness').getByText(last!.bestFitness.toFixed(3))).toBeInTheDocument();
    expect(figure('Mean fitness').getByText(last!.meanFitness.toFixed(3))).toBeInTheDocument();
    expect(figure('Best fitness').getByText('At the end of generation 3')).toBeInTheDocument();
    const gain = last!.meanFitness - first!.meanFitness;
    const gainTile = figure('Mean fitness gain since generation 1');
    expect(
      gainTile.getByText(
        `${gain >= 0 ? '+' : '-'}${Math.abs(gain).toFixed(3)} (${gain >= 0 ? '+' : '-'}${Math.abs((gain / first!.meanFitness) * 100).toFixed(1)}%)`,
      ),
    ).toBeInTheDocument();
    expect(gainTile.getByText(/^Generation 1 → 3; best fitness/)).toBeInTheDocument();
  });

  it('waits for the first generation to end before comparing', async () => {
    renderLab(<Agent2EvolutionScreen />, { state: createLab(5) });
    await screen.findByRole('heading', { name: 'Evolution Monitor' });
    expect(
      figure('Best fitness').getByText('Shown once the first generation has ended'),
    ).toBeVisible();
    expect(
      figure('Mean fitness gain since generation 1').getByText(
        'Compared once a generation has ended',
      ),
    ).toBeVisible();
  });

  it('follows the simulation as it ticks, and stops when evolution is paused', () => {
    vi.useFakeTimers();
    const state = LAB_FIXTURE;
    renderLab(<Agent2EvolutionScreen />, { state });
    // The fixture is 2 ticks into generation 4: 3 more end it.
    act(() => vi.advanceTimersByTime((GENERATION_TICKS - 2) * TICK_MS));
    expect(figure('Generation').getByText(String(state.generation + 1))).toBeInTheDocument();
    expect(figure('Best fitness').getByText('At the end of generation 4')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('switch', { name: 'Evolution' }));
    expect(screen.getByText('Evolution Paused')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(GENERATION_TICKS * TICK_MS * 2));
    expect(figure('Generation').getByText(String(state.generation + 1))).toBeInTheDocument();
  });
});
