import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { bestBaby, createLab, GENERATION_TICKS, TICK_MS } from './lab/simulation';

const PATH = '/dashboard/agent2/control';
// The laboratory seeds itself with the time of its first mount: a fixed clock fixes the population.
const NOW = 1_760_000_000_000;

const advance = (ms: number) => act(() => void vi.advanceTimersByTime(ms));
const generationTitle = (n: number) => screen.findByRole('heading', { name: `Generation ${n}` });
const slider = (label: string) => screen.getByRole('slider', { name: label });
const apply = () => screen.getByRole('button', { name: 'Apply Evolution Parameters' });

function bestRow(label: string) {
  return within(screen.getByText(label, { selector: 'p' }).closest('li')!);
}

async function open() {
  mockFetch(loggedIn());
  const user = userEvent.setup();
  const app = renderApp(PATH);
  await generationTitle(1);
  return { user, app };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], now: NOW });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Agent 2 Control', () => {
  it("shows the spec's sliders at their defaults and the fittest living baby's DNA", async () => {
    await open();
    expect(slider('Creativity Threshold')).toHaveAttribute('aria-valuenow', '0.75');
    expect(slider('Mutation Rate')).toHaveAttribute('aria-valuenow', '0.12');
    expect(slider('Emotional Depth')).toHaveAttribute('aria-valuenow', '0.88');
    expect(slider('Innovation Tendency')).toHaveAttribute('aria-valuenow', '0.65');
    expect(apply()).toBeDisabled();
    expect(screen.queryByText(/static demo/)).not.toBeInTheDocument();

    const best = bestBaby(createLab(NOW))!;
    expect(screen.getByText(best.id)).toBeInTheDocument();
    expect(bestRow('Creativity').getByText(best.dna.creativity.toFixed(2))).toBeInTheDocument();
    expect(bestRow('Analytical').getByText(best.dna.analytical.toFixed(2))).toBeInTheDocument();
    expect(bestRow('Empathy').getByText(best.dna.empathy.toFixed(2))).toBeInTheDocument();
    expect(bestRow('Curiosity').getByText(best.dna.curiosity.toFixed(2))).toBeInTheDocument();
    expect(bestRow('Fitness Score').getByText(best.fitness.toFixed(2))).toBeInTheDocument();
  });

  it('evolves while open: a generation every 5 ticks', async () => {
    await open();
    advance(GENERATION_TICKS * TICK_MS - 1);
    expect(screen.getByRole('heading', { name: 'Generation 1' })).toBeInTheDocument();
    advance(1);
    await generationTitle(2);
  });

  it('Start New Generation ends the generation now, and the laboratory keeps it across Agent 2 screens', async () => {
    const { user } = await open();
    await user.click(screen.getByRole('button', { name: 'Start New Generation' }));
    await generationTitle(2);

    await user.click(screen.getByRole('link', { name: 'Overview' }));
    await screen.findByRole('heading', { name: 'Agent 2 Overview' });
    await user.click(screen.getByRole('link', { name: 'Experience Generator' }));
    await generationTitle(2);
  });

  it('Pause Evolution stops the generations until resumed', async () => {
    const { user } = await open();
    await user.click(screen.getByRole('button', { name: 'Pause Evolution' }));
    expect(screen.getByText('Evolution Paused')).toBeInTheDocument();
    advance(4 * GENERATION_TICKS * TICK_MS);
    expect(screen.getByRole('heading', { name: 'Generation 1' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Resume Evolution' }));
    expect(screen.getByText('Evolution Active')).toBeInTheDocument();
    advance(GENERATION_TICKS * TICK_MS);
    await generationTitle(2);
  });

  it('Reset Population asks first, then starts a new population', async () => {
    const { user } = await open();
    await user.click(screen.getByRole('button', { name: 'Start New Generation' }));
    await user.click(screen.getByRole('button', { name: 'Start New Generation' }));
    await generationTitle(3);

    await user.click(screen.getByRole('button', { name: 'Reset Population' }));
    let dialog = await screen.findByRole('dialog', { name: 'Reset Population' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('heading', { name: 'Generation 3' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Reset Population' }));
    dialog = await screen.findByRole('dialog', { name: 'Reset Population' });
    await user.click(within(dialog).getByRole('button', { name: 'Reset Population' }));
    await generationTitle(1);
    const first = bestBaby(createLab(NOW))!;
    expect(bestRow('Creativity').queryByText(first.dna.creativity.toFixed(2))).toBeNull();
  });

  it('Apply Evolution Parameters sets them in the simulation, the mutation rate within 0.1–0.2', async () => {
    const { user } = await open();
    expect(slider('Mutation Rate')).toHaveAttribute('aria-valuemin', '0.1');
    expect(slider('Mutation Rate')).toHaveAttribute('aria-valuemax', '0.2');

    slider('Emotional Depth').focus();
    await user.keyboard('{ArrowRight}');
    slider('Mutation Rate').focus();
    await user.keyboard('{End}');
    expect(slider('Emotional Depth')).toHaveAttribute('aria-valuenow', '0.89');
    expect(apply()).toBeEnabled();
    await user.click(apply());
    expect(apply()).toBeDisabled();

    // The sliders start from the simulation's params when the screen opens again.
    await user.click(screen.getByRole('link', { name: 'Digital Babies' }));
    await user.click(screen.getByRole('link', { name: 'Experience Generator' }));
    await generationTitle(1);
    expect(slider('Emotional Depth')).toHaveAttribute('aria-valuenow', '0.89');
    expect(slider('Mutation Rate')).toHaveAttribute('aria-valuenow', '0.2');
    expect(slider('Creativity Threshold')).toHaveAttribute('aria-valuenow', '0.75');
  });
});
