import { readFile } from 'node:fs/promises';
import type { DocumentType } from '@adam/contracts';
import { markStarted, type TimedTask } from '../engine/task-deadline.js';
import type { AnalyzeResult } from '../pipeline/index.js';
import { parseDocument } from './parse-document.js';
import { loadPdfJs } from './pdf.js';
import {
  isDocumentError,
  type DocumentErrorCode,
  type DocumentSection,
  type ParsedDocument,
  type ParseOptions,
} from './parsed-document.js';
import type { SectionPlace } from './section-places.js';

/** Parse one uploaded file on an engine thread: the thread reads it, the server's loop never holds it. */
export interface ParseDocumentTask extends TimedTask {
  path: string;
  type: DocumentType;
  options: ParseOptions;
}

/** A DocumentError travels back as data, keeping its code (an Error loses its class). */
export type ParseDocumentResult =
  { ok: true; document: ParsedDocument } | { ok: false; code: DocumentErrorCode; message: string };

export async function parseDocumentFile(task: ParseDocumentTask): Promise<ParseDocumentResult> {
  // A fresh thread (one replaced after a timeout) loads pdf.js first, outside the budget.
  if (task.type === 'pdf') await loadPdfJs();
  markStarted(task);
  const body = await readFile(task.path);
  try {
    return { ok: true, document: await parseDocument(task.type, body, task.options) };
  } catch (e) {
    if (isDocumentError(e)) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}

/** Sections of a document analysed together (see section-places.ts). */
export interface SectionsAnalysis {
  analysis: AnalyzeResult;
  /** Where each of analysis.segments begins, in their order. */
  places: SectionPlace[];
}

export type { DocumentSection };
