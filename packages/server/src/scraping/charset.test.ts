import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import {
  charsetInContent,
  charsetParameter,
  decodeAs,
  ENCODING_LABELS,
  encodingForLabel,
  prescanMeta,
  sniffEncoding,
} from './charset.js';
import { decodeBody, extractResponse } from './extract.js';
import type { FetchResult } from './safe-fetcher.js';

/** Bytes of an HTML page: ASCII markup around `text`, given as its bytes in the encoding. */
const page = (head: string, text: number[]) =>
  Buffer.concat([
    Buffer.from(`<html><head>${head}<title>t</title></head><body><p>`, 'ascii'),
    Buffer.from(text),
    Buffer.from('</p></body></html>', 'ascii'),
  ]);

const response = (body: Buffer, contentType: string): FetchResult => ({
  url: 'http://example.test/page',
  status: 200,
  headers: { 'content-type': contentType },
  contentType,
  body,
  redirects: [],
});

// Byte fixtures built from known code points of each encoding.
const SAMPLES = [
  {
    // € ‘ ’ “ ” – — … ™ Œ at 0x80–0x9F, é at 0xE9: bytes a C1 reading turns into controls.
    label: 'windows-1252',
    bytes: [0x80, 0x20, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97, 0x85, 0x99, 0x8c, 0x20, 0xe9],
    text: '€ ‘’“”–—…™Œ é',
  },
  { label: 'Shift_JIS', bytes: [0x93, 0xfa, 0x96, 0x7b], text: '日本' },
  { label: 'GB18030', bytes: [0xd6, 0xd0, 0xce, 0xc4, 0x81, 0x30, 0x81, 0x30], text: '中文\u0080' },
  { label: 'KOI8-R', bytes: [0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4], text: 'Привет' },
];

describe('encodingForLabel', () => {
  it('maps labels per the WHATWG table, latin1 and ascii to windows-1252', () => {
    for (const label of ['latin1', 'ISO-8859-1', ' ascii ', 'us-ascii', 'cp1252', 'l1']) {
      expect(encodingForLabel(label), label).toBe('windows-1252');
    }
    expect(encodingForLabel('sjis')).toBe('shift_jis');
    expect(encodingForLabel('gb2312')).toBe('gbk');
    expect(encodingForLabel('koi')).toBe('koi8-r');
    expect(encodingForLabel('utf-16')).toBe('utf-16le');
    expect(encodingForLabel('iso-2022-kr')).toBe('replacement');
    expect(encodingForLabel('bogus-charset')).toBeUndefined();
    expect(encodingForLabel('utf 8')).toBeUndefined();
  });

  it('agrees with the label table of Node’s TextDecoder wherever it has the encoding', () => {
    const own = new Set(['windows-1252', 'iso-8859-16', 'x-user-defined', 'replacement']);
    for (const [encoding, labels] of Object.entries(ENCODING_LABELS)) {
      for (const label of labels) {
        expect(encodingForLabel(label.toUpperCase())).toBe(encoding);
        if (!own.has(encoding)) expect(new TextDecoder(label).encoding, label).toBe(encoding);
      }
      // Every encoding decodes, by Node or by this module.
      expect(typeof decodeAs(Buffer.from([0x41, 0xa4]), encoding)).toBe('string');
    }
  });
});

describe('decoding', () => {
  it('reads windows-1252 0x80–0x9F as the standard’s table, not as C1 controls', () => {
    const all = Buffer.from(Array.from({ length: 32 }, (_, i) => 0x80 + i));
    expect(decodeAs(all, 'windows-1252')).toBe(
      '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ',
    );
    expect(decodeAs(Buffer.from([0x41, 0xa0, 0xff]), 'windows-1252')).toBe('A\u00a0ÿ');
    expect(decodeAs(Buffer.from([0x41, 0xa4, 0xba]), 'iso-8859-16')).toBe('A€ș');
    expect(decodeAs(Buffer.from([0x41, 0x80]), 'x-user-defined')).toBe('A\uf780');
    expect(decodeAs(Buffer.from('anything'), 'replacement')).toBe('\ufffd');
  });

  for (const { label, bytes, text } of SAMPLES) {
    it(`reads ${label} declared in the header`, () => {
      const r = extractResponse(response(page('', bytes), `text/html; charset=${label}`));
      expect(r.text).toBe(text);
    });

    it(`reads ${label} declared in <meta charset>`, () => {
      const r = extractResponse(response(page(`<meta charset="${label}">`, bytes), 'text/html'));
      expect(r.text).toBe(text);
    });

    it(`reads ${label} declared in <meta http-equiv content>`, () => {
      const meta = `<meta http-equiv="Content-Type" content="text/html; charset=${label}">`;
      const r = extractResponse(response(page(meta, bytes), 'text/html'));
      expect(r.text).toBe(text);
    });
  }

  it('follows the header when the header and the meta disagree, as browsers do', () => {
    const koi8 = page('<meta charset="windows-1252">', SAMPLES[3]!.bytes);
    expect(extractResponse(response(koi8, 'text/html; charset=koi8-r')).text).toBe('Привет');
    const cp1252 = page('<meta charset="koi8-r">', SAMPLES[0]!.bytes);
    expect(extractResponse(response(cp1252, 'text/html; charset="latin1"')).text).toBe(
      SAMPLES[0]!.text,
    );
    expect(sniffEncoding(cp1252, 'text/html; charset=latin1')).toEqual({
      encoding: 'windows-1252',
      source: 'header',
    });
  });

  it('lets a byte order mark win over the header and the meta', () => {
    const utf8 = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<meta charset="koi8-r"><p>Crème</p>', 'utf8'),
    ]);
    expect(sniffEncoding(utf8, 'text/html; charset=windows-1252').source).toBe('bom');
    expect(decodeBody(utf8, 'text/html; charset=windows-1252')).toBe(
      '<meta charset="koi8-r"><p>Crème</p>',
    );
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>日本</p>', 'utf16le')]);
    expect(decodeBody(utf16, 'text/html; charset=windows-1252')).toBe('<p>日本</p>');
  });

  it('reads UTF-8 for unknown labels and for UTF-16 declared in a meta', () => {
    const utf8 = Buffer.from('<p>Crème</p>', 'utf8');
    expect(decodeBody(utf8, 'text/html; charset=bogus-charset')).toBe('<p>Crème</p>');
    const metaUtf16 = Buffer.from('<meta charset="utf-16"><p>Crème</p>', 'utf8');
    expect(sniffEncoding(metaUtf16, 'text/html')).toEqual({ encoding: 'utf-8', source: 'meta' });
    const unknownMeta = Buffer.from('<meta charset="klingon"><p>Crème</p>', 'utf8');
    expect(sniffEncoding(unknownMeta, 'text/html')).toEqual({
      encoding: 'utf-8',
      source: 'default',
    });
    // An unknown header label falls through to the meta.
    const meta = page('<meta charset="koi8-r">', SAMPLES[3]!.bytes);
    expect(extractResponse(response(meta, 'text/html; charset=klingon')).text).toBe('Привет');
  });
});

describe('prescanMeta', () => {
  const scan = (html: string) => prescanMeta(Buffer.from(html, 'latin1'));

  it('finds the declaration as a browser’s prescan does', () => {
    expect(scan('<META CHARSET=KOI8-R>')).toBe('koi8-r');
    expect(scan("<meta charset='sjis'/>")).toBe('shift_jis');
    expect(scan('<meta name="x" content="a>b" charset="gbk">')).toBe('gbk');
    expect(scan('<meta content="text/html;charset = \'cp1252\'" http-equiv=content-type>')).toBe(
      'windows-1252',
    );
    expect(scan('<meta charset="x-user-defined">')).toBe('windows-1252');
    expect(scan('<meta charset="bogus"><meta charset="koi8-r">')).toBe('koi8-r');
  });

  it('skips comments, other tags and a content charset without its pragma', () => {
    expect(scan('<!-- <meta charset="koi8-r"> --><p>x</p>')).toBeUndefined();
    expect(scan('<div title="<meta charset=koi8-r>"><meta charset="gbk">')).toBe('gbk');
    expect(scan('<meta content="text/html; charset=koi8-r">')).toBeUndefined();
    expect(scan('<metadata charset="koi8-r">')).toBeUndefined();
    expect(scan('<!DOCTYPE html><?xml x?></x><meta charset=gbk>')).toBe('gbk');
  });

  it('reads a long run of unclosed <meta in linear time (issue 23)', () => {
    // The expressions it replaced, /<meta[^>]+charset…/i, retried from every '<meta': quadratic.
    for (const unit of ['<meta ', '<meta content="', '<a ']) {
      const g = bestGrowthVersusLinear(
        prescanMeta,
        (n) => Buffer.from(unit.repeat(Math.ceil(n / unit.length)), 'latin1'),
        { n: 512 },
      );
      expect(g.excess, `'${unit}': ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});

describe('charsetParameter and charsetInContent', () => {
  it('read the label as the Content-Type and the meta content give it', () => {
    expect(charsetParameter('text/html; charset=UTF-8')).toBe('UTF-8');
    expect(charsetParameter('text/html;CHARSET="koi8-r"; q=1')).toBe('koi8-r');
    expect(charsetParameter('text/html')).toBeUndefined();
    expect(charsetInContent('text/html; charset=koi8-r; x')).toBe('koi8-r');
    expect(charsetInContent('text/html; charset="gbk"')).toBe('gbk');
    expect(charsetInContent('charsetx; charset=sjis')).toBe('sjis');
    expect(charsetInContent('charset="unterminated')).toBeUndefined();
  });
});
