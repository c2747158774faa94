import { francAll } from 'franc';
import { describe, expect, it } from 'vitest';
import { renderGeneratedPage } from '../../test/fixtures/fixture-pages.js';
import { BOILERPLATE, DE, EMOTION, EN, ES, FR } from './__fixtures__/paragraphs.js';
import { DETECTED_LANGUAGES } from './language.js';
import { trigramRanker } from './trigram-rank.js';

const texts = (o: Record<string, string>) => Object.values(o);

describe('trigramRanker', () => {
  it("answers exactly what franc's francAll answers, on every kind of text", () => {
    const rank = trigramRanker(DETECTED_LANGUAGES);
    const samples = [
      ...[EN, FR, ES, DE, BOILERPLATE, EMOTION].flatMap(texts),
      ...Array.from({ length: 20 }, (_, i) => renderGeneratedPage(i + 1).replace(/<[^>]+>/g, ' ')),
      '',
      ' ',
      'a',
      '12345 67.89 !!',
      'Hello',
      'Привет, как дела? Это простой русский текст о погоде.',
      'これは日本語の文章です。天気がいいですね。',
      '这是一个中文句子，用来测试语言检测。',
      'Ελληνικά κείμενο για δοκιμή',
      'שלום עולם, זה טקסט בעברית',
      'İstanbul ŞEHRİ büyük. Straße, Ærø, naïve café — déjà vu!',
      'mixed English et un peu de français y algo de español und Deutsch',
    ];
    // The voting pieces detectLanguage cuts, and long texts past franc's 2048-character cap.
    const pieces = samples.flatMap((s) =>
      Array.from({ length: Math.ceil(s.length / 200) }, (_, i) => s.slice(i * 200, i * 200 + 200)),
    );
    const long = samples.join(' ');
    let compared = 0;
    for (const s of [...samples, ...pieces, long]) {
      expect(rank(s), JSON.stringify(s.slice(0, 60))).toEqual(
        francAll(s, { only: DETECTED_LANGUAGES, minLength: 1 }),
      );
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('answers und for nothing to read and the script alone when it has one language', () => {
    const rank = trigramRanker(DETECTED_LANGUAGES);
    expect(rank('')).toEqual([['und', 1]]);
    expect(rank('1234 5678')).toEqual([['und', 1]]);
    expect(rank('这是一个中文句子')).toEqual([['cmn', 1]]);
    const en = rank('The quick brown fox jumps over the lazy dog near the river bank.');
    expect(en[0]![0]).toBe('eng');
    expect(en[0]![1]).toBe(1);
    expect(en.map(([l]) => l).sort()).toEqual(
      DETECTED_LANGUAGES.filter((l) => !['rus', 'jpn', 'cmn'].includes(l)).sort(),
    );
  });
});
