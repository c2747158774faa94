/**
 * Which character encoding a fetched page is in, decided as browsers decide it (WHATWG
 * Encoding standard, HTML's encoding sniffing): a byte order mark first, then the charset of
 * the Content-Type header, then a <meta> near the top, else UTF-8. Labels map through the
 * standard's table, so `latin1`, `iso-8859-1` and `ascii` all mean windows-1252.
 */

/** The standard's encodings, each with its labels (lower-case, as matched). */
export const ENCODING_LABELS: Readonly<Record<string, readonly string[]>> = {
  'utf-8': [
    'unicode-1-1-utf-8',
    'unicode11utf8',
    'unicode20utf8',
    'utf-8',
    'utf8',
    'x-unicode20utf8',
  ],
  ibm866: ['866', 'cp866', 'csibm866', 'ibm866'],
  'iso-8859-2': [
    'csisolatin2',
    'iso-8859-2',
    'iso-ir-101',
    'iso8859-2',
    'iso88592',
    'iso_8859-2',
    'iso_8859-2:1987',
    'l2',
    'latin2',
  ],
  'iso-8859-3': [
    'csisolatin3',
    'iso-8859-3',
    'iso-ir-109',
    'iso8859-3',
    'iso88593',
    'iso_8859-3',
    'iso_8859-3:1988',
    'l3',
    'latin3',
  ],
  'iso-8859-4': [
    'csisolatin4',
    'iso-8859-4',
    'iso-ir-110',
    'iso8859-4',
    'iso88594',
    'iso_8859-4',
    'iso_8859-4:1988',
    'l4',
    'latin4',
  ],
  'iso-8859-5': [
    'csisolatincyrillic',
    'cyrillic',
    'iso-8859-5',
    'iso-ir-144',
    'iso8859-5',
    'iso88595',
    'iso_8859-5',
    'iso_8859-5:1988',
  ],
  'iso-8859-6': [
    'arabic',
    'asmo-708',
    'csiso88596e',
    'csiso88596i',
    'csisolatinarabic',
    'ecma-114',
    'iso-8859-6',
    'iso-8859-6-e',
    'iso-8859-6-i',
    'iso-ir-127',
    'iso8859-6',
    'iso88596',
    'iso_8859-6',
    'iso_8859-6:1987',
  ],
  'iso-8859-7': [
    'csisolatingreek',
    'ecma-118',
    'elot_928',
    'greek',
    'greek8',
    'iso-8859-7',
    'iso-ir-126',
    'iso8859-7',
    'iso88597',
    'iso_8859-7',
    'iso_8859-7:1987',
    'sun_eu_greek',
  ],
  'iso-8859-8': [
    'csiso88598e',
    'csisolatinhebrew',
    'hebrew',
    'iso-8859-8',
    'iso-8859-8-e',
    'iso-ir-138',
    'iso8859-8',
    'iso88598',
    'iso_8859-8',
    'iso_8859-8:1988',
    'visual',
  ],
  'iso-8859-8-i': ['csiso88598i', 'iso-8859-8-i', 'logical'],
  'iso-8859-10': [
    'csisolatin6',
    'iso-8859-10',
    'iso-ir-157',
    'iso8859-10',
    'iso885910',
    'l6',
    'latin6',
  ],
  'iso-8859-13': ['iso-8859-13', 'iso8859-13', 'iso885913'],
  'iso-8859-14': ['iso-8859-14', 'iso8859-14', 'iso885914'],
  'iso-8859-15': ['csisolatin9', 'iso-8859-15', 'iso8859-15', 'iso885915', 'iso_8859-15', 'l9'],
  'iso-8859-16': ['iso-8859-16'],
  'koi8-r': ['cskoi8r', 'koi', 'koi8', 'koi8-r', 'koi8_r'],
  'koi8-u': ['koi8-ru', 'koi8-u'],
  macintosh: ['csmacintosh', 'mac', 'macintosh', 'x-mac-roman'],
  'windows-874': ['dos-874', 'iso-8859-11', 'iso8859-11', 'iso885911', 'tis-620', 'windows-874'],
  'windows-1250': ['cp1250', 'windows-1250', 'x-cp1250'],
  'windows-1251': ['cp1251', 'windows-1251', 'x-cp1251'],
  'windows-1252': [
    'ansi_x3.4-1968',
    'ascii',
    'cp1252',
    'cp819',
    'csisolatin1',
    'ibm819',
    'iso-8859-1',
    'iso-ir-100',
    'iso8859-1',
    'iso88591',
    'iso_8859-1',
    'iso_8859-1:1987',
    'l1',
    'latin1',
    'us-ascii',
    'windows-1252',
    'x-cp1252',
  ],
  'windows-1253': ['cp1253', 'windows-1253', 'x-cp1253'],
  'windows-1254': [
    'cp1254',
    'csisolatin5',
    'iso-8859-9',
    'iso-ir-148',
    'iso8859-9',
    'iso88599',
    'iso_8859-9',
    'iso_8859-9:1989',
    'l5',
    'latin5',
    'windows-1254',
    'x-cp1254',
  ],
  'windows-1255': ['cp1255', 'windows-1255', 'x-cp1255'],
  'windows-1256': ['cp1256', 'windows-1256', 'x-cp1256'],
  'windows-1257': ['cp1257', 'windows-1257', 'x-cp1257'],
  'windows-1258': ['cp1258', 'windows-1258', 'x-cp1258'],
  'x-mac-cyrillic': ['x-mac-cyrillic', 'x-mac-ukrainian'],
  gbk: [
    'chinese',
    'csgb2312',
    'csiso58gb231280',
    'gb2312',
    'gb_2312',
    'gb_2312-80',
    'gbk',
    'iso-ir-58',
    'x-gbk',
  ],
  gb18030: ['gb18030'],
  big5: ['big5', 'big5-hkscs', 'cn-big5', 'csbig5', 'x-x-big5'],
  'euc-jp': ['cseucpkdfmtjapanese', 'euc-jp', 'x-euc-jp'],
  'iso-2022-jp': ['csiso2022jp', 'iso-2022-jp'],
  shift_jis: [
    'csshiftjis',
    'ms932',
    'ms_kanji',
    'shift-jis',
    'shift_jis',
    'sjis',
    'windows-31j',
    'x-sjis',
  ],
  'euc-kr': [
    'cseuckr',
    'csksc56011987',
    'euc-kr',
    'iso-ir-149',
    'korean',
    'ks_c_5601-1987',
    'ks_c_5601-1989',
    'ksc5601',
    'ksc_5601',
    'windows-949',
  ],
  // Encodings whose decoders were used for attacks: the whole document reads as one U+FFFD.
  replacement: [
    'csiso2022kr',
    'hz-gb-2312',
    'iso-2022-cn',
    'iso-2022-cn-ext',
    'iso-2022-kr',
    'replacement',
  ],
  'utf-16be': ['unicodefffe', 'utf-16be'],
  'utf-16le': [
    'csunicode',
    'iso-10646-ucs-2',
    'ucs-2',
    'unicode',
    'unicodefeff',
    'utf-16',
    'utf-16le',
  ],
  'x-user-defined': ['x-user-defined'],
};

const BY_LABEL = new Map(
  Object.entries(ENCODING_LABELS).flatMap(([name, labels]) =>
    labels.map((label) => [label, name] as const),
  ),
);

/** The standard's "get an encoding": a label, trimmed and case-folded → its encoding. */
export function encodingForLabel(label: string): string | undefined {
  let start = 0;
  let end = label.length;
  while (start < end && isSpaceByte(label.charCodeAt(start))) start++;
  while (end > start && isSpaceByte(label.charCodeAt(end - 1))) end--;
  return BY_LABEL.get(label.slice(start, end).toLowerCase());
}

export type EncodingSource = 'bom' | 'header' | 'meta' | 'default';

/** How far into the body a <meta> is looked for (the HTML standard says 1024; we read more). */
const PRESCAN_BYTES = 2048;

/** The page's encoding: BOM, else the header's charset, else a <meta> near the top, else UTF-8. */
export function sniffEncoding(
  body: Uint8Array,
  contentType: string,
): { encoding: string; source: EncodingSource } {
  const bom = bomEncoding(body);
  if (bom) return { encoding: bom, source: 'bom' };
  const header = charsetParameter(contentType);
  const fromHeader = header === undefined ? undefined : encodingForLabel(header);
  if (fromHeader) return { encoding: fromHeader, source: 'header' };
  const fromMeta = prescanMeta(body.subarray(0, PRESCAN_BYTES));
  if (fromMeta) return { encoding: fromMeta, source: 'meta' };
  return { encoding: 'utf-8', source: 'default' };
}

/** Decodes `body` as the page's encoding (see sniffEncoding). */
export function decodeHtmlBytes(body: Uint8Array, contentType: string): string {
  return decodeAs(body, sniffEncoding(body, contentType).encoding);
}

function bomEncoding(b: Uint8Array): string | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** The charset parameter of a Content-Type, unquoted; undefined when there is none. */
export function charsetParameter(contentType: string): string | undefined {
  for (const param of contentType.split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = param.slice(eq + 1).trim();
    return value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.endsWith(value[0])
      ? value.slice(1, -1)
      : value;
  }
  return undefined;
}

// --- decoders ----------------------------------------------------------------------------------

/** windows-1252 at 0x80–0x9F; Node's TextDecoder reads these bytes as C1 controls (ISO-8859-1). */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/** ISO-8859-16 at 0xA0–0xFF (below it is ASCII and C1); Node's TextDecoder lacks it. */
const ISO_8859_16_HIGH =
  '\u00a0\u0104\u0105\u0141\u20ac\u201e\u0160\u00a7\u0161\u00a9\u0218\u00ab\u0179\u00ad\u017a\u017b' +
  '\u00b0\u00b1\u010c\u0142\u017d\u201d\u00b6\u00b7\u017e\u010d\u0219\u00bb\u0152\u0153\u0178\u017c' +
  '\u00c0\u00c1\u00c2\u0102\u00c4\u0106\u00c6\u00c7\u00c8\u00c9\u00ca\u00cb\u00cc\u00cd\u00ce\u00cf' +
  '\u0110\u0143\u00d2\u00d3\u00d4\u0150\u00d6\u015a\u0170\u00d9\u00da\u00db\u00dc\u0118\u021a\u00df' +
  '\u00e0\u00e1\u00e2\u0103\u00e4\u0107\u00e6\u00e7\u00e8\u00e9\u00ea\u00eb\u00ec\u00ed\u00ee\u00ef' +
  '\u0111\u0144\u00f2\u00f3\u00f4\u0151\u00f6\u015b\u0171\u00f9\u00fa\u00fb\u00fc\u0119\u021b\u00ff';

/** The characters of `count` code points in a row from `first`. */
const run = (first: number, count: number) =>
  String.fromCharCode(...Array.from({ length: count }, (_, i) => first + i));

/** A byte → code point table: ASCII below 0x80 (as in all of them), `high` from 0x80 on. */
function byteTable(high: string): Uint16Array {
  const table = new Uint16Array(256);
  for (let b = 0; b < 256; b++) table[b] = b < 0x80 ? b : high.charCodeAt(b - 0x80);
  return table;
}

/** The single-byte encodings Node's TextDecoder reads wrongly or not at all. */
const SINGLE_BYTE_TABLES: ReadonlyMap<string, Uint16Array> = new Map([
  ['windows-1252', byteTable(WINDOWS_1252_HIGH + run(0xa0, 0x60))],
  ['iso-8859-16', byteTable(run(0x80, 0x20) + ISO_8859_16_HIGH)],
  // The HTML standard's: bytes 0x80–0xFF map into the private use area from U+F780.
  ['x-user-defined', byteTable(run(0xf780, 0x80))],
]);

// Code units turned into a string this many at a time (an argument list has a size limit).
const DECODE_CHUNK = 8192;

function decodeSingleByte(body: Uint8Array, table: Uint16Array): string {
  const units = new Uint16Array(body.length);
  for (let i = 0; i < body.length; i++) units[i] = table[body[i]!]!;
  let out = '';
  for (let i = 0; i < units.length; i += DECODE_CHUNK)
    out += String.fromCharCode(...units.subarray(i, i + DECODE_CHUNK));
  return out;
}

/** Decodes `body` as the named encoding (one of ENCODINGS; anything else reads as UTF-8). */
export function decodeAs(body: Uint8Array, encoding: string): string {
  const table = SINGLE_BYTE_TABLES.get(encoding);
  if (table) return decodeSingleByte(body, table);
  if (encoding === 'replacement') return body.length > 0 ? '\ufffd' : '';
  try {
    return new TextDecoder(encoding).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

// --- the <meta> prescan (HTML standard, "prescan a byte stream to determine its encoding") -------

const isSpaceByte = (c: number | undefined) =>
  c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d || c === 0x20;
const isLetterByte = (c: number | undefined) =>
  c !== undefined && ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a));

/**
 * The encoding a <meta charset> or <meta http-equiv="content-type" content="…charset=…">
 * declares, skipping comments and other tags as a browser's prescan does; UTF-16 declared this
 * way means UTF-8, x-user-defined means windows-1252. A hand-written scan, each byte read a
 * bounded number of times (the expressions it replaced backtracked on repeated '<meta').
 */
export function prescanMeta(bytes: Uint8Array): string | undefined {
  const s = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const lower = s.toLowerCase();
  let pos = 0;
  while (pos < s.length) {
    if (lower.startsWith('<!--', pos)) {
      const end = s.indexOf('-->', pos + 2);
      if (end < 0) return undefined;
      pos = end + 3;
    } else if (
      lower.startsWith('<meta', pos) &&
      (isSpaceByte(s.charCodeAt(pos + 5)) || s[pos + 5] === '/')
    ) {
      const found = readMeta(s, lower, pos + 5);
      if (found.encoding) return found.encoding;
      pos = found.next;
    } else if (
      s[pos] === '<' &&
      (isLetterByte(s.charCodeAt(pos + 1)) ||
        (s[pos + 1] === '/' && isLetterByte(s.charCodeAt(pos + 2))))
    ) {
      pos += s[pos + 1] === '/' ? 2 : 1;
      while (pos < s.length && !isSpaceByte(s.charCodeAt(pos)) && s[pos] !== '>') pos++;
      for (;;) {
        const attr = readAttribute(s, lower, pos);
        pos = attr.next;
        if (!attr.name) break;
      }
      pos++;
    } else if (
      lower.startsWith('<!', pos) ||
      lower.startsWith('</', pos) ||
      lower.startsWith('<?', pos)
    ) {
      const end = s.indexOf('>', pos + 1);
      if (end < 0) return undefined;
      pos = end + 1;
    } else {
      pos++;
    }
  }
  return undefined;
}

/** The attributes of one <meta>, from just after its name; `next` is past its '>'. */
function readMeta(s: string, lower: string, from: number): { encoding?: string; next: number } {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | undefined;
  let charset: string | undefined | null = null; // null: none declared yet
  let pos = from;
  for (;;) {
    const attr = readAttribute(s, lower, pos);
    pos = attr.next;
    if (!attr.name) break;
    if (seen.has(attr.name)) continue;
    seen.add(attr.name);
    if (attr.name === 'http-equiv') {
      if (attr.value === 'content-type') gotPragma = true;
    } else if (attr.name === 'content') {
      const label = charsetInContent(attr.value);
      const encoding = label === undefined ? undefined : encodingForLabel(label);
      if (encoding && charset === null) {
        charset = encoding;
        needPragma = true;
      }
    } else if (attr.name === 'charset') {
      charset = encodingForLabel(attr.value);
      needPragma = false;
    }
  }
  const next = pos + 1;
  if (needPragma === undefined || (needPragma && !gotPragma) || !charset) return { next };
  if (charset === 'utf-16be' || charset === 'utf-16le') return { encoding: 'utf-8', next };
  if (charset === 'x-user-defined') return { encoding: 'windows-1252', next };
  return { encoding: charset, next };
}

/**
 * One attribute from `pos` ("get an attribute"): name and value lower-cased as the prescan
 * compares them; no name at a '>' or the end, where `next` points.
 */
function readAttribute(
  s: string,
  lower: string,
  from: number,
): { name?: string; value: string; next: number } {
  let pos = from;
  while (pos < s.length && (isSpaceByte(s.charCodeAt(pos)) || s[pos] === '/')) pos++;
  if (pos >= s.length || s[pos] === '>') return { value: '', next: pos };
  const nameStart = pos;
  // The first character may be '=': it is part of the name.
  pos++;
  while (pos < s.length && !isSpaceByte(s.charCodeAt(pos)) && !'=/>'.includes(s[pos] ?? '')) pos++;
  const name = lower.slice(nameStart, pos);
  while (pos < s.length && isSpaceByte(s.charCodeAt(pos))) pos++;
  if (s[pos] !== '=') return { name, value: '', next: pos };
  pos++;
  while (pos < s.length && isSpaceByte(s.charCodeAt(pos))) pos++;
  const quote = s[pos];
  if (quote === '"' || quote === "'") {
    const end = s.indexOf(quote, pos + 1);
    // Cut off inside a value: the prescan ends here.
    if (end < 0) return { value: '', next: s.length };
    return { name, value: lower.slice(pos + 1, end), next: end + 1 };
  }
  const valueStart = pos;
  while (pos < s.length && !isSpaceByte(s.charCodeAt(pos)) && s[pos] !== '>') pos++;
  return { name, value: lower.slice(valueStart, pos), next: pos };
}

/** "Extracting a character encoding from a meta element": the label after 'charset='. */
export function charsetInContent(content: string): string | undefined {
  const lower = content.toLowerCase();
  let pos = 0;
  for (;;) {
    const at = lower.indexOf('charset', pos);
    if (at < 0) return undefined;
    pos = at + 7;
    while (isSpaceByte(lower.charCodeAt(pos))) pos++;
    if (lower[pos] !== '=') continue;
    pos++;
    while (isSpaceByte(lower.charCodeAt(pos))) pos++;
    const quote = lower[pos];
    if (quote === '"' || quote === "'") {
      const end = lower.indexOf(quote, pos + 1);
      return end < 0 ? undefined : content.slice(pos + 1, end);
    }
    let end = pos;
    while (end < lower.length && !isSpaceByte(lower.charCodeAt(end)) && lower[end] !== ';') end++;
    return end === pos ? undefined : content.slice(pos, end);
  }
}
