/**
 * The monitoring screens' formulas and thresholds (spec 001 §5, §9), pure so they are tested
 * once and shared by the Control Centre and Performance Monitoring.
 */
import type { MantineColor } from '@mantine/core';
import { formatNumber } from '../../lib/format';

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/** Badge colours and per-core bars: above 80 error, above 60 warning (spec 001 §9). */
const LOAD_ERROR_ABOVE = 80;
const LOAD_WARNING_ABOVE = 60;
/** Alert thresholds (spec 001 §9): CPU critical above 80 %, memory high above 75 %. */
const CPU_CRITICAL_ABOVE = 80;
const MEMORY_HIGH_ABOVE = 75;

export type LoadLevel = 'error' | 'warning' | 'ok';

export function loadLevel(percent: number | null | undefined): LoadLevel {
  if (!isFiniteNumber(percent)) return 'ok';
  if (percent > LOAD_ERROR_ABOVE) return 'error';
  if (percent > LOAD_WARNING_ABOVE) return 'warning';
  return 'ok';
}

const LEVEL_COLOR: Record<LoadLevel, MantineColor> = {
  error: 'red',
  warning: 'yellow',
  ok: 'teal',
};

/** The CPU and RAM badges' colour; unknown values are neutral. */
export function badgeColor(percent: number | null | undefined): MantineColor {
  return isFiniteNumber(percent) ? LEVEL_COLOR[loadLevel(percent)] : 'gray';
}

/** A core's bar: red above 80, yellow above 60 (the same thresholds as the badges). */
export function coreBarColor(percent: number | null | undefined): MantineColor {
  return LEVEL_COLOR[loadLevel(percent)];
}

/**
 * Global health: the mean of (100 − CPU) and (100 − memory), clamped to 0–100; unknown when
 * either figure is.
 */
export function globalHealth(
  cpu: number | null | undefined,
  memory: number | null | undefined,
): number | null {
  if (!isFiniteNumber(cpu) || !isFiniteNumber(memory)) return null;
  return clamp((100 - cpu + (100 - memory)) / 2, 0, 100);
}

/** Health reads like the load it mirrors: below 20 is the load's error, below 40 its warning. */
export function healthColor(health: number | null): MantineColor {
  return health === null ? 'gray' : badgeColor(100 - health);
}

/** CPU frequency in GHz: values above 100 are MHz (spec 001 §3, §9). */
export function frequencyGHz(value: number | null | undefined): number | null {
  if (!isFiniteNumber(value)) return null;
  return value > 100 ? value / 1000 : value;
}

const BYTES_PER_GB = 1024 ** 3;

/** Bytes as GB to one decimal (spec 001 §9: bytes ÷ 1024³). */
export function bytesToGB(bytes: number | null | undefined): number | null {
  if (!isFiniteNumber(bytes)) return null;
  return Math.round((bytes / BYTES_PER_GB) * 10) / 10;
}

export type NetworkUnit = 'MB/s' | 'Mbps';
export const NETWORK_UNITS: readonly NetworkUnit[] = ['MB/s', 'Mbps'];

/** A network rate (the wire gives MB/s) in the chosen unit: Mbps is MB/s × 8. */
export function networkRate(mbPerSecond: number | null | undefined, unit: NetworkUnit) {
  if (!isFiniteNumber(mbPerSecond)) return null;
  return unit === 'Mbps' ? mbPerSecond * 8 : mbPerSecond;
}

/** The refresh slider (spec 001 §5, §9): whole seconds, 1–30, default 5. */
export const REFRESH_MIN_S = 1;
export const REFRESH_MAX_S = 30;
const REFRESH_DEFAULT_S = 5;

export function clampRefreshSeconds(value: number | null | undefined): number {
  if (!isFiniteNumber(value)) return REFRESH_DEFAULT_S;
  return clamp(Math.round(value), REFRESH_MIN_S, REFRESH_MAX_S);
}

/** The resources setting's metrics_refresh_ms as the slider's seconds (it may exceed 30 s). */
export function refreshSecondsFromMs(ms: number | null | undefined): number {
  return clampRefreshSeconds(isFiniteNumber(ms) ? ms / 1000 : null);
}

/**
 * The monitoring-realtime tab's `refresh` parameter: milliseconds like the resources setting it
 * overrides (`?refresh=2000`), then clamped like the slider. Anything not a number is ignored
 * (null).
 */
export function parseRefreshParam(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const ms = Number(value);
  return Number.isFinite(ms) ? refreshSecondsFromMs(ms) : null;
}

/**
 * The tab's `active` parameter: whether the screen starts polling. `false`/`0`/`no`/`off` open it
 * paused, `true`/`1`/`yes`/`on` running; anything else is ignored (null).
 */
export function parseActiveParam(value: string | undefined): boolean | null {
  const text = value?.trim().toLowerCase();
  if (text === undefined) return null;
  if (['true', '1', 'yes', 'on'].includes(text)) return true;
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  return null;
}

export interface MonitoringAlert {
  metric: 'cpu' | 'memory';
  severity: 'critical' | 'high';
  value: number;
  threshold: number;
}

/** The notification panel's alerts: CPU above 80 % is critical, memory above 75 % high. */
export function monitoringAlerts(
  cpu: number | null | undefined,
  memory: number | null | undefined,
): MonitoringAlert[] {
  const alerts: MonitoringAlert[] = [];
  if (isFiniteNumber(cpu) && cpu > CPU_CRITICAL_ABOVE) {
    alerts.push({ metric: 'cpu', severity: 'critical', value: cpu, threshold: CPU_CRITICAL_ABOVE });
  }
  if (isFiniteNumber(memory) && memory > MEMORY_HIGH_ABOVE) {
    alerts.push({
      metric: 'memory',
      severity: 'high',
      value: memory,
      threshold: MEMORY_HIGH_ABOVE,
    });
  }
  return alerts;
}

/** `3.20 GHz` (MHz values converted), `-` when unknown. */
export function formatFrequency(value: number | null | undefined): string {
  const ghz = frequencyGHz(value);
  return ghz === null ? '-' : `${formatNumber(ghz, 2)} GHz`;
}

/** `12.3 GB`, `-` when unknown. */
export function formatGB(bytes: number | null | undefined): string {
  const gb = bytesToGB(bytes);
  return gb === null ? '-' : `${formatNumber(gb, 1)} GB`;
}

/** `12.3 / 31.3 GB`; either side `-` when unknown. */
export function formatGBOf(used: number | null | undefined, total: number | null | undefined) {
  const u = bytesToGB(used);
  const t = bytesToGB(total);
  return `${u === null ? '-' : formatNumber(u, 1)} / ${t === null ? '-' : formatNumber(t, 1)} GB`;
}

/** A figure with its unit, `-` (without unit) when unknown. */
export function withUnit(value: number | null | undefined, unit: string, fractionDigits = 1) {
  const text = formatNumber(value, fractionDigits);
  return text === '-' ? text : `${text} ${unit}`;
}

/** A network rate in the chosen unit: `2.5 MB/s` or `20.0 Mbps`. */
export function formatNetworkRate(mbPerSecond: number | null | undefined, unit: NetworkUnit) {
  return withUnit(networkRate(mbPerSecond, unit), unit, unit === 'Mbps' ? 1 : 2);
}
