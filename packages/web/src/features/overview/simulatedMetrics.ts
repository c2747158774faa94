/**
 * The overview's locally simulated dashboard metrics (spec 000 §3 "Dashboard metrics held
 * locally", §9; spec 002 §9): display-only demo values, never sent to or read from the server.
 * Each tick is a bounded random walk; the spec fixes the tick (5 s) and four clamps, the other
 * steps and starting values are ours.
 */
import { useEffect, useState } from 'react';

export interface SimulatedMetrics {
  /** Percent. */
  cpuUsage: number;
  /** Percent. */
  memoryUsage: number;
  activeJobs: number;
  segmentsPerSecond: number;
  /** Milliseconds. */
  resonanceLatency: number;
  totalSnippets: number;
  totalSegments: number;
  /** 0–1. */
  emotionalDiversity: number;
  /** Megabytes. */
  indexSize: number;
  /** 0–1. */
  cacheHitRate: number;
}

/** Spec 000 §9: the simulated metrics tick every 5 seconds. */
export const SIMULATED_TICK_MS = 5000;

/** Spec 000 §9 clamps (CPU, memory, latency, cache hit); the last two rows are ours. */
export const SIMULATED_BOUNDS = {
  cpuUsage: [20, 80],
  memoryUsage: [40, 90],
  resonanceLatency: [10, 50],
  cacheHitRate: [0.7, 0.95],
  emotionalDiversity: [0, 1],
  activeJobs: [0, 8],
} as const satisfies Partial<Record<keyof SimulatedMetrics, readonly [number, number]>>;

/**
 * Width of one tick's move: the value moves by (random − 0.5) × width, so at most half of it
 * either way. Small against each band, so the figures drift rather than jump.
 */
export const SIMULATED_STEP_WIDTH = {
  cpuUsage: 10,
  memoryUsage: 5,
  resonanceLatency: 5,
  cacheHitRate: 0.05,
  emotionalDiversity: 0.02,
  segmentsPerSecond: 2,
} as const;

/** Share of simulated segments that become snippets (the rest "refused as duplicates"). */
const SIMULATED_SNIPPET_RATIO = 0.8;
/** One 384-dimension float32 vector: 1536 bytes, in MB. */
const SIMULATED_MB_PER_VECTOR = (384 * 4) / (1024 * 1024);

export const INITIAL_SIMULATED_METRICS: SimulatedMetrics = {
  cpuUsage: 45,
  memoryUsage: 62,
  activeJobs: 3,
  segmentsPerSecond: 12,
  resonanceLatency: 24,
  totalSnippets: 15_420,
  totalSegments: 19_275,
  emotionalDiversity: 0.72,
  indexSize: 22.6,
  cacheHitRate: 0.86,
};

const clamp = (value: number, [min, max]: readonly [number, number]) =>
  Math.min(max, Math.max(min, value));

/** One 5 s tick. `random` returns [0, 1) like Math.random; tests pass a fixed one. */
export function nextSimulatedMetrics(
  prev: SimulatedMetrics,
  random: () => number = Math.random,
): SimulatedMetrics {
  const walk = (key: keyof typeof SIMULATED_STEP_WIDTH) =>
    prev[key] + (random() - 0.5) * SIMULATED_STEP_WIDTH[key];

  const segmentsPerSecond = Math.max(0, walk('segmentsPerSecond'));
  // The totals grow by what the simulated rate stored during the tick.
  const segmentsAdded = Math.round(segmentsPerSecond * (SIMULATED_TICK_MS / 1000));
  const snippetsAdded = Math.round(segmentsAdded * SIMULATED_SNIPPET_RATIO);
  const jobMove = random();

  return {
    cpuUsage: clamp(walk('cpuUsage'), SIMULATED_BOUNDS.cpuUsage),
    memoryUsage: clamp(walk('memoryUsage'), SIMULATED_BOUNDS.memoryUsage),
    resonanceLatency: clamp(walk('resonanceLatency'), SIMULATED_BOUNDS.resonanceLatency),
    cacheHitRate: clamp(walk('cacheHitRate'), SIMULATED_BOUNDS.cacheHitRate),
    emotionalDiversity: clamp(walk('emotionalDiversity'), SIMULATED_BOUNDS.emotionalDiversity),
    segmentsPerSecond,
    activeJobs: clamp(
      prev.activeJobs + (jobMove < 1 / 3 ? -1 : jobMove >= 2 / 3 ? 1 : 0),
      SIMULATED_BOUNDS.activeJobs,
    ),
    totalSegments: prev.totalSegments + segmentsAdded,
    totalSnippets: prev.totalSnippets + snippetsAdded,
    indexSize: prev.indexSize + snippetsAdded * SIMULATED_MB_PER_VECTOR,
  };
}

/** The simulated metrics as local state, ticking every SIMULATED_TICK_MS while mounted. */
export function useSimulatedMetrics(random: () => number = Math.random): SimulatedMetrics {
  const [metrics, setMetrics] = useState(INITIAL_SIMULATED_METRICS);
  useEffect(() => {
    const timer = setInterval(
      () => setMetrics((prev) => nextSimulatedMetrics(prev, random)),
      SIMULATED_TICK_MS,
    );
    return () => clearInterval(timer);
  }, [random]);
  return metrics;
}
