/** One stretch of a document under one heading, on one page when the format has pages. */
export interface DocumentSection {
  heading: string | null;
  /** 1-based; null for formats without pages. */
  page: number | null;
  text: string;
}

/** What every parser gives, whatever the format: the analysis takes it from here. */
export interface ParsedDocument {
  title: string | null;
  sections: DocumentSection[];
  /** Things the operator should know (text cut at the limit, pages without text). */
  warnings: string[];
}

/** Why a file gave no text: each becomes that file's error in its job, by this code. */
export type DocumentErrorCode =
  'corrupt' | 'encrypted' | 'no_text_layer' | 'too_large' | 'too_many_pages' | 'unsupported';

/** A file that cannot be read, with a sentence that says why in the operator's words. */
export class DocumentError extends Error {
  constructor(
    readonly code: DocumentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DocumentError';
  }
}

export const isDocumentError = (e: unknown): e is DocumentError => e instanceof DocumentError;

/** What a parser is told: the file's name (for messages) and the bounds. */
export interface ParseOptions {
  fileName: string;
  maxPages: number;
  maxInflatedBytes: number;
  maxEntries: number;
  maxTextChars: number;
}

/** Which parser reads a type. */
export type DocumentParser = (body: Uint8Array, opts: ParseOptions) => Promise<ParsedDocument>;

/**
 * Sections cut to `maxChars` characters in all (a warning says so); blank ones dropped and
 * whitespace inside lines collapsed by the parsers already.
 */
export function boundSections(
  sections: DocumentSection[],
  maxChars: number,
  fileName: string,
): { sections: DocumentSection[]; warnings: string[] } {
  const out: DocumentSection[] = [];
  let left = maxChars;
  for (const s of sections) {
    const text = s.text.trim();
    if (!text) continue;
    if (text.length > left) {
      if (left > 0) out.push({ ...s, text: text.slice(0, left) });
      return {
        sections: out,
        warnings: [
          `${fileName}: only the first ${maxChars.toLocaleString('en-US')} characters of text were kept`,
        ],
      };
    }
    out.push({ ...s, text });
    left -= text.length;
  }
  return { sections: out, warnings: [] };
}
