import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { hashEmbed } from './__fixtures__/hash-embed.js';
import { EN } from './__fixtures__/paragraphs.js';
import { joinShortSections, sectionLine, splitSections } from './sections.js';
import { segmentText } from './segmenter.js';

const LONG =
  'Worker bees communicate the direction of good forage with a waggle dance performed on the comb.';

describe('sections', () => {
  it('splits at section lines and keeps each heading path', () => {
    const text = [
      'Lead text here.',
      sectionLine('Biology'),
      'Body one.',
      sectionLine('Biology › Wings'),
      'Body two.',
    ].join('\n');
    expect(splitSections(text)).toEqual([
      { section: null, text: 'Lead text here.' },
      { section: 'Biology', text: 'Body one.' },
      { section: 'Biology › Wings', text: 'Body two.' },
    ]);
  });

  it('joins a section too short for a snippet to the one before, a short first one to the next', () => {
    const joined = joinShortSections(
      [
        { section: null, text: 'Tiny lead.' },
        { section: 'Biology', text: LONG },
        { section: 'Etymology', text: 'From Latin apis.' },
        { section: 'Colony', text: LONG },
      ],
      40,
      5,
    );
    expect(joined).toEqual([
      { section: 'Biology', text: `Tiny lead.\n\n${LONG}\n\nFrom Latin apis.` },
      { section: 'Colony', text: LONG },
    ]);
  });

  it('keeps a text without sections whole, short or not', () => {
    expect(joinShortSections([{ section: null, text: 'short' }], 40, 5)).toEqual([
      { section: null, text: 'short' },
    ]);
  });

  it('segments a short section into a snippet instead of dropping its words', async () => {
    const text = [
      EN.physics,
      sectionLine('Etymology'),
      'The word comes from zanzibarian roots.',
      sectionLine('Software'),
      EN.software,
    ].join('\n');
    const r = await segmentText(text, {
      language: 'en',
      settings: DEFAULT_PROCESSING_SETTINGS,
      embed: hashEmbed(),
    });
    const kept = r.accepted;
    const holder = kept.find((c) => c.text.includes('zanzibarian'));
    expect(holder?.section).toBeNull();
    expect(kept.some((c) => c.section === 'Software')).toBe(true);
  });
});
