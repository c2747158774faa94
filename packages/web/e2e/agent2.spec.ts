import { expect, test, type Page } from '@playwright/test';
import { GENERATION_TICKS, TICK_MS } from '../src/features/agent2/lab/simulation';
import { login, requireChromium, shot } from './support';

/**
 * Agent 2's Digital Babies Laboratory in a real browser: the simulation runs in the page (a
 * generation ends every 5 ticks of 3 s), its views, filters and the selected baby's panel.
 * Each test opens its own page, so its own laboratory: a retry starts from a new population.
 */

requireChromium();

const PATH = '/dashboard/agent2/babies';
/** A generation's length (15 s): the page's clock is moved on by it, not waited for. */
const GENERATION_MS = GENERATION_TICKS * TICK_MS;

/**
 * Opens the laboratory on a page whose clock the test can move on (Playwright's clock: time
 * flows as usual until `runFor`, which fires the timers due in that span at once).
 */
async function openLab(page: Page) {
  await page.clock.install();
  await login(page, PATH);
  await expect(
    page.getByRole('heading', { name: 'Laboratoire des Bébés Numériques' }),
  ).toBeVisible();
}

const headerGeneration = async (page: Page) =>
  Number(
    await page
      .getByRole('group', { name: 'Génération', exact: true })
      .locator('[data-figure]')
      .textContent(),
  );

const evolution = (page: Page) => page.getByRole('switch', { name: 'Évolution', exact: true });
const gridCards = (page: Page) => page.getByRole('list', { name: 'Grille' }).getByRole('button');

/** The view's radio is visually hidden behind its label: click the label. */
async function showView(page: Page, name: 'Réseau neuronal' | 'Grille' | 'Chronologie') {
  await page
    .locator('label')
    .filter({ hasText: new RegExp(`^${name}$`) })
    .click();
  await expect(page.getByRole('radio', { name })).toBeChecked();
}

/** Waits for a second generation (so the generation filter has a choice), then pauses. */
async function secondGenerationPaused(page: Page) {
  await page.clock.runFor(GENERATION_MS);
  await expect.poll(() => headerGeneration(page)).toBeGreaterThan(1);
  await evolution(page).click();
  await expect(evolution(page)).not.toBeChecked();
  await expect(page.getByText('Évolution en pause', { exact: true })).toBeVisible();
  return headerGeneration(page);
}

test('the laboratory evolves a generation while watched', async ({ page }) => {
  await openLab(page);
  await expect(evolution(page)).toBeChecked();
  await expect(page.getByText('Évolution active', { exact: true })).toBeVisible();
  const start = await headerGeneration(page);
  await expect(page.getByRole('group', { name: 'Population', exact: true })).toContainText('20');
  await expect(
    page.getByRole('group', { name: 'Réseau neuronal' }).getByRole('button'),
  ).toHaveCount(20);
  await shot(page, 'agent2-babies-network');

  await page.clock.runFor(GENERATION_MS);
  await expect.poll(() => headerGeneration(page)).toBeGreaterThan(start);
  // 15 kept plus 5 newborns; the others archived.
  await expect(page.getByRole('group', { name: 'Population', exact: true })).toContainText('20');
  await expect(page.getByRole('group', { name: 'Bébés archivés' })).not.toContainText(
    /^Bébés archivés0/,
  );
  // The newborns are in the network, in a column of their own.
  const newest = await headerGeneration(page);
  await expect(page.getByRole('group', { name: 'Réseau neuronal' })).toContainText(
    `Gén. ${newest}`,
  );
});

test('the filters narrow the grid', async ({ page }) => {
  await openLab(page);
  const generation = await secondGenerationPaused(page);
  await showView(page, 'Grille');
  await expect(gridCards(page)).toHaveCount(20);
  await shot(page, 'agent2-babies-grid');

  // The newest generation: its newborns only.
  await page.getByRole('combobox', { name: 'Génération', exact: true }).click();
  await page.getByRole('option', { name: `Génération ${generation}`, exact: true }).click();
  await expect(gridCards(page)).not.toHaveCount(20);
  const newborns = await gridCards(page).count();
  expect(newborns).toBeGreaterThan(0);
  for (const card of await gridCards(page).all()) {
    await expect(card).toContainText(`Génération ${generation} ·`);
  }

  await page.getByRole('combobox', { name: 'Génération', exact: true }).click();
  await page.getByRole('option', { name: 'Toutes les générations' }).click();
  await expect(gridCards(page)).toHaveCount(20);

  // Raise the minimum fitness 5 % at a time until some baby falls below it.
  const slider = page.getByRole('slider', { name: 'Fitness minimale' });
  await slider.focus();
  let minimum = 0;
  while ((await gridCards(page).count()) === 20 && minimum < 100) {
    await page.keyboard.press('ArrowRight');
    minimum += 5;
    await expect(slider).toHaveAttribute('aria-valuenow', String(minimum));
  }
  const left = await gridCards(page).count();
  expect(left).toBeLessThan(20);
  for (const card of await gridCards(page).all()) {
    const text = (await card.textContent()) ?? '';
    const fitness = Number(/Fitness\s*([\d,]+)/.exec(text)![1]!.replace(',', '.'));
    expect(fitness).toBeGreaterThanOrEqual(minimum);
  }
  await expect(page.locator('[data-shown-count]')).toHaveText(
    `${left} bébé${left > 1 ? 's' : ''} sur 20`,
  );
  await shot(page, 'agent2-babies-filtered');
});

test('selecting a baby opens its panel', async ({ page }) => {
  await openLab(page);
  // Paused, so the figures read below hold while they are compared.
  await evolution(page).click();
  await expect(evolution(page)).not.toBeChecked();
  const node = page.getByRole('group', { name: 'Réseau neuronal' }).getByRole('button').first();
  const name = (await node.getAttribute('aria-label'))!;
  await node.click();
  const panel = page.getByRole('complementary', { name });
  await expect(panel).toBeVisible();
  await expect(panel.getByRole('list', { name: 'Traits' }).getByRole('listitem')).toHaveCount(8);
  await expect(panel.getByText('Analyse des expériences')).toBeVisible();
  const successes = panel.getByRole('group', { name: 'Réussites' });
  await expect(successes).toContainText(/\d+ \/ \d+/);
  const total = Number(/\/ (\d+)/.exec((await successes.textContent()) ?? '')![1]);
  // At most five; a newborn may have run fewer experiences.
  await expect(
    panel.getByRole('list', { name: 'Cinq dernières expériences' }).getByRole('listitem'),
  ).toHaveCount(Math.min(5, total));
  await shot(page, 'agent2-babies-panel');

  // Another one, from the grid: the panel follows (a click on the selected one would close it).
  await showView(page, 'Grille');
  await expect(gridCards(page).and(page.locator('[aria-pressed="true"]'))).toHaveAttribute(
    'aria-label',
    name,
  );
  const card = gridCards(page).and(page.locator('[aria-pressed="false"]')).last();
  const other = (await card.getAttribute('aria-label'))!;
  await card.click();
  await expect(page.getByRole('complementary', { name: other })).toBeVisible();
  await page.getByRole('complementary').getByRole('button', { name: 'Fermer' }).click();
  await expect(page.getByRole('complementary')).toHaveCount(0);

  await showView(page, 'Chronologie');
  await page.getByRole('group', { name: 'Chronologie' }).getByRole('button').first().click();
  await expect(page.getByRole('complementary')).toBeVisible();
  await shot(page, 'agent2-babies-timeline');
});
