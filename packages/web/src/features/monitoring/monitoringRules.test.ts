import { describe, expect, it } from 'vitest';
import {
  badgeColor,
  bytesToGB,
  clampRefreshSeconds,
  coreBarColor,
  formatFrequency,
  formatGB,
  formatGBOf,
  formatNetworkRate,
  frequencyGHz,
  globalHealth,
  healthColor,
  monitoringAlerts,
  networkRate,
  parseActiveParam,
  parseRefreshParam,
  refreshSecondsFromMs,
} from './monitoringRules';

const GB = 1024 ** 3;

describe('monitoring formulas (spec 001 §9)', () => {
  it('global health is the mean of 100 − CPU and 100 − memory, clamped to 0–100', () => {
    expect(globalHealth(20, 40)).toBe(70);
    expect(globalHealth(0, 0)).toBe(100);
    expect(globalHealth(100, 100)).toBe(0);
    expect(globalHealth(37.5, 61.2)).toBeCloseTo(50.65);
    // Out-of-range readings cannot push it past the bounds.
    expect(globalHealth(150, 120)).toBe(0);
    expect(globalHealth(-30, -10)).toBe(100);
    expect(globalHealth(null, 40)).toBeNull();
    expect(globalHealth(20, Number.NaN)).toBeNull();
  });

  it('badges and core bars: above 80 error (red), above 60 warning (yellow), else ok', () => {
    expect(badgeColor(80.1)).toBe('red');
    expect(badgeColor(80)).toBe('yellow');
    expect(badgeColor(60.5)).toBe('yellow');
    expect(badgeColor(60)).toBe('teal');
    expect(badgeColor(null)).toBe('gray');
    expect(coreBarColor(95)).toBe('red');
    expect(coreBarColor(61)).toBe('yellow');
    expect(coreBarColor(60)).toBe('teal');
    // Health mirrors the load: 15 % health is an 85 % load.
    expect(healthColor(15)).toBe('red');
    expect(healthColor(35)).toBe('yellow');
    expect(healthColor(90)).toBe('teal');
    expect(healthColor(null)).toBe('gray');
  });

  it('CPU frequency above 100 is MHz, shown in GHz', () => {
    expect(frequencyGHz(3200)).toBe(3.2);
    expect(frequencyGHz(101)).toBeCloseTo(0.101);
    expect(frequencyGHz(100)).toBe(100);
    expect(frequencyGHz(3.4)).toBe(3.4);
    expect(frequencyGHz(null)).toBeNull();
    expect(formatFrequency(2400)).toBe('2.40 GHz');
    expect(formatFrequency(null)).toBe('-');
  });

  it('memory: bytes ÷ 1024³ to one decimal', () => {
    expect(bytesToGB(GB)).toBe(1);
    expect(bytesToGB(12.34 * GB)).toBe(12.3);
    expect(bytesToGB(12.36 * GB)).toBe(12.4);
    expect(bytesToGB(1_000_000_000)).toBe(0.9);
    expect(bytesToGB(Number.POSITIVE_INFINITY)).toBeNull();
    expect(formatGB(31.26 * GB)).toBe('31.3 GB');
    expect(formatGB(16 * GB)).toBe('16.0 GB');
    expect(formatGBOf(12.34 * GB, null)).toBe('12.3 / - GB');
  });

  it('network: Mbps is MB/s × 8', () => {
    expect(networkRate(2.5, 'MB/s')).toBe(2.5);
    expect(networkRate(2.5, 'Mbps')).toBe(20);
    expect(networkRate(null, 'Mbps')).toBeNull();
    expect(formatNetworkRate(2.5, 'MB/s')).toBe('2.50 MB/s');
    expect(formatNetworkRate(2.5, 'Mbps')).toBe('20.0 Mbps');
    expect(formatNetworkRate(null, 'Mbps')).toBe('-');
  });

  it('alerts: CPU above 80 critical, memory above 75 high, nothing at the thresholds', () => {
    expect(monitoringAlerts(80, 75)).toEqual([]);
    expect(monitoringAlerts(80.5, 75.5)).toEqual([
      { metric: 'cpu', severity: 'critical', value: 80.5, threshold: 80 },
      { metric: 'memory', severity: 'high', value: 75.5, threshold: 75 },
    ]);
    expect(monitoringAlerts(10, 90).map((a) => a.metric)).toEqual(['memory']);
    expect(monitoringAlerts(null, undefined)).toEqual([]);
  });

  it('the refresh slider is an integer clamped to 1–30 s, default 5', () => {
    expect(clampRefreshSeconds(0)).toBe(1);
    expect(clampRefreshSeconds(-4)).toBe(1);
    expect(clampRefreshSeconds(31)).toBe(30);
    expect(clampRefreshSeconds(7.6)).toBe(8);
    expect(clampRefreshSeconds(Number.NaN)).toBe(5);
    // The resources setting is in ms and may exceed the slider's range.
    expect(refreshSecondsFromMs(5000)).toBe(5);
    expect(refreshSecondsFromMs(1000)).toBe(1);
    expect(refreshSecondsFromMs(3_600_000)).toBe(30);
  });

  it("reads the tab's refresh (ms) and active parameters, ignoring nonsense", () => {
    expect(parseRefreshParam('2000')).toBe(2);
    expect(parseRefreshParam('10400')).toBe(10);
    expect(parseRefreshParam('120000')).toBe(30);
    expect(parseRefreshParam('200')).toBe(1);
    expect(parseRefreshParam('soon')).toBeNull();
    expect(parseRefreshParam('')).toBeNull();
    expect(parseRefreshParam(undefined)).toBeNull();
    expect(parseActiveParam('false')).toBe(false);
    expect(parseActiveParam('0')).toBe(false);
    expect(parseActiveParam('TRUE')).toBe(true);
    expect(parseActiveParam('maybe')).toBeNull();
    expect(parseActiveParam(undefined)).toBeNull();
  });
});
