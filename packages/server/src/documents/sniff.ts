import type { DocumentType } from '@adam/contracts';
import { DOCUMENT_EXTENSIONS, DOCUMENT_TYPES } from '@adam/contracts/constants';

/** Bytes of a file's start that sniffing reads (the upload keeps them as they stream by). */
export const SNIFF_BYTES = 4096;

const startsWith = (b: Uint8Array, sig: string, at = 0) => {
  if (b.length < at + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (b[at + i] !== sig.charCodeAt(i)) return false;
  return true;
};

/** `%PDF-` within the first 1024 bytes, as readers accept (some files have junk before it). */
function looksPdf(head: Uint8Array): boolean {
  const end = Math.min(head.length, 1024);
  for (let i = 0; i + 5 <= end; i++) if (startsWith(head, '%PDF-', i)) return true;
  return false;
}

/** A zip's local file header: a DOCX is one (its [Content_Types].xml is checked when parsed). */
const looksZip = (head: Uint8Array) => startsWith(head, 'PK\x03\x04');

/**
 * An OLE compound file: what Word writes for a password-protected DOCX (or an old .doc). Let
 * through as a DOCX so that its parser can say so, rather than refused as an unknown type.
 */
export const looksOle = (head: Uint8Array) => startsWith(head, '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1');

/**
 * Text has no NUL byte, unless it is UTF-16 (a byte order mark says so). Binary formats
 * (images, executables, archives) have NULs early.
 */
function looksText(head: Uint8Array): boolean {
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return true;
  return !head.includes(0) && !looksPdf(head) && !looksZip(head) && !looksOle(head);
}

/** The type an extension claims, or null for one no type has. */
function typeOfName(name: string): DocumentType | null {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  const ext = name.slice(dot).toLowerCase();
  return DOCUMENT_TYPES.find((t) => DOCUMENT_EXTENSIONS[t].includes(ext)) ?? null;
}

export type SniffResult = { ok: true; type: DocumentType } | { ok: false; reason: string };

/**
 * A file's type from its extension, confirmed by its first bytes: a `.pdf` must start as a PDF,
 * a `.docx` as a zip, text formats must not look binary. Neither alone is trusted: an
 * extension is a name the client chose, and content alone cannot tell Markdown from text.
 */
export function sniffDocument(name: string, head: Uint8Array): SniffResult {
  const type = typeOfName(name);
  const accepted = DOCUMENT_TYPES.flatMap((t) => DOCUMENT_EXTENSIONS[t]).join(', ');
  if (!type) {
    return { ok: false, reason: `'${name}' is not a supported document (accepted: ${accepted})` };
  }
  const fits =
    type === 'pdf'
      ? looksPdf(head)
      : type === 'docx'
        ? looksZip(head) || looksOle(head)
        : looksText(head);
  if (!fits) {
    const what = type === 'pdf' ? 'a PDF' : type === 'docx' ? 'a DOCX (zip)' : 'text';
    return { ok: false, reason: `'${name}' does not contain ${what}, as its extension says` };
  }
  return { ok: true, type };
}
