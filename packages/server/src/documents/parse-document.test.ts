import { describe, expect, it } from 'vitest';
import { UPLOAD_LIMITS } from '@adam/contracts';
import {
  makeDocx,
  makeImageOnlyPdf,
  makePdf,
  makeZip,
  makeZipBomb,
} from './__fixtures__/make-documents.js';
import { parseDocument } from './parse-document.js';
import { isDocumentError, type ParseOptions } from './parsed-document.js';
import { sniffDocument } from './sniff.js';

const opts = (fileName: string, over: Partial<ParseOptions> = {}): ParseOptions => ({
  fileName,
  maxPages: UPLOAD_LIMITS.max_pages,
  maxInflatedBytes: UPLOAD_LIMITS.max_docx_inflated_bytes,
  maxEntries: UPLOAD_LIMITS.max_docx_entries,
  maxTextChars: UPLOAD_LIMITS.max_text_chars,
  ...over,
});

async function failure(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (isDocumentError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a DocumentError');
}

const BEES = 'Honeybees live in colonies of thousands of workers that forage for nectar.';
const TIDES = 'Tidal power turns the rise and fall of the sea into electricity.';

describe('PDF', () => {
  it('keeps each page number, the headings set larger than the body, and the title', async () => {
    const pdf = await makePdf(
      [
        { heading: 'Chapter One: Bees', paragraphs: [BEES, BEES] },
        { paragraphs: [`${BEES} More about bees.`] },
        { heading: 'Chapter Two: Tides', paragraphs: [TIDES] },
      ],
      { title: 'Nature Notes' },
    );
    const doc = await parseDocument('pdf', pdf, opts('notes.pdf'));
    expect(doc.title).toBe('Nature Notes');
    expect(doc.sections.map((s) => [s.page, s.heading])).toEqual([
      [1, 'Chapter One: Bees'],
      [2, 'Chapter One: Bees'],
      [3, 'Chapter Two: Tides'],
    ]);
    expect(doc.sections[0]!.text).toContain('Honeybees live in colonies');
    expect(doc.sections[0]!.text).not.toContain('Chapter One');
    expect(doc.sections[2]!.text).toContain('Tidal power');
  });

  it('says a PDF without a text layer has none', async () => {
    const f = await failure(parseDocument('pdf', await makeImageOnlyPdf(2), opts('scan.pdf')));
    expect(f.code).toBe('no_text_layer');
    expect(f.message).toBe(
      'scan.pdf has no text layer: its 2 pages are images (a scan?). ADAM reads no text from images: run it through OCR first',
    );
  });

  it('refuses an encrypted PDF as encrypted', async () => {
    const pdf = await makePdf([{ paragraphs: [BEES] }], { userPassword: 'secret' });
    const f = await failure(parseDocument('pdf', pdf, opts('locked.pdf')));
    expect(f.code).toBe('encrypted');
    expect(f.message).toContain('locked.pdf is protected by a password');
  });

  it('refuses a corrupt PDF as corrupt', async () => {
    const pdf = await makePdf([{ paragraphs: [BEES] }]);
    const cut = Buffer.concat([pdf.subarray(0, 20), Buffer.from('garbage'.repeat(10))]);
    const f = await failure(parseDocument('pdf', cut, opts('cut.pdf')));
    expect(f.code).toBe('corrupt');
    expect(f.message).toMatch(/^cut\.pdf is not a readable PDF/);
  });

  it('refuses a PDF past the page limit before reading its pages', async () => {
    const pdf = await makePdf([
      { paragraphs: [BEES] },
      { paragraphs: [TIDES] },
      { paragraphs: [BEES] },
    ]);
    const f = await failure(parseDocument('pdf', pdf, opts('long.pdf', { maxPages: 2 })));
    expect(f).toEqual({ code: 'too_many_pages', message: 'long.pdf has 3 pages; the limit is 2' });
  });
});

describe('DOCX', () => {
  it('cuts at Word headings and keeps the core title', async () => {
    const docx = await makeDocx(
      [
        { heading: 1, text: 'Bees' },
        { text: BEES },
        { heading: 2, text: 'Foraging' },
        { text: 'Workers fly up to five kilometres.' },
        { heading: 1, text: 'Tides' },
        { text: TIDES },
      ],
      { title: 'Field & Sea' },
    );
    const doc = await parseDocument('docx', docx, opts('notes.docx'));
    expect(doc.title).toBe('Field & Sea');
    expect(doc.sections).toEqual([
      { heading: 'Bees', page: null, text: BEES },
      { heading: 'Foraging', page: null, text: 'Workers fly up to five kilometres.' },
      { heading: 'Tides', page: null, text: TIDES },
    ]);
  });

  it('refuses a zip bomb by its declared size, before inflating it', async () => {
    const bomb = makeZipBomb(2 * 1024 * 1024);
    const f = await failure(
      parseDocument('docx', bomb, opts('bomb.docx', { maxInflatedBytes: 1024 * 1024 })),
    );
    expect(f.code).toBe('too_large');
    expect(f.message).toBe('bomb.docx would inflate to 2 MiB; the limit is 1 MiB (a zip bomb?)');
  });

  it('refuses a zip bomb that understates its size, while inflating it', async () => {
    const bomb = makeZipBomb(2 * 1024 * 1024, 1000);
    const f = await failure(
      parseDocument('docx', bomb, opts('liar.docx', { maxInflatedBytes: 1024 * 1024 })),
    );
    expect(f.code).toBe('too_large');
    expect(f.message).toContain(
      'liar.docx: the entry word/document.xml inflates past the size it declares',
    );
  });

  it('refuses a zip with too many entries', async () => {
    const zip = makeZip(
      Array.from({ length: 5 }, (_, i) => ({ name: `f${i}.xml`, data: Buffer.from('x') })),
    );
    const f = await failure(parseDocument('docx', zip, opts('many.docx', { maxEntries: 4 })));
    expect(f).toEqual({
      code: 'too_large',
      message: 'many.docx holds 5 zip entries; the limit is 4',
    });
  });

  it('refuses a zip without a Word document, and a cut one, as corrupt', async () => {
    const other = makeZip([{ name: 'readme.txt', data: Buffer.from('hello') }]);
    expect((await failure(parseDocument('docx', other, opts('a.docx')))).message).toBe(
      'a.docx is a zip without a Word document in it',
    );
    const docx = await makeDocx([{ text: BEES }]);
    const cut = docx.subarray(0, docx.length - 30);
    expect(await failure(parseDocument('docx', cut, opts('cut.docx')))).toMatchObject({
      code: 'corrupt',
    });
  });

  it('says a password-protected DOCX (an OLE container) is protected', async () => {
    const ole = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(504),
    ]);
    expect(sniffDocument('secret.docx', ole)).toEqual({ ok: true, type: 'docx' });
    expect(await failure(parseDocument('docx', ole, opts('secret.docx')))).toMatchObject({
      code: 'encrypted',
    });
  });
});

describe('Markdown, HTML, text', () => {
  it('cuts Markdown at its headings; raw HTML stays text', async () => {
    const md = `# Guide\n\nIntro words here.\n\n## Install\n\nRun the <script>alert(1)</script> installer.\n\n- one\n- two\n`;
    const doc = await parseDocument('markdown', Buffer.from(md), opts('guide.md'));
    expect(doc.title).toBe('Guide');
    expect(doc.sections).toEqual([
      { heading: 'Guide', page: null, text: 'Intro words here.' },
      {
        heading: 'Install',
        page: null,
        text: 'Run the <script>alert(1)</script> installer.\n\none\n\ntwo',
      },
    ]);
  });

  it('extracts an HTML file like a page, with its headings', async () => {
    const html = `<!doctype html><html><head><title>Sea Notes</title></head><body>
      <nav>Home | About</nav>
      <article><h1>Sea Notes</h1><p>${TIDES} ${TIDES} ${TIDES}</p>
      <h2>Waves</h2><p>${'Waves carry energy across the ocean surface for thousands of kilometres. '.repeat(4)}</p></article>
      </body></html>`;
    const doc = await parseDocument('html', Buffer.from(html), opts('sea.html'));
    expect(doc.title).toBe('Sea Notes');
    const waves = doc.sections.find((s) => s.heading === 'Waves');
    expect(waves?.text).toContain('Waves carry energy');
    expect(doc.sections.map((s) => s.text).join(' ')).not.toContain('Home | About');
  });

  it('reads text as UTF-8, or windows-1252 when it is not valid UTF-8, or by its BOM', async () => {
    const utf8 = await parseDocument('text', Buffer.from('Café crème'), opts('a.txt'));
    expect(utf8.sections[0]!.text).toBe('Café crème');
    const latin = await parseDocument(
      'text',
      Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x80]),
      opts('b.txt'),
    );
    expect(latin.sections[0]!.text).toBe('Café €');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Hé', 'utf16le')]);
    expect((await parseDocument('text', utf16, opts('c.txt'))).sections[0]!.text).toBe('Hé');
  });

  it('keeps at most maxTextChars characters and says so', async () => {
    const doc = await parseDocument(
      'text',
      Buffer.from('x'.repeat(50)),
      opts('big.txt', { maxTextChars: 10 }),
    );
    expect(doc.sections[0]!.text).toBe('x'.repeat(10));
    expect(doc.warnings).toEqual(['big.txt: only the first 10 characters of text were kept']);
  });
});

describe('sniffDocument', () => {
  it('takes a type from the extension only when the content agrees', async () => {
    const pdf = await makePdf([{ paragraphs: [BEES] }]);
    expect(sniffDocument('a.PDF', pdf)).toEqual({ ok: true, type: 'pdf' });
    expect(sniffDocument('a.pdf', Buffer.from('hello'))).toEqual({
      ok: false,
      reason: "'a.pdf' does not contain a PDF, as its extension says",
    });
    expect(sniffDocument('a.txt', pdf)).toMatchObject({ ok: false });
    expect(sniffDocument('a.md', Buffer.from([0x41, 0, 0x42]))).toMatchObject({ ok: false });
    expect(sniffDocument('a.exe', Buffer.from('MZ'))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("'a.exe' is not a supported document"),
    });
    expect(sniffDocument('notes.markdown', Buffer.from('# hi'))).toEqual({
      ok: true,
      type: 'markdown',
    });
  });
});
