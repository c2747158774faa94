import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { hashEmbed } from './__fixtures__/hash-embed.js';
import { EN } from './__fixtures__/paragraphs.js';
import { analyzeText } from './analyze.js';
import { SEGMENT_KEY_CHARS, segmentKey, textHash } from './segment-key.js';

const ARTICLE = [EN.physics, EN.software, EN.ethics, EN.history].join('\n\n');
const settings = { ...DEFAULT_PROCESSING_SETTINGS, smart_segmentation: false };

describe('segmentKey', () => {
  it('is the start of the stored text hash, whatever the case, spacing or Unicode form', () => {
    for (const t of ['Plain text.', '  Spaced \n\t out  ', 'ÉCOLE ﬁne', 'e\u0301cole', '']) {
      expect(segmentKey(t)).toBe(textHash(t).slice(0, SEGMENT_KEY_CHARS));
    }
  });
});

describe('analyzeText with known segments', () => {
  it('embeds only the segments it does not know, and leaves the known ones without a vector', async () => {
    const full = await analyzeText(ARTICLE, { language: 'en', settings, embed: hashEmbed() });
    expect(full.segments.length).toBeGreaterThan(3);
    const known = new Set(full.segments.slice(1).map((s) => segmentKey(s.text)));

    const embedded: string[] = [];
    const base = hashEmbed();
    const counting = async (texts: string[]) => {
      embedded.push(...texts);
      return base(texts);
    };
    // Theme prototypes are embedded once per embed function: warm them on this one first.
    await analyzeText(EN.physics, { language: 'en', settings, embed: counting });
    embedded.length = 0;

    const r = await analyzeText(ARTICLE, { language: 'en', settings, embed: counting, known });
    expect(r.segments.map((s) => s.text)).toEqual(full.segments.map((s) => s.text));
    expect(embedded).toEqual([full.segments[0]!.text]);
    expect(r.segments[0]!.vector).toEqual(full.segments[0]!.vector);
    for (const s of r.segments.slice(1)) expect(s.vector.length).toBe(0);
  });
});
