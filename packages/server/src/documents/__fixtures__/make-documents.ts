/**
 * Documents generated for the tests with real writers (pdfkit, docx) or by hand where a writer
 * would refuse to make them (a zip bomb, a PDF whose one page holds millions of operators): no
 * binary blob of unknown origin in the repository.
 */
import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import { Document, HeadingLevel, ImageRun, Packer, Paragraph } from 'docx';
import PDFDocument from 'pdfkit';

export interface PageSpec {
  heading?: string;
  /** A PNG under the heading, fitted in 400×200 pt. */
  figure?: Buffer;
  paragraphs: string[];
}

/** A PDF with one page per spec: a 20 pt heading (and its figure) over 11 pt paragraphs. */
export function makePdf(
  pages: PageSpec[],
  opts: { title?: string; userPassword?: string } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      autoFirstPage: false,
      ...(opts.title && { info: { Title: opts.title } }),
      ...(opts.userPassword && { userPassword: opts.userPassword, ownerPassword: 'owner' }),
    });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const p of pages) {
      doc.addPage();
      if (p.heading) doc.fontSize(20).text(p.heading).moveDown(0.5);
      if (p.figure) doc.image(p.figure, { fit: [400, 200] }).moveDown(0.5);
      for (const para of p.paragraphs) doc.fontSize(11).text(para).moveDown(0.5);
    }
    doc.end();
  });
}

/**
 * An RGB PNG made by hand (signature, IHDR, IDAT, IEND) from its raw rows: each a filter byte
 * (0) and `width` pixels of 3 bytes.
 */
export function rgbPng(width: number, height: number, rows: Buffer, level = 6): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 2×2 grey PNG. */
function tinyPng(): Buffer {
  return rgbPng(
    2,
    2,
    Buffer.from([0, 128, 128, 128, 128, 128, 128, 0, 128, 128, 128, 128, 128, 128]),
  );
}

/** A scan: pages holding only an image, no text layer. */
export function makeImageOnlyPdf(pages: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    const png = tinyPng();
    for (let i = 0; i < pages; i++) {
      doc.addPage();
      doc.image(png, 50, 50, { width: 400 });
    }
    doc.end();
  });
}

export interface DocxBlock {
  /** 1–3: a heading of that level; absent: a paragraph. */
  heading?: 1 | 2 | 3;
  text: string;
  /** A PNG as the paragraph (400×200 px; `text` is then not shown). */
  image?: Buffer;
}

const LEVELS = { 1: HeadingLevel.HEADING_1, 2: HeadingLevel.HEADING_2, 3: HeadingLevel.HEADING_3 };

/** A DOCX whose headings use Word's Heading styles. */
export function makeDocx(blocks: DocxBlock[], opts: { title?: string } = {}): Promise<Buffer> {
  const doc = new Document({
    ...(opts.title && { title: opts.title }),
    sections: [
      {
        children: blocks.map((b) =>
          b.image
            ? new Paragraph({
                children: [
                  new ImageRun({
                    type: 'png',
                    data: b.image,
                    transformation: { width: 400, height: 200 },
                  }),
                ],
              })
            : new Paragraph({ text: b.text, ...(b.heading && { heading: LEVELS[b.heading] }) }),
        ),
      },
    ],
  });
  return Packer.toBuffer(doc);
}

export interface ZipSpec {
  name: string;
  data: Buffer;
  /** The uncompressed size the zip's directory claims (default: the real one). */
  declaredSize?: number;
}

/** A zip written by hand, every entry deflated, sizes as declared: what a zip bomb needs. */
export function makeZip(entries: ZipSpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const packed = deflateRawSync(e.data);
    const size = e.declaredSize ?? e.data.length;
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += 30 + name.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"></Types>';

/**
 * A DOCX-shaped zip whose document.xml inflates to `bytes` of spaces (a few KB on disk), and
 * declares `declaredSize` (default: the truth).
 */
export function makeZipBomb(bytes: number, declaredSize?: number): Buffer {
  return makeZip([
    { name: '[Content_Types].xml', data: Buffer.from(CONTENT_TYPES) },
    {
      name: 'word/document.xml',
      data: Buffer.alloc(bytes, 0x20),
      ...(declaredSize !== undefined && { declaredSize }),
    },
  ]);
}

/**
 * A well-formed PDF whose one page draws `ops` text operators: a few hundred KB once deflated,
 * and seconds of work for any text extractor. What a hostile file looks like to a deadline.
 */
export function makeHeavyPdf(ops: number): Buffer {
  const op = Buffer.from('BT /F1 9 Tf 10 10 Td (a) Tj ET\n');
  const stream = deflateSync(Buffer.concat(Array.from({ length: ops }, () => op)));
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    null, // the content stream
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(at);
    const body =
      o === null
        ? Buffer.concat([
            Buffer.from(
              `${i + 1} 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`,
            ),
            stream,
            Buffer.from('\nendstream\nendobj\n'),
          ])
        : Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`);
    parts.push(body);
    at += body.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`;
  parts.push(Buffer.from(xref));
  return Buffer.concat(parts);
}
