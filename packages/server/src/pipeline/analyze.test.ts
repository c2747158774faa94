import { DEFAULT_PROCESSING_SETTINGS, type ProcessingSettings } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { hashEmbed, hashEmbedOne } from './__fixtures__/hash-embed.js';
import { BOILERPLATE, EN, FR } from './__fixtures__/paragraphs.js';
import { analyzeText, rankSentences } from './analyze.js';
import { EMOTIONS } from './emotions.js';
import { extractEntities } from './entities.js';
import { splitSentences } from './sentences.js';
import { wordCount } from './text.js';
import { THEME_PROTOTYPES, THEMES } from './theme-lexicon.js';

const settings = (over: Partial<ProcessingSettings> = {}): ProcessingSettings => ({
  ...DEFAULT_PROCESSING_SETTINGS,
  ...over,
});

const ARTICLE = [EN.physics, EN.software, EN.ethics, EN.history].join('\n\n');

describe('analyzeText', () => {
  it('detects the language and returns scored, embedded, annotated segments', async () => {
    const embed = hashEmbed();
    const s = settings();
    const r = await analyzeText(ARTICLE, { language: 'auto', settings: s, embed });
    expect(r.language.code).toBe('en');
    expect(r.language.confidence).toBeGreaterThan(0.5);
    expect(r.document.accepted).toBe(true);
    expect(r.method).toBe('semantic');
    expect(r.fallback_reason).toBeNull();
    expect(r.segments.length).toBeGreaterThan(3);
    expect(r.segmentation_stats).toEqual({
      method: 'semantic',
      counts: { before: r.diagnostics.length, after: r.segments.length },
    });
    for (const seg of r.segments) {
      expect(seg.vector).toEqual(hashEmbedOne(seg.text));
      expect(seg.quality_score).toBeGreaterThanOrEqual(s.min_quality_score);
      expect(seg.quality_score_detailed.noise).toBe(0);
      expect(THEMES).toContain(seg.theme);
      expect(Object.keys(seg.theme_scores).sort()).toEqual([...THEMES].sort());
      expect(Object.keys(seg.emotions)).toEqual([...EMOTIONS]);
      expect(seg.word_count).toBe(wordCount(seg.text));
      expect(seg.sentence_count).toBeGreaterThanOrEqual(1);
      expect(seg.text.length).toBeLessThanOrEqual(s.segment_max_length);
    }
    const themeOf = (needle: string) => r.segments.find((x) => x.text.includes(needle))?.theme;
    expect(themeOf('photoelectric')).toBe('science');
    expect(themeOf('abstract syntax tree')).toBe('technology');
    expect(themeOf('Metaethics')).toBe('philosophy');
    const people = r.segments.flatMap((x) => x.entities).filter((e) => e.label === 'PERSON');
    expect(people.map((p) => p.text)).toContain('Marie Curie');
  });

  it("gives each segment the document's entities that its text holds", async () => {
    const r = await analyzeText(ARTICLE, {
      language: 'en',
      settings: settings(),
      embed: hashEmbed(),
    });
    const document = extractEntities(ARTICLE, 'en');
    const key = (e: { text: string; label: string }) => `${e.label}:${e.text}`;
    const all = new Set(document.map(key));
    for (const seg of r.segments) {
      for (const e of seg.entities) {
        expect(all.has(key(e)), key(e)).toBe(true);
        expect(seg.text).toContain(e.text);
      }
    }
    const curie = r.segments.find((x) => x.text.includes('Marie Curie'));
    expect(curie?.entities).toContainEqual({ text: 'Marie Curie', label: 'PERSON' });
    // A segment without the name does not get it.
    const other = r.segments.find((x) => !x.text.includes('Curie'));
    expect(other?.entities.some((e) => e.text.includes('Curie'))).toBe(false);
  });

  it('leaves entities out when asked (the ingestion bench reference)', async () => {
    const r = await analyzeText(EN.history, {
      language: 'en',
      settings: settings(),
      embed: hashEmbed(),
      entities: false,
    });
    expect(r.segments.length).toBeGreaterThan(0);
    expect(r.segments.every((x) => x.entities.length === 0)).toBe(true);
  });

  it('embeds in batches and each accepted segment exactly once', async () => {
    const embed = hashEmbed();
    const s = settings({ embedding_batch_size: 5 });
    const r = await analyzeText(ARTICLE, { language: 'en', settings: s, embed });
    expect(Math.max(...embed.calls)).toBeLessThanOrEqual(5);
    const prototypes = THEMES.reduce((n, t) => n + THEME_PROTOTYPES[t].length, 0);
    const sentences = splitSentences(ARTICLE).length;
    expect(embed.calls.reduce((a, b) => a + b, 0)).toBe(sentences + prototypes + r.segments.length);
    // Prototypes are cached per embed function: a second document embeds only its own text.
    embed.calls.length = 0;
    const again = await analyzeText(EN.cooking, { language: 'en', settings: s, embed });
    expect(embed.calls.reduce((a, b) => a + b, 0)).toBe(
      splitSentences(EN.cooking).length + again.segments.length,
    );
  });

  it('is deterministic', async () => {
    const a = await analyzeText(ARTICLE, {
      language: 'auto',
      settings: settings(),
      embed: hashEmbed(),
    });
    const b = await analyzeText(ARTICLE, {
      language: 'auto',
      settings: settings(),
      embed: hashEmbed(),
    });
    expect(b).toEqual(a);
  });

  it('works on French with the fallback entity recogniser', async () => {
    const r = await analyzeText(`${FR.history}\n\n${FR.physics}`, {
      language: 'auto',
      settings: settings({ segment_min_words: 10, segment_min_length: 100 }),
      embed: hashEmbed(),
    });
    expect(r.language.code).toBe('fr');
    expect(r.segments.length).toBeGreaterThan(0);
    const entities = r.segments.flatMap((x) => x.entities);
    expect(entities).toContainEqual({ text: 'Dupont', label: 'PERSON' });
    expect(r.segments.some((x) => x.theme === 'science')).toBe(true);
  });

  it('takes an explicit language as certain', async () => {
    const r = await analyzeText(EN.physics, {
      language: 'en',
      settings: settings(),
      embed: hashEmbed(),
    });
    expect(r.language).toEqual({ code: 'en', confidence: 1 });
  });

  it('rejects a document under min_content_length or min_word_count without embedding', async () => {
    const embed = hashEmbed();
    const r = await analyzeText('Too short to keep.', {
      language: 'auto',
      settings: settings(),
      embed,
    });
    expect(r.segments).toEqual([]);
    expect(r.document).toMatchObject({
      accepted: false,
      reason: 'content too short (18 < 50 chars)',
    });
    expect(r.diagnostics).toEqual([
      {
        snippet: 'Too short to keep.',
        score: 0,
        status: 'rejected',
        reason: 'content too short (18 < 50 chars)',
      },
    ]);
    expect(r.segmentation_stats.counts).toEqual({ before: 0, after: 0 });
    expect(embed.calls).toEqual([]);
  });

  it('reports boilerplate as rejected and keeps the prose', async () => {
    const text = `${BOILERPLATE.menu}\n\n${EN.ethics}\n\n${BOILERPLATE.cookies}`;
    const r = await analyzeText(text, {
      language: 'auto',
      settings: settings(),
      embed: hashEmbed(),
    });
    expect(r.segments.length).toBeGreaterThan(0);
    expect(r.segments.every((x) => !/cookies|Sitemap/.test(x.text))).toBe(true);
    expect(r.diagnostics.filter((d) => d.status === 'rejected').length).toBeGreaterThan(0);
  });

  it('records the fallback reason when the embedder fails during segmentation', async () => {
    let calls = 0;
    const flaky = async (texts: string[]) => {
      calls++;
      if (calls === 1) throw new Error('out of memory');
      return texts.map(hashEmbedOne);
    };
    const r = await analyzeText(ARTICLE, { language: 'en', settings: settings(), embed: flaky });
    expect(r.method).toBe('regex');
    expect(r.fallback_reason).toBe('semantic segmentation failed: out of memory');
    expect(r.segments.length).toBeGreaterThan(0);
    for (const seg of r.segments) expect(seg.vector).toEqual(hashEmbedOne(seg.text));
  });
});

describe('rankSentences', () => {
  it('puts the sentence that answers the question first', async () => {
    const context = `${EN.physics} ${EN.cooking}`;
    const ranked = await rankSentences(context, 'Who formulated the central equation in 1926?', {
      language: 'auto',
      topK: 3,
      embed: hashEmbed(),
    });
    expect(ranked).toHaveLength(3);
    expect(ranked[0]?.sentence).toMatch(/^Its central equation, formulated by Erwin Schrödinger/);
    for (let i = 1; i < ranked.length; i++) {
      expect(ranked[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(ranked[i]?.score ?? 0);
    }
    for (const { score } of ranked) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
      expect(Math.round(score * 10_000) / 10_000).toBe(score);
    }
  });

  it('blends word overlap with the cosine', async () => {
    // An embedder that sees nothing: only the word overlap (weight 0.3) is left.
    const blind = async (texts: string[]) => texts.map(() => new Float32Array(8));
    const ranked = await rankSentences('Rice absorbs broth. Cheese melts.', 'rice broth', {
      language: 'en',
      topK: 5,
      embed: blind,
    });
    expect(ranked).toEqual([
      { sentence: 'Rice absorbs broth.', score: 0.3 },
      { sentence: 'Cheese melts.', score: 0 },
    ]);
  });

  it('answers nothing for topK 0 or an empty context', async () => {
    expect(
      await rankSentences('One. Two.', 'x', { language: 'en', topK: 0, embed: hashEmbed() }),
    ).toEqual([]);
    expect(await rankSentences('  ', 'x', { language: 'en', topK: 3, embed: hashEmbed() })).toEqual(
      [],
    );
  });
});
