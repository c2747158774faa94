import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import {
  INITIAL_SIMULATED_METRICS,
  SIMULATED_BOUNDS,
  SIMULATED_STEP_WIDTH,
  SIMULATED_TICK_MS,
  nextSimulatedMetrics,
  useSimulatedMetrics,
  type SimulatedMetrics,
} from './simulatedMetrics';

const run = (random: () => number, ticks: number, from = INITIAL_SIMULATED_METRICS) => {
  let m = from;
  for (let i = 0; i < ticks; i++) m = nextSimulatedMetrics(m, random);
  return m;
};

describe('simulated dashboard metrics (spec 000 §9)', () => {
  it('keeps the spec constants: 5 s tick, CPU 20–80, memory 40–90, latency 10–50, cache hit 0.7–0.95', () => {
    expect(SIMULATED_TICK_MS).toBe(5000);
    expect(SIMULATED_BOUNDS.cpuUsage).toEqual([20, 80]);
    expect(SIMULATED_BOUNDS.memoryUsage).toEqual([40, 90]);
    expect(SIMULATED_BOUNDS.resonanceLatency).toEqual([10, 50]);
    expect(SIMULATED_BOUNDS.cacheHitRate).toEqual([0.7, 0.95]);
  });

  it('starts inside every band, and a step is narrower than its band', () => {
    for (const [key, [min, max]] of Object.entries(SIMULATED_BOUNDS)) {
      const value = INITIAL_SIMULATED_METRICS[key as keyof SimulatedMetrics];
      expect(value).toBeGreaterThanOrEqual(min);
      expect(value).toBeLessThanOrEqual(max);
      const width = SIMULATED_STEP_WIDTH[key as keyof typeof SIMULATED_STEP_WIDTH];
      if (width !== undefined) expect(width).toBeLessThan(max - min);
    }
  });

  it('clamps at the top when every draw pushes up', () => {
    const m = run(() => 0.999, 200);
    expect(m.cpuUsage).toBe(80);
    expect(m.memoryUsage).toBe(90);
    expect(m.resonanceLatency).toBe(50);
    expect(m.cacheHitRate).toBe(0.95);
    expect(m.emotionalDiversity).toBe(1);
    expect(m.activeJobs).toBe(SIMULATED_BOUNDS.activeJobs[1]);
  });

  it('clamps at the bottom when every draw pushes down', () => {
    const m = run(() => 0, 200);
    expect(m.cpuUsage).toBe(20);
    expect(m.memoryUsage).toBe(40);
    expect(m.resonanceLatency).toBe(10);
    expect(m.cacheHitRate).toBe(0.7);
    expect(m.segmentsPerSecond).toBe(0);
    expect(m.activeJobs).toBe(0);
  });

  it('brings an out-of-band value back into its band in one tick', () => {
    const wild = {
      ...INITIAL_SIMULATED_METRICS,
      cpuUsage: 150,
      memoryUsage: -3,
      resonanceLatency: 500,
      cacheHitRate: 0.1,
    };
    const m = nextSimulatedMetrics(wild, () => 0.5);
    expect(m).toMatchObject({
      cpuUsage: 80,
      memoryUsage: 40,
      resonanceLatency: 50,
      cacheHitRate: 0.7,
    });
  });

  it('stays within every band over a long random walk', () => {
    let m = INITIAL_SIMULATED_METRICS;
    for (let i = 0; i < 1000; i++) {
      m = nextSimulatedMetrics(m);
      for (const [key, [min, max]] of Object.entries(SIMULATED_BOUNDS)) {
        const value = m[key as keyof SimulatedMetrics];
        expect(value).toBeGreaterThanOrEqual(min);
        expect(value).toBeLessThanOrEqual(max);
      }
    }
  });

  it('grows the totals by what the simulated rate stored in the tick', () => {
    const m = nextSimulatedMetrics(
      { ...INITIAL_SIMULATED_METRICS, segmentsPerSecond: 10 },
      () => 0.5,
    );
    expect(m.segmentsPerSecond).toBe(10);
    expect(m.totalSegments - INITIAL_SIMULATED_METRICS.totalSegments).toBe(50);
    expect(m.totalSnippets - INITIAL_SIMULATED_METRICS.totalSnippets).toBe(40);
    expect(m.indexSize).toBeGreaterThan(INITIAL_SIMULATED_METRICS.indexSize);
  });
});

describe('useSimulatedMetrics', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ticks every 5 s and not before', () => {
    vi.useFakeTimers();
    const { result, unmount } = renderHook(() => useSimulatedMetrics(() => 0.999));
    expect(result.current).toEqual(INITIAL_SIMULATED_METRICS);

    act(() => vi.advanceTimersByTime(SIMULATED_TICK_MS - 1));
    expect(result.current).toEqual(INITIAL_SIMULATED_METRICS);

    act(() => vi.advanceTimersByTime(1));
    const first = result.current;
    expect(first.cpuUsage).toBeGreaterThan(INITIAL_SIMULATED_METRICS.cpuUsage);
    expect(first.cpuUsage).toBeLessThanOrEqual(80);

    act(() => vi.advanceTimersByTime(SIMULATED_TICK_MS));
    expect(result.current.cpuUsage).toBeGreaterThan(first.cpuUsage);

    // Many ticks later the walk sits on the spec's ceilings.
    act(() => vi.advanceTimersByTime(SIMULATED_TICK_MS * 100));
    expect(result.current).toMatchObject({
      cpuUsage: 80,
      memoryUsage: 90,
      resonanceLatency: 50,
      cacheHitRate: 0.95,
    });
    unmount();
    expect(vi.getTimerCount()).toBe(0);
  });
});
