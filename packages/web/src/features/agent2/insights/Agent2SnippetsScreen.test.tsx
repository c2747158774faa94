import { describe, expect, it } from 'vitest';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json } from '../../../test/fetchMock';
import { snippet } from '../../snippets/snippets.fixtures';
import { Agent2SnippetsScreen } from '../Agent2SnippetsScreen';
import { LAB_FIXTURE } from '../lab/lab.fixtures';
import { createLab } from '../lab/simulation';
import type { LabState } from '../lab/types';
import { renderLab } from '../../../test/renderLab';

const figure = (name: string) => within(screen.getByRole('group', { name }));
const memoryTable = () => within(screen.getByRole('region', { name: 'Memories' }));
const bodyRows = () => memoryTable().getAllByRole('row').slice(1);

function memoriesOf(state: LabState) {
  return state.babies.flatMap((b) => b.capitalizedMemories.map((m) => ({ ...m, baby: b })));
}

describe('Enriched Snippets', () => {
  it('lists the capitalised memories newest first with their baby, theme, score and source', async () => {
    const state = LAB_FIXTURE;
    const memories = memoriesOf(state);
    const withSource = memories.filter((m) => m.source);
    expect(withSource.length).toBeGreaterThan(0);
    renderLab(<Agent2SnippetsScreen />, { state, path: '/dashboard/agent2/snippets' });
    await screen.findByRole('heading', { name: 'Enriched Snippets' });

    expect(figure('Capitalised memories').getByText(String(memories.length))).toBeInTheDocument();
    expect(
      figure('From real snippets').getByText(
        `${withSource.length} (${Math.round((withSource.length / memories.length) * 100)}%)`,
      ),
    ).toBeInTheDocument();

    const newestAt = Math.max(...memories.map((m) => m.at));
    const first = within(bodyRows()[0]!);
    const newest = memories.filter((m) => m.at === newestAt);
    expect(newest.map((m) => m.experienceId)).toContain(bodyRows()[0]!.getAttribute('aria-label'));
    const shown = newest.find((m) => m.experienceId === bodyRows()[0]!.getAttribute('aria-label'))!;
    expect(first.getByText(shown.baby.id)).toBeInTheDocument();
    expect(first.getByText(new RegExp(`^Gen\\. ${shown.baby.generation}`))).toBeInTheDocument();
    expect(first.getByText(shown.score.toFixed(3))).toBeInTheDocument();
    // Rows are in time order, newest first.
    const times = bodyRows().map(
      (row) => memories.find((m) => m.experienceId === row.getAttribute('aria-label'))!.at,
    );
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('filters the memories by theme', async () => {
    const user = userEvent.setup();
    const state = LAB_FIXTURE;
    const memories = memoriesOf(state);
    const philosophy = memories.filter((m) => m.theme === 'philosophy');
    expect(philosophy.length).toBeGreaterThan(0);
    renderLab(<Agent2SnippetsScreen />, { state, path: '/dashboard/agent2/snippets' });

    await user.click(
      await screen.findByRole('radio', { name: `Philosophy (${philosophy.length})` }),
    );
    expect(
      memoryTable().getByText(
        `${Math.min(25, philosophy.length)} of ${philosophy.length} memories`,
      ),
    ).toBeInTheDocument();
    for (const row of bodyRows()) expect(within(row).getByText('Philosophy')).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: `All themes (${memories.length})` }));
    expect(
      memoryTable().getByText(`${Math.min(25, memories.length)} of ${memories.length} memories`),
    ).toBeInTheDocument();
  });

  it('groups the source snippets and opens one in the snippet details', async () => {
    const user = userEvent.setup();
    const state = LAB_FIXTURE;
    const withSource = memoriesOf(state).filter((m) => m.source);
    const counts = new Map<number, number>();
    for (const m of withSource) counts.set(m.source!.id, (counts.get(m.source!.id) ?? 0) + 1);
    const [topId, topCount] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    renderLab(<Agent2SnippetsScreen />, {
      state,
      path: '/dashboard/agent2/snippets',
      routes: {
        [`GET /snippets/${topId}`]: json(snippet(topId, { text: 'The full text of the snippet.' })),
      },
    });

    const sources = within(await screen.findByRole('region', { name: 'Source snippets' }));
    const top = sources.getAllByRole('button')[0]!;
    expect(top).toHaveAccessibleName(`Open snippet ${topId}`);
    expect(
      within(top).getByText(topCount === 1 ? '1 memory' : `${topCount} memories`),
    ).toBeVisible();

    await user.click(top);
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('The full text of the snippet.')).toBeInTheDocument();
  });

  it('explains when memories appear while there is none', async () => {
    const fresh = createLab(3);
    const state = {
      ...fresh,
      babies: fresh.babies.map((b) => ({ ...b, capitalizedMemories: [] })),
    };
    renderLab(<Agent2SnippetsScreen />, { state, path: '/dashboard/agent2/snippets' });
    expect(await screen.findByText('No capitalised memory yet')).toBeInTheDocument();
    expect(screen.getByText(/when an experience scores above 0\.75/)).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Memories' })).not.toBeInTheDocument();
  });
});
