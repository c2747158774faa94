import { describe, expect, it } from 'vitest';
import { analyzeReady, entityText, formatScore } from './analysis';

describe('the analyse rules', () => {
  it('needs a context and a question that are not blank, and nothing in flight', () => {
    expect(analyzeReady('', 'q')).toBe(false);
    expect(analyzeReady('text', '')).toBe(false);
    expect(analyzeReady(' \n\t', 'q')).toBe(false);
    expect(analyzeReady('text', '   ')).toBe(false);
    expect(analyzeReady('text', 'q')).toBe(true);
    expect(analyzeReady('text', 'q', true)).toBe(false);
  });

  it('shows scores to 3 decimals and entities as text - label', () => {
    expect(formatScore(0.812345)).toBe('0.812');
    expect(formatScore(0.5)).toBe('0.500');
    expect(formatScore(1)).toBe('1.000');
    expect(formatScore(Number.NaN)).toBe('-');
    expect(entityText({ text: 'Marie Curie', label: 'PERSON' })).toBe('Marie Curie - PERSON');
  });
});
