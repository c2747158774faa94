import { describe, expect, it } from 'vitest';
import { chunkSections, placeSegments } from './section-places.js';
import type { DocumentSection } from './parsed-document.js';

const seg = (text: string) => ({ text }) as never;

describe('placeSegments', () => {
  const sections: DocumentSection[] = [
    { page: 1, heading: 'One', text: 'Alpha beta gamma.\nDelta epsilon.' },
    { page: 2, heading: 'One', text: 'Zeta eta theta.' },
    { page: 3, heading: 'Two', text: 'Iota kappa lambda.' },
  ];

  it('places each segment in the section where it begins, whitespace aside', () => {
    const places = placeSegments(sections, {
      segments: [seg('Alpha beta gamma. Delta'), seg('epsilon. Zeta eta'), seg('Iota   kappa')],
    });
    expect(places).toEqual([
      { page: 1, heading: 'One' },
      { page: 1, heading: 'One' },
      { page: 3, heading: 'Two' },
    ]);
  });

  it('gives a segment it cannot find the place of the one before', () => {
    const places = placeSegments(sections, {
      segments: [seg('Zeta eta'), seg('rewritten by the segmenter')],
    });
    expect(places).toEqual([
      { page: 2, heading: 'One' },
      { page: 2, heading: 'One' },
    ]);
  });
});

describe('chunkSections', () => {
  it('groups sections up to the size and cuts a long one at a paragraph break', () => {
    const long = `${'a'.repeat(60)}\n\n${'b'.repeat(60)}`;
    const chunks = chunkSections(
      [
        { page: 1, heading: 'H', text: 'short one' },
        { page: 2, heading: 'H', text: long },
      ],
      100,
    );
    expect(chunks.map((c) => c.map((s) => [s.page, s.text.length]))).toEqual([
      [
        [1, 9],
        [2, 60],
      ],
      [[2, 60]],
    ]);
  });
});
