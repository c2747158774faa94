import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, useNavigate } from 'react-router';
import { QueryClientProvider } from '@tanstack/react-query';
import { createQueryClient } from '../../../lib/queryClient';
import { json, mockFetch } from '../../../test/fetchMock';
import { snippet } from '../../snippets/snippets.fixtures';
import { LabProvider, useLab, type LabProviderProps } from './LabProvider';
import { LAB_STORAGE_KEY } from './labStorage';
import { labSnippetKeys } from './snippetThemes';
import { createLab, DEFAULT_PARAMS, TICK_MS } from './simulation';

/** Shows the lab's figures and offers its actions and a way to move between screens. */
function Probe() {
  const lab = useLab();
  const navigate = useNavigate();
  const experiences = lab.state.babies.flatMap((b) => b.experiences);
  return (
    <div>
      <output aria-label="tick">{lab.state.tick}</output>
      <output aria-label="generation">{lab.state.generation}</output>
      <output aria-label="seed">{lab.state.seed}</output>
      <output aria-label="emotional depth">{lab.state.params.emotionalDepth}</output>
      <output aria-label="sourced">{experiences.filter((e) => e.source).length}</output>
      <button onClick={() => lab.setRunning(!lab.running)}>
        {lab.running ? 'pause' : 'resume'}
      </button>
      <button onClick={lab.startNewGeneration}>new generation</button>
      <button onClick={lab.reset}>reset</button>
      <button onClick={() => lab.applyParams({ ...DEFAULT_PARAMS, emotionalDepth: 0.3 })}>
        apply
      </button>
      <button onClick={() => void navigate('/dashboard/agent2/babies')}>to babies</button>
      <button onClick={() => void navigate('/dashboard/agent2')}>to agent2 home</button>
      <button onClick={() => void navigate('/dashboard/overview')}>to agent 1</button>
    </div>
  );
}

function renderLab(path: string, props: Omit<LabProviderProps, 'children'> = { seed: 5 }) {
  const queryClient = createQueryClient();
  const result = render(
    <MemoryRouter initialEntries={[path]}>
      <QueryClientProvider client={queryClient}>
        <LabProvider {...props}>
          <Probe />
        </LabProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return { ...result, queryClient };
}

const value = (label: string) => screen.getByRole('status', { name: label }).textContent;
const advance = (ms: number) => act(() => vi.advanceTimersByTime(ms));

beforeEach(() => {
  // Only the tick interval is faked: the queries' own timers stay real.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
});

afterEach(() => {
  vi.useRealTimers();
  window.localStorage.clear();
});

describe('LabProvider', () => {
  it('is kept across a reload: the same population, generation and pause; reset stores a new one', async () => {
    mockFetch({});
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const first = renderLab('/dashboard/agent2/control', {});
    await user.click(screen.getByRole('button', { name: 'new generation' }));
    await user.click(screen.getByRole('button', { name: 'new generation' }));
    advance(2 * TICK_MS);
    await user.click(screen.getByRole('button', { name: 'pause' }));
    const seed = value('seed');
    expect(value('generation')).toBe('3');
    expect(value('tick')).toBe('2');
    first.unmount();
    expect(window.localStorage.getItem(LAB_STORAGE_KEY)).not.toBeNull();

    const second = renderLab('/dashboard/agent2/control', {});
    expect(value('seed')).toBe(seed);
    expect(value('generation')).toBe('3');
    expect(value('tick')).toBe('2');
    advance(5 * TICK_MS);
    expect(value('tick')).toBe('2');
    expect(screen.getByRole('button', { name: 'resume' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'reset' }));
    const newSeed = value('seed');
    expect(newSeed).not.toBe(seed);
    second.unmount();

    renderLab('/dashboard/agent2/control', {});
    expect(value('seed')).toBe(newSeed);
    expect(value('generation')).toBe('1');
  });

  it('a test seed neither reads nor writes the stored laboratory', () => {
    mockFetch({});
    window.localStorage.setItem(LAB_STORAGE_KEY, 'not json');
    renderLab('/dashboard/agent2/control');
    expect(value('seed')).toBe('5');
    expect(window.localStorage.getItem(LAB_STORAGE_KEY)).toBe('not json');
  });

  it('ticks every 3 s on an Agent 2 screen, evolution active from the start', () => {
    mockFetch({});
    renderLab('/dashboard/agent2/control');
    expect(value('tick')).toBe('0');
    advance(TICK_MS - 1);
    expect(value('tick')).toBe('0');
    advance(1);
    expect(value('tick')).toBe('1');
    advance(4 * TICK_MS);
    expect(value('tick')).toBe('5');
    // The fifth tick ended the first generation.
    expect(value('generation')).toBe('2');
  });

  it('stops when the Agent 2 menu is left and goes on, where it was, on coming back', async () => {
    mockFetch({});
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderLab('/dashboard/overview');
    advance(5 * TICK_MS);
    expect(value('tick')).toBe('0');

    await user.click(screen.getByRole('button', { name: 'to babies' }));
    advance(2 * TICK_MS);
    expect(value('tick')).toBe('2');
    await user.click(screen.getByRole('button', { name: 'to agent2 home' }));
    advance(TICK_MS);
    expect(value('tick')).toBe('3');

    await user.click(screen.getByRole('button', { name: 'to agent 1' }));
    advance(10 * TICK_MS);
    expect(value('tick')).toBe('3');
    await user.click(screen.getByRole('button', { name: 'to babies' }));
    advance(TICK_MS);
    expect(value('tick')).toBe('4');
  });

  it('stops while paused and resumes', async () => {
    mockFetch({});
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderLab('/dashboard/agent2/babies');
    advance(TICK_MS);
    await user.click(screen.getByRole('button', { name: 'pause' }));
    advance(10 * TICK_MS);
    expect(value('tick')).toBe('1');
    await user.click(screen.getByRole('button', { name: 'resume' }));
    advance(TICK_MS);
    expect(value('tick')).toBe('2');
  });

  it('starts a generation, applies params and resets to a new population keeping them', async () => {
    mockFetch({});
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderLab('/dashboard/agent2/control');
    expect(value('seed')).toBe('5');
    await user.click(screen.getByRole('button', { name: 'new generation' }));
    expect(value('generation')).toBe('2');
    await user.click(screen.getByRole('button', { name: 'apply' }));
    expect(value('emotional depth')).toBe('0.3');
    advance(2 * TICK_MS);

    await user.click(screen.getByRole('button', { name: 'reset' }));
    expect(value('generation')).toBe('1');
    expect(value('tick')).toBe('0');
    expect(value('seed')).not.toBe('5');
    expect(value('emotional depth')).toBe('0.3');
  });

  it('draws themes from a few real snippets per theme, fetched once the laboratory opens', async () => {
    const server = mockFetch({
      'GET /snippets': (call) =>
        json({
          snippets: [snippet(Number(call.query.page) * 10, { theme: call.query.theme! })],
          total: 1,
          total_exact: true,
          page: 1,
          per_page: 5,
        }),
    });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { queryClient } = renderLab('/dashboard/overview');
    advance(TICK_MS);
    expect(server.callsTo('GET', '/snippets')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'to babies' }));
    await waitFor(() => expect(server.callsTo('GET', '/snippets')).toHaveLength(4));
    expect(server.callsTo('GET', '/snippets').map((c) => c.query)).toEqual(
      ['science', 'technology', 'philosophy', 'general'].map((theme) => ({
        page: '1',
        per_page: '5',
        sort_by: 'quality_score',
        order: 'desc',
        theme,
      })),
    );
    await waitFor(() => expect(queryClient.getQueryData(labSnippetKeys.sources)).toHaveLength(4));
    advance(TICK_MS);
    expect(Number(value('sourced'))).toBeGreaterThan(0);

    await user.click(screen.getByRole('button', { name: 'to agent 1' }));
    await user.click(screen.getByRole('button', { name: 'to babies' }));
    expect(server.callsTo('GET', '/snippets')).toHaveLength(4);
  });

  it('runs on plain themes when the snippets cannot be fetched', async () => {
    const server = mockFetch({ 'GET /snippets': json({ detail: 'boom' }, 500) });
    renderLab('/dashboard/agent2/babies');
    await waitFor(() => expect(server.callsTo('GET', '/snippets')).toHaveLength(4));
    advance(3 * TICK_MS);
    expect(value('tick')).toBe('3');
    expect(value('sourced')).toBe('0');
  });

  it('starts from a given state', () => {
    mockFetch({});
    const initialState = createLab(99);
    render(
      <MemoryRouter initialEntries={['/dashboard/agent2/babies']}>
        <QueryClientProvider client={createQueryClient()}>
          <LabProvider initialState={{ ...initialState, tick: 42 }}>
            <Probe />
          </LabProvider>
        </QueryClientProvider>
      </MemoryRouter>,
    );
    expect(value('tick')).toBe('42');
    expect(value('seed')).toBe('99');
  });
});
