import { DEFAULT_PROCESSING_SETTINGS, type ProcessingSettings } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { hashEmbed } from './__fixtures__/hash-embed.js';
import { BOILERPLATE, EN, FR } from './__fixtures__/paragraphs.js';
import {
  type Candidate,
  cutThreshold,
  fallbackCandidates,
  regexCandidates,
  segmentText,
} from './segmenter.js';
import { splitSentences } from './sentences.js';
import { countTokens, wordCount } from './text.js';

const settings = (over: Partial<ProcessingSettings> = {}): ProcessingSettings => ({
  ...DEFAULT_PROCESSING_SETTINGS,
  ...over,
});

const ARTICLE = [EN.physics, EN.software, EN.ethics, EN.cooking, EN.history].join('\n\n');

function expectWithinLimits(candidates: Candidate[], s: ProcessingSettings): void {
  expect(candidates.length).toBeGreaterThan(0);
  for (const c of candidates) {
    expect(c.text.length, c.text).toBeLessThanOrEqual(s.segment_max_length);
    expect(countTokens(c.text), c.text).toBeLessThanOrEqual(s.segment_max_tokens);
    expect(c.sentences.length, c.text).toBeLessThanOrEqual(s.segment_max_sentences);
  }
}

/** The overlap is whole sentences within the budget, the end of the text before the segment. */
function expectOverlapCarried(candidates: Candidate[], overlap: number): void {
  expect(candidates[0]?.overlap).toBe('');
  for (let i = 1; i < candidates.length; i++) {
    const prev = candidates[i - 1] as Candidate;
    const c = candidates[i] as Candidate;
    if (!c.overlap) continue;
    expect(c.overlap.length).toBeLessThanOrEqual(overlap);
    expect(c.text.startsWith(`${c.overlap} `)).toBe(true);
    // Whole sentences: they end the previous segment's text, and end as a sentence ends.
    expect(prev.text.endsWith(c.overlap), `${prev.text} | ${c.overlap}`).toBe(true);
    expect(c.overlap, c.text).toMatch(/[.!?…]["”’»)\]]*$/u);
  }
}

describe('segmentText, semantic', () => {
  const tight = settings({
    segment_max_length: 300,
    segment_min_length: 100,
    segment_max_sentences: 2,
    segment_max_tokens: 60,
    segment_overlap: 40,
    segment_min_words: 10,
  });

  it('respects every maximum and carries the overlap into the next segment', async () => {
    const r = await segmentText(ARTICLE, { language: 'en', settings: tight, embed: hashEmbed() });
    expect(r.method).toBe('semantic');
    expect(r.fallback_reason).toBeNull();
    expectWithinLimits(r.candidates, tight);
    expectOverlapCarried(r.candidates, 40);
    for (const c of r.accepted) {
      expect(c.text.length).toBeGreaterThanOrEqual(100);
      expect(wordCount(c.text)).toBeGreaterThanOrEqual(10);
    }
  });

  for (const [name, over] of [
    ['segment_max_sentences', { segment_max_sentences: 2 }],
    ['segment_max_tokens', { segment_max_tokens: 45, segment_max_sentences: 10 }],
    ['segment_max_length', { segment_max_length: 200, segment_max_sentences: 10 }],
  ] as const) {
    it(`holds ${name} when it is the only binding limit`, async () => {
      const s = settings({
        segment_max_length: 3000,
        segment_max_tokens: 2000,
        segment_min_length: 10,
        segment_min_words: 5,
        ...over,
      });
      for (const smart of [true, false]) {
        const r = await segmentText(ARTICLE, {
          language: 'en',
          settings: { ...s, smart_segmentation: smart },
          embed: hashEmbed(),
        });
        expectWithinLimits(r.candidates, s);
        expectOverlapCarried(r.candidates, s.segment_overlap);
      }
    });
  }

  it('respects the default limits too', async () => {
    const s = settings();
    const r = await segmentText(ARTICLE, { language: 'en', settings: s, embed: hashEmbed() });
    expectWithinLimits(r.candidates, s);
    expectOverlapCarried(r.candidates, s.segment_overlap);
    expect(r.accepted.length).toBeGreaterThan(5);
  });

  it('cuts at the topic change when the limits leave the choice', async () => {
    const text = `${EN.volcano} ${EN.bread}`;
    const volcano = new Set(splitSentences(EN.volcano));
    const bread = new Set(splitSentences(EN.bread));
    const roomy = settings({ segment_max_sentences: 6, segment_max_length: 1000 });
    const r = await segmentText(text, { language: 'en', settings: roomy, embed: hashEmbed() });
    expect(r.method).toBe('semantic');
    expect(r.accepted.map((c) => c.sentences)).toEqual([[...volcano], [...bread]]);

    // With at most three sentences per segment, no segment mixes the two topics either (the
    // volcano's last sentence, 110 characters and 19 words, may stand alone: no overlap pads it now).
    const three = settings({ segment_min_length: 100, segment_min_words: 15 });
    const d = await segmentText(text, { language: 'en', settings: three, embed: hashEmbed() });
    expect(d.accepted.length).toBeGreaterThanOrEqual(3);
    for (const c of d.accepted) {
      const topics = new Set(c.sentences.map((s) => (volcano.has(s) ? 'v' : 'b')));
      expect(topics.size, c.sentences.join(' | ')).toBe(1);
    }
  });

  it('cuts a sentence longer than segment_max_length at word boundaries', async () => {
    const long = Array.from({ length: 12 }, (_, i) => `the ${i + 1}th measurement of energy`)
      .join(', ')
      .replace(/^t/, 'T');
    const text = `${long}, all of which agreed with the theory.`;
    const s = settings({ segment_max_length: 120, segment_min_length: 40, segment_overlap: 0 });
    const r = await segmentText(text, { language: 'en', settings: s, embed: hashEmbed() });
    expect(r.candidates.length).toBeGreaterThan(1);
    const words = new Set(text.split(' '));
    for (const c of r.candidates) {
      expect(c.text.length).toBeLessThanOrEqual(120);
      for (const w of c.text.split(' ')) expect(words.has(w), w).toBe(true);
    }
    expect(r.candidates.map((c) => c.text).join(' ')).toBe(text);
  });

  it('embeds the sentences in batches of embedding_batch_size', async () => {
    const embed = hashEmbed();
    const s = settings({ embedding_batch_size: 4 });
    await segmentText(ARTICLE, { language: 'en', settings: s, embed });
    expect(embed.calls.length).toBeGreaterThan(1);
    expect(Math.max(...embed.calls)).toBeLessThanOrEqual(4);
    expect(embed.calls.reduce((a, b) => a + b, 0)).toBe(splitSentences(ARTICLE).length);
  });

  it('gives every candidate a diagnostic and counts before and after', async () => {
    const text = `${ARTICLE}\n\n${BOILERPLATE.menu}\n\n${BOILERPLATE.cookies}`;
    const r = await segmentText(text, { language: 'en', settings: settings(), embed: hashEmbed() });
    expect(r.diagnostics).toHaveLength(r.candidates.length);
    expect(r.segmentation_stats).toEqual({
      method: r.method,
      counts: { before: r.candidates.length, after: r.accepted.length },
    });
    const rejected = r.diagnostics.filter((d) => d.status === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    for (const d of r.diagnostics) {
      expect(d.snippet.length).toBeLessThanOrEqual(120);
      expect(d.score).toBeGreaterThanOrEqual(0);
      expect(d.score).toBeLessThanOrEqual(1);
      if (d.status === 'accepted') expect(d.reason).toBe('accepted');
      else {
        expect(d.reason).toMatch(
          /^(too short \(\d+ < 150 chars\)|too few words \(\d+ < 20\)|quality \d\.\d\d below (threshold 0\.30|min_quality_score 0\.40))$/,
        );
      }
    }
    // The cookie banner is long enough but fails on quality.
    expect(
      r.diagnostics.some(
        (d) => d.snippet.includes('cookies') && /^quality .* below/.test(d.reason),
      ),
    ).toBe(true);
  });

  it('rejects on min_quality_score after the segment checks pass', async () => {
    const s = settings({ segment_quality_threshold: 0, min_quality_score: 0.999 });
    const r = await segmentText(EN.software, { language: 'en', settings: s, embed: hashEmbed() });
    expect(r.diagnostics.some((d) => /below min_quality_score 1\.00$/.test(d.reason))).toBe(true);
  });
});

describe('segmentText, fallbacks', () => {
  it('uses regex directly when smart_segmentation is off, without embedding', async () => {
    const embed = hashEmbed();
    const s = settings({ smart_segmentation: false });
    const r = await segmentText(ARTICLE, { language: 'en', settings: s, embed });
    expect(r.method).toBe('regex');
    expect(r.fallback_reason).toBeNull();
    expect(embed.calls).toEqual([]);
    expect(r.accepted.length).toBeGreaterThan(0);
    expectWithinLimits(r.candidates, s);
    expectOverlapCarried(r.candidates, s.segment_overlap);
  });

  it('falls back to regex and records why when embed throws', async () => {
    const embed = async () => {
      throw new Error('model not loaded');
    };
    const r = await segmentText(FR.history + '\n\n' + FR.physics, {
      language: 'fr',
      settings: settings({ segment_min_words: 5, segment_min_length: 60 }),
      embed,
    });
    expect(r.method).toBe('regex');
    expect(r.fallback_reason).toBe('semantic segmentation failed: model not loaded');
    expect(r.accepted.length).toBeGreaterThan(0);
  });

  it("scores every segment with the whole text's language detection", async () => {
    const s = settings();
    const sure = await segmentText(ARTICLE, {
      language: 'en',
      settings: s,
      embed: hashEmbed(),
      detected: { code: 'en', confidence: 0.9 },
    });
    expect(sure.accepted.length).toBeGreaterThan(1);
    for (const c of sure.candidates) expect(c.quality.detailed.language_confidence).toBe(0.9);
    // The detector disagrees with the language asked for: every segment is suspect.
    const other = await segmentText(ARTICLE, {
      language: 'en',
      settings: s,
      embed: hashEmbed(),
      detected: { code: 'fr', confidence: 0.9 },
    });
    for (const c of other.candidates) expect(c.quality.detailed.language_confidence).toBe(0.45);
  });

  it('falls back to regex when embed answers with the wrong number of vectors', async () => {
    const embed = async (texts: string[]) => texts.slice(1).map(() => new Float32Array(4));
    const r = await segmentText(EN.physics, { language: 'en', settings: settings(), embed });
    expect(r.method).toBe('regex');
    expect(r.fallback_reason).toMatch(/^semantic segmentation failed: embed returned \d+ vectors/);
  });

  it('ends with fixed windows when neither semantic nor regex has an accepted segment', async () => {
    // Unpunctuated lines: each is a unit of its own, too short even by twos.
    const lines = [
      'Water boils at one hundred degrees at sea level',
      'Mountain air lowers the boiling point of water',
      'Salt raises the boiling temperature only slightly',
      'Pressure cookers raise it to about 120 degrees',
      'Steam carries far more heat than hot air',
      'Ice melts at zero degrees under normal pressure',
      'Evaporation cools the surface of a liquid',
      'Humidity slows the drying of wet clothes outdoors',
    ].join('\n');
    const s = settings({
      segment_max_sentences: 2,
      segment_quality_threshold: 0.2,
      min_quality_score: 0.2,
    });
    const r = await segmentText(lines, { language: 'en', settings: s, embed: hashEmbed() });
    expect(r.method).toBe('fallback');
    expect(r.fallback_reason).toMatch(
      /^semantic segmentation produced no accepted segment \(\d+ candidates? rejected\); regex segmentation produced no accepted segment \(\d+ candidates? rejected\)$/,
    );
    expect(r.accepted.length).toBeGreaterThan(0);
    for (const c of r.candidates) expect(c.text.length).toBeLessThanOrEqual(500);
  });

  it('records every failure when nothing at all is acceptable', async () => {
    const r = await segmentText(BOILERPLATE.menu, {
      language: 'en',
      settings: settings({ smart_segmentation: false }),
      embed: hashEmbed(),
    });
    expect(r.method).toBe('fallback');
    expect(r.fallback_reason).toMatch(/^regex segmentation produced no accepted segment/);
    expect(r.accepted).toEqual([]);
    expect(r.diagnostics.every((d) => d.status === 'rejected')).toBe(true);
  });
});

describe('regexCandidates and fallbackCandidates', () => {
  it('starts a new segment at a paragraph once the current one is long enough', () => {
    const s = settings({ segment_max_sentences: 10, segment_max_length: 2000 });
    const c = regexCandidates(`${EN.physics}\n\n${EN.software}`, 'en', s);
    expect(c).toHaveLength(2);
    expect(c[1]?.sentences[0]).toMatch(/^A compiler is/);
  });

  it('merges a short heading paragraph into the next one', () => {
    const s = settings({ segment_max_sentences: 10, segment_max_length: 2000 });
    const c = regexCandidates(`Quantum mechanics\n\n${EN.physics}`, 'en', s);
    expect(c).toHaveLength(1);
    expect(c[0]?.text.startsWith('Quantum mechanics Quantum mechanics is')).toBe(true);
  });

  it('cuts fixed windows at word boundaries with the overlap inside the limit', () => {
    const s = settings({ segment_max_length: 200, segment_overlap: 30 });
    const c = fallbackCandidates(ARTICLE, 'en', s);
    expectOverlapCarried(c, 30);
    for (const w of c) {
      expect(w.text.length).toBeLessThanOrEqual(200);
      expect(ARTICLE.replace(/\s+/g, ' ')).toContain(w.text.slice(w.overlap.length).trim());
    }
  });
});

describe('cutThreshold', () => {
  it('puts θ one deviation below the mean, below every gap when there is no signal', () => {
    expect(cutThreshold([0.5, 0.5, 0.1, 0.5, 0.5])).toBeCloseTo(0.42 - 0.16, 5);
    expect(cutThreshold([0.3, 0.31])).toBeCloseTo(0.29, 5);
  });
});
