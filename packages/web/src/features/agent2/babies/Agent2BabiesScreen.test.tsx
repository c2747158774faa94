import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router';
import { createQueryClient } from '../../../lib/queryClient';
import { json, mockFetch } from '../../../test/fetchMock';
import { Agent2BabiesScreen } from '../Agent2BabiesScreen';
import { evolvedLab, LAB_FIXTURE } from '../lab/lab.fixtures';
import { LabProvider } from '../lab/LabProvider';
import { byFitness, livingBabies, NETWORK_VIEW_MAX, TICK_MS } from '../lab/simulation';
import { DNA_TRAITS, type LabState } from '../lab/types';
import { baby, experience, labState, record } from './babies.testkit';
import { BabiesLaboratory } from './BabiesLaboratory';
import { experienceAnalysis, formatDecimal } from './babiesView';
import { TEST_TYPE_LABELS, TRAIT_LABELS } from './messages';

/** The laboratory over a fixed state: nothing ticks, the figures are known. */
function renderLab(state: LabState = LAB_FIXTURE, running = true) {
  const onRunningChange = vi.fn();
  render(
    <MantineProvider env="test">
      <BabiesLaboratory state={state} running={running} onRunningChange={onRunningChange} />
    </MantineProvider>,
  );
  return { onRunningChange, u: userEvent.setup() };
}

const kpi = (label: string) => screen.getByRole('group', { name: label });
const gridCards = () => within(screen.getByRole('list', { name: 'Grille' })).getAllByRole('button');
const networkNodes = () =>
  within(screen.getByRole('group', { name: 'Réseau neuronal' })).queryAllByRole('button');

afterEach(() => {
  vi.useRealTimers();
});

describe('Digital Babies Laboratory', () => {
  it('shows the generation, the population and the eight KPIs of a known state', () => {
    const state = labState({
      generation: 3,
      tick: 12,
      pruned: 2,
      history: [
        record({ generation: 1, at: 15_000, experiences: 2 }),
        record({ generation: 2, at: 30_000, experiences: 1, capitalized: 1 }),
      ],
      babies: [
        baby('G1-01', {
          fitness: 0.5,
          experiences: [
            experience('a', { score: 0.7 }),
            experience('b', { score: 0.4, capitalized: false }),
          ],
        }),
        baby('G2-01', {
          generation: 2,
          status: 'testing',
          fitness: 0.8,
          experiences: [experience('c', { score: 0.9, capitalized: true })],
        }),
        baby('G1-02', { status: 'archived', fitness: 0.2 }),
      ],
    });
    renderLab(state);

    expect(screen.getByRole('heading', { name: 'Laboratoire des Bébés Numériques' })).toBeVisible();
    expect(screen.getByRole('group', { name: 'Génération' })).toHaveTextContent(/^Génération3$/);
    expect(screen.getByRole('group', { name: 'Population' })).toHaveTextContent(/^Population2$/);
    const tiles = within(screen.getByRole('region', { name: 'Indicateurs du laboratoire' }));
    expect(tiles.getAllByRole('group')).toHaveLength(8);
    expect(kpi('Population vivante')).toHaveTextContent(/^Population vivante21 actif · 1 en test$/);
    // Tick 12 of generation 3, started at tick 10 (30 s): three ticks left.
    expect(kpi('Prochaine génération')).toHaveTextContent('dans 9 s');
    expect(kpi('Meilleure fitness')).toHaveTextContent('80,0 %bébé G2-01');
    expect(kpi('Fitness moyenne')).toHaveTextContent('65,0 %');
    expect(kpi('Taux de réussite')).toHaveTextContent('66,7 %2 réussites sur 3');
    expect(kpi('Expériences menées')).toHaveTextContent(
      /^Expériences menées3depuis la première génération$/,
    );
    expect(kpi('Mémoires capitalisées')).toHaveTextContent(/^Mémoires capitalisées1depuis/);
    // The archived one and the two the lab dropped; 3 kept + 2 dropped were born.
    expect(kpi('Bébés archivés')).toHaveTextContent(/^Bébés archivés35 nés au total$/);
  });

  it('narrows the grid by generation and by minimum fitness', async () => {
    const { u } = renderLab();
    await u.click(screen.getByRole('radio', { name: 'Grille' }));
    const living = livingBabies(LAB_FIXTURE);
    expect(gridCards()).toHaveLength(living.length);

    await u.click(screen.getByRole('combobox', { name: 'Génération' }));
    await u.click(screen.getByRole('option', { name: 'Génération 2' }));
    const second = living.filter((b) => b.generation === 2);
    expect(second.length).toBeGreaterThan(0);
    expect(second.length).toBeLessThan(living.length);
    expect(gridCards().map((c) => c.getAttribute('aria-label'))).toEqual(
      second.map((b) => `Bébé ${b.id}`),
    );

    await u.click(screen.getByRole('combobox', { name: 'Génération' }));
    await u.click(screen.getByRole('option', { name: 'Toutes les générations' }));
    expect(gridCards()).toHaveLength(living.length);
    // Six steps of 5 %: 30 %.
    screen.getByRole('slider', { name: 'Fitness minimale' }).focus();
    for (let i = 0; i < 6; i += 1) await u.keyboard('{ArrowRight}');
    expect(screen.getByRole('slider', { name: 'Fitness minimale' })).toHaveAttribute(
      'aria-valuenow',
      '30',
    );
    const fit = living.filter((b) => b.fitness >= 0.3);
    expect(fit.length).toBeLessThan(living.length);
    expect(gridCards()).toHaveLength(fit.length);
    expect(screen.getByText(`${fit.length} bébés sur ${living.length}`)).toBeVisible();
  });

  it('shows archived babies only when asked', async () => {
    const { u } = renderLab();
    await u.click(screen.getByRole('radio', { name: 'Grille' }));
    expect(gridCards()).toHaveLength(20);
    await u.click(screen.getByRole('switch', { name: 'Afficher les archivés' }));
    expect(gridCards()).toHaveLength(LAB_FIXTURE.babies.length);
  });

  it('draws at most 50 babies in the network, the fittest, even with more to show', async () => {
    // 60 babies, every one alive: more than the network may show.
    const crowded = evolvedLab({ generations: 8 });
    const state = {
      ...crowded,
      babies: crowded.babies.map((b) => ({ ...b, status: 'active' as const })),
    };
    expect(state.babies.length).toBeGreaterThan(NETWORK_VIEW_MAX);
    const { u } = renderLab(state);
    expect(networkNodes()).toHaveLength(NETWORK_VIEW_MAX);
    const fittest = byFitness(state.babies)
      .slice(0, NETWORK_VIEW_MAX)
      .map((b) => `Bébé ${b.id}`);
    expect(
      networkNodes()
        .map((n) => n.getAttribute('aria-label'))
        .sort(),
    ).toEqual(fittest.sort());
    expect(
      screen.getByText(/Les 50 bébés les plus aptes sur 60 sont affichés/),
    ).toBeInTheDocument();

    // The filters narrow the network too.
    await u.click(screen.getByRole('combobox', { name: 'Génération' }));
    await u.click(screen.getByRole('option', { name: 'Génération 9' }));
    expect(networkNodes()).toHaveLength(5);
  });

  it('opens the panel of a baby clicked in the network, with its DNA and last five experiences', async () => {
    const { u } = renderLab();
    const subject = byFitness(livingBabies(LAB_FIXTURE))[0]!;
    await u.click(
      within(screen.getByRole('group', { name: 'Réseau neuronal' })).getByRole('button', {
        name: `Bébé ${subject.id}`,
      }),
    );
    const panel = screen.getByRole('complementary', { name: `Bébé ${subject.id}` });

    const traits = within(within(panel).getByRole('list', { name: 'Traits' })).getAllByRole(
      'listitem',
    );
    expect(traits).toHaveLength(8);
    DNA_TRAITS.forEach((trait, i) => {
      expect(traits[i]).toHaveTextContent(
        `${TRAIT_LABELS[trait]}${trait === 'mutationRate' ? ' (0,10–0,20)' : ''}${formatDecimal(subject.dna[trait])}`,
      );
    });

    const analysis = experienceAnalysis(subject);
    expect(within(panel).getByRole('group', { name: 'Réussites' })).toHaveTextContent(
      `${analysis.successes} / ${analysis.total}`,
    );
    expect(within(panel).getByRole('group', { name: 'Capitalisées' })).toHaveTextContent(
      String(analysis.capitalized),
    );
    const last = within(
      within(panel).getByRole('list', { name: 'Cinq dernières expériences' }),
    ).getAllByRole('listitem');
    expect(last).toHaveLength(5);
    last.forEach((item, i) => {
      const e = analysis.lastFive[i]!;
      expect(item).toHaveTextContent(TEST_TYPE_LABELS[e.testType]);
      expect(item).toHaveTextContent(`Score ${formatDecimal(e.result.score)}`);
      expect(item).toHaveTextContent(e.result.success ? 'Réussie' : 'Échouée');
      if (e.source) expect(item).toHaveTextContent(e.source.text);
    });

    await u.click(within(panel).getByRole('button', { name: 'Fermer' }));
    expect(screen.queryByRole('complementary')).not.toBeInTheDocument();
  });

  it('shows the snippet an experience drew its theme from', async () => {
    const source = {
      id: 42,
      text: 'Honey bees dance to tell their sisters where the flowers are.',
      theme: 'science',
    };
    const state = labState({
      babies: [
        baby('G1-01', {
          experiences: [
            experience('e1', { at: 0, score: 0.8, capitalized: true, theme: 'science', source }),
            experience('e2', { at: 3000, score: 0.3, theme: 'philosophy' }),
          ],
        }),
      ],
    });
    const { u } = renderLab(state);
    await u.click(screen.getByRole('radio', { name: 'Grille' }));
    await u.click(screen.getByRole('button', { name: 'Bébé G1-01' }));
    const items = within(
      screen.getByRole('list', { name: 'Cinq dernières expériences' }),
    ).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('ÉchouéeScore 0,30');
    expect(items[0]).not.toHaveTextContent('Extrait');
    expect(items[1]).toHaveTextContent('RéussieCapitalisée');
    expect(items[1]).toHaveTextContent(`${source.text}Extrait n° 42`);
    const themes = within(screen.getByRole('list', { name: 'Répartition des thèmes' }));
    expect(themes.getAllByRole('listitem').map((t) => t.textContent)).toEqual([
      'Philosophie1',
      'Science1',
    ]);
  });

  it('selects babies from the timeline too', async () => {
    const { u } = renderLab();
    await u.click(screen.getByRole('radio', { name: 'Chronologie' }));
    const timeline = screen.getByRole('group', { name: 'Chronologie' });
    expect(within(timeline).getAllByRole('button')).toHaveLength(20);
    await u.click(within(timeline).getByRole('button', { name: 'Bébé G4-02' }));
    expect(screen.getByRole('complementary', { name: 'Bébé G4-02' })).toBeVisible();
    // A second click on the selected baby closes its panel.
    await u.click(within(timeline).getByRole('button', { name: 'Bébé G4-02' }));
    expect(screen.queryByRole('complementary')).not.toBeInTheDocument();
  });

  it('calls setRunning from the Evolution toggle', async () => {
    const { onRunningChange, u } = renderLab(LAB_FIXTURE, true);
    const toggle = screen.getByRole('switch', { name: 'Évolution' });
    expect(toggle).toBeChecked();
    expect(screen.getByText('Évolution active')).toBeVisible();
    await u.click(toggle);
    expect(onRunningChange).toHaveBeenCalledWith(false);
  });

  it('shows a paused lab as paused', () => {
    renderLab(LAB_FIXTURE, false);
    expect(screen.getByRole('switch', { name: 'Évolution' })).not.toBeChecked();
    expect(screen.getByText('Évolution en pause')).toBeVisible();
  });

  it('explains the rules with the simulation’s constants', () => {
    renderLab();
    const panel = screen.getByRole('region', { name: 'Comment fonctionne le laboratoire' });
    expect(panel).toHaveTextContent('La population initiale compte 20 bébés');
    expect(panel).toHaveTextContent('Toutes les 3 s');
    expect(panel).toHaveTextContent('50 % de chances');
    expect(panel).toHaveTextContent('dépasse 0,60');
    expect(panel).toHaveTextContent('dépasse 0,75, avec 70 % de chances');
    expect(panel).toHaveTextContent('les 30 % les plus aptes se reproduisent : 5 enfants');
    expect(panel).toHaveTextContent('garde les 15 meilleurs');
    expect(panel).toHaveTextContent('entre 0,10 et 0,20');
    expect(panel).toHaveTextContent('au plus 50 bébés');
  });
});

describe('the screen over the shared lab', () => {
  function renderScreen(initialState: LabState) {
    mockFetch({ 'GET /snippets': json({ snippets: [], total: 0 }, 500) });
    render(
      <MemoryRouter initialEntries={['/dashboard/agent2/babies']}>
        <QueryClientProvider client={createQueryClient()}>
          <MantineProvider env="test">
            <LabProvider initialState={initialState}>
              <Agent2BabiesScreen />
            </LabProvider>
          </MantineProvider>
        </QueryClientProvider>
      </MemoryRouter>,
    );
  }

  it('follows the lab as it ticks into the next generation, and stops when paused', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    // Two ticks into generation 4: three more end it.
    renderScreen(LAB_FIXTURE);
    const generation = () => screen.getByRole('group', { name: 'Génération' });
    expect(generation()).toHaveTextContent('4');
    act(() => vi.advanceTimersByTime(3 * TICK_MS));
    expect(generation()).toHaveTextContent('5');
    expect(screen.getByRole('group', { name: 'Population' })).toHaveTextContent('20');

    act(() => screen.getByRole('switch', { name: 'Évolution' }).click());
    expect(screen.getByText('Évolution en pause')).toBeVisible();
    act(() => vi.advanceTimersByTime(10 * TICK_MS));
    expect(generation()).toHaveTextContent('5');
  });
});
