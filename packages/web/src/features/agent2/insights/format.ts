/** Formatters of the Agent 2 insight screens (English, like the menu). */
import { formatNumber, formatPercent } from '../../../lib/format';

/** A 0–1 figure with `digits` decimals; `-` when absent. */
export const decimal = (value: number | null | undefined, digits = 2) =>
  formatNumber(value, digits);

/** A 0–1 share as a percentage: `72.5%`; `-` when absent. */
export const share = (value: number | null | undefined, digits = 1) =>
  formatPercent(typeof value === 'number' ? value * 100 : value, digits);

/** A signed difference: `+0.12`, `-0.03`. */
export function signed(value: number, digits = 2): string {
  const text = Math.abs(value).toFixed(digits);
  if (Number(text) === 0) return text;
  return `${value > 0 ? '+' : '-'}${text}`;
}

/** Simulation time as a clock since the population was created: `0:45`, `12:05`, `1:02:05`. */
export function simClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** A 0–1 axis tick: `0.25`. */
export const axisDecimal = (value: number) => decimal(value, 2);

/** A 0–100 axis tick: `25%`. */
export const axisPercent = (value: number) => `${formatNumber(value, 0)}%`;

/**
 * A count axis from 0 with round steps (1, 2 or 5 × 10ⁿ) and at most `maxSteps` of them, reaching
 * at least `value`: 36 → 0, 10, … 40.
 */
export function niceAxis(value: number, maxSteps = 5): { max: number; ticks: number[] } {
  let step = 1;
  for (let scale = 1; ; scale *= 10) {
    const found = [1, 2, 5].find((m) => Math.max(1, value) / (m * scale) <= maxSteps);
    if (found) {
      step = found * scale;
      break;
    }
  }
  const max = Math.max(step, Math.ceil(value / step) * step);
  return { max, ticks: Array.from({ length: max / step + 1 }, (_, i) => i * step) };
}
