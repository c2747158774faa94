import { describe, expect, it } from 'vitest';
import { DE, EN, ES, FR } from './__fixtures__/paragraphs.js';
import { splitParagraphs, splitSentences } from './sentences.js';

describe('splitSentences', () => {
  it('keeps English abbreviations, initials and numbers inside their sentence', () => {
    const text =
      'Dr. Smith met Mr. J. R. R. Tolkien at 3 p.m. on Friday. They discussed e.g. dragons, ' +
      'i.e. large reptiles. Pi is about 3.14, and 1,000.5 is larger. See Fig. 2 and p. 45. ' +
      'No. 5 is missing. The value rose in 1999. The next year it fell.';
    expect(splitSentences(text, 'en')).toEqual([
      'Dr. Smith met Mr. J. R. R. Tolkien at 3 p.m. on Friday.',
      'They discussed e.g. dragons, i.e. large reptiles.',
      'Pi is about 3.14, and 1,000.5 is larger.',
      'See Fig. 2 and p. 45.',
      'No. 5 is missing.',
      'The value rose in 1999.',
      'The next year it fell.',
    ]);
  });

  it('ends sentences after quotes, brackets, ellipses and citation marks', () => {
    const text =
      'He whispered: "Is it over?" Nobody answered. Then... silence. (The end was near.) ' +
      'Spacetime curves.[1] This was confirmed.[2][3] It was late... but nobody left.';
    expect(splitSentences(text, 'en')).toEqual([
      'He whispered: "Is it over?"',
      'Nobody answered.',
      'Then... silence.',
      '(The end was near.)',
      'Spacetime curves.[1]',
      'This was confirmed.[2][3]',
      'It was late... but nobody left.',
    ]);
  });

  it('splits after "etc." and "Inc." before a capital, not before a lower-case word', () => {
    expect(
      splitSentences('They sold fruit, etc. The shop closed. Apple Inc. was founded in 1976.'),
    ).toEqual(['They sold fruit, etc.', 'The shop closed.', 'Apple Inc. was founded in 1976.']);
  });

  it('handles French titles, guillemets, dates and spaced question marks', () => {
    expect(splitSentences(FR.history, 'fr')).toEqual([
      'Le château de Versailles fut la résidence des rois de France de 1682 à 1789.',
      'M. Dupont, conservateur du musée, rappelle que Louis XIV y installa la cour et le gouvernement.',
      'Mme de Maintenon, épouse secrète du roi, y fonda plus tard la maison royale de Saint-Louis.',
      'Aujourd’hui, le domaine accueille environ 7,7 millions de visiteurs par an, soit 15 % de plus qu’en 2010.',
    ]);
    expect(splitSentences(FR.quotes, 'fr')).toEqual([
      'Le ministre déclara : « La réforme entrera en vigueur le 12.05.2024. »',
      'Elle fut pourtant reportée.',
      'Selon l’Institut (chiffres de 2023), le coût atteignait 1 250,5 millions d’euros.',
      'Était-ce prévisible ?',
      'Les économistes, etc. en doutaient déjà.',
    ]);
    expect(splitSentences(FR.physics, 'fr')[3]).toContain('p. ex. l’effet tunnel');
  });

  it('handles Spanish titles, centuries and inverted question marks', () => {
    const s = splitSentences(ES.physics, 'es');
    expect(s).toHaveLength(4);
    expect(s[1]).toMatch(/^Según el Dr\. Martínez, profesor/);
    expect(s[2]).toBe(
      'Las primeras ideas surgieron a principios del s. XX, cuando Planck estudió la radiación del cuerpo negro.',
    );
    const h = splitSentences(ES.history, 'es');
    expect(h).toHaveLength(5);
    expect(h[2]).toMatch(/^La Sra\. López, guía/);
    expect(h[3]).toBe('¿Por qué es tan famosa?');
  });

  it('handles German ordinals, z. B., d.h. and u.a.', () => {
    expect(splitSentences(DE.history, 'de')).toEqual([
      'Die Berliner Mauer wurde am 13. August 1961 von der Regierung der DDR errichtet.',
      'Sie trennte West-Berlin bis zum 9. November 1989 vom Umland und vom Ostteil der Stadt.',
      'Nach Angaben des Museums starben mindestens 140 Menschen an der Grenze, d.h. bei Fluchtversuchen oder durch Unfälle.',
      'Heute erinnern u.a. die Gedenkstätte an der Bernauer Straße und die East Side Gallery an die Teilung.',
    ]);
    const p = splitSentences(DE.physics, 'de');
    expect(p).toHaveLength(4);
    expect(p[1]).toMatch(/^Sie entstand im 20\. Jahrhundert/);
    expect(p[2]).toContain('z. B. die zeitliche');
    // A sentence may still end in a number.
    expect(splitSentences('Das Jahr war 1990. Danach kam die Einheit.', 'de')).toHaveLength(2);
  });

  it('splits every English fixture paragraph into its five or four sentences', () => {
    expect(splitSentences(EN.physics, 'en')).toHaveLength(5);
    expect(splitSentences(EN.software, 'en')).toHaveLength(5);
    expect(splitSentences(EN.history, 'en')).toHaveLength(3);
  });

  it('treats blank lines as paragraph ends and menu lines as separate items', () => {
    expect(splitParagraphs('First one.\n\nSecond\nstill second.\r\n\r\nThird.')).toEqual([
      'First one.',
      'Second\nstill second.',
      'Third.',
    ]);
    expect(splitSentences('Home\nAbout us\n- Products\nContact')).toEqual([
      'Home',
      'About us',
      'Products',
      'Contact',
    ]);
    // A soft-wrapped sentence stays whole.
    expect(splitSentences('The theory was\npublished in 1926 and\nlater confirmed.')).toEqual([
      'The theory was published in 1926 and later confirmed.',
    ]);
  });

  it('splits Chinese and Japanese at their full stops', () => {
    expect(splitSentences('今天天气很好。我们去公园吧！', 'zh')).toEqual([
      '今天天气很好。',
      '我们去公园吧！',
    ]);
  });

  it.each([
    [
      'it',
      'Oggi il sig. Rossi è arrivato a Roma. Poi è partito.',
      'Oggi il sig. Rossi è arrivato a Roma.',
    ],
    ['pt', 'O Sr. Silva chegou ontem. Depois partiu.', 'O Sr. Silva chegou ontem.'],
    [
      'nl',
      'De heer drs. Jansen kwam gisteren. Daarna ging hij.',
      'De heer drs. Jansen kwam gisteren.',
    ],
    ['ru', 'Сегодня пришёл акад. Иванов. Потом ушёл.', 'Сегодня пришёл акад. Иванов.'],
  ])('keeps %s abbreviations inside their sentence', (language, text, first) => {
    const sentences = splitSentences(text, language);
    expect(sentences).toHaveLength(2);
    expect(sentences[0]).toBe(first);
  });
});
