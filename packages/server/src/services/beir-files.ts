import type { Readable } from 'node:stream';
import { z } from 'zod';
import { EVALUATION_GRADE_MAX, MAX_BEIR_LINE_BYTES, MAX_EVALUATION_QUERIES } from '@adam/contracts';
import { PayloadTooLarge, Unprocessable } from '../lib/errors.js';

/** A part of a multipart body, as @fastify/multipart gives it (kept narrow for tests). */
export type BeirPart =
  | { type: 'file'; fieldname: string; filename: string; file: Readable }
  | { type: 'field'; fieldname: string; value: unknown };

export interface QrelLine {
  queryId: string;
  corpusId: string;
  grade: number;
}
export interface CorpusDoc {
  id: string;
  title: string;
  text: string;
}
/** What a BEIR upload held, every line checked. */
export interface BeirUpload {
  name: string;
  description: string;
  importCorpus: boolean;
  queries: Map<string, string>;
  qrels: QrelLine[];
  /** Present when corpus.jsonl was sent. */
  corpus: CorpusDoc[] | null;
}

/** The first bad lines named in a 422 (the count says how many more). */
const SHOWN_BAD_LINES = 20;
const QRELS_HEADER = ['query-id', 'corpus-id', 'score'];

const Id = z.union([z.string().trim().min(1).max(500), z.number().int()]).transform(String);
const QueryLine = z.object({ _id: Id, text: z.string().trim().min(1).max(2000) });
const CorpusLine = z.object({
  _id: Id,
  title: z.string().max(500).optional().default(''),
  text: z.string().trim().min(1).max(100_000),
});

interface BadLine {
  file: string;
  line: number;
  field: string;
  message: string;
}

/**
 * Splits a stream into lines without a regular expression (\n, with an optional \r before it).
 * A line longer than MAX_BEIR_LINE_BYTES is reported, never buffered past that.
 */
async function* linesOf(
  stream: AsyncIterable<Buffer | string>,
): AsyncGenerator<{ line: number; text: string | null }> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let n = 0;
  const take = () => {
    n++;
    const text = tooLong ? null : Buffer.concat(pending).toString('utf8');
    pending = [];
    pendingBytes = 0;
    tooLong = false;
    return { line: n, text: text?.endsWith('\r') ? text.slice(0, -1) : text };
  };
  for await (const chunk of stream) {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10)) {
      const head = buf.subarray(0, nl);
      if (!tooLong && pendingBytes + head.length <= MAX_BEIR_LINE_BYTES) pending.push(head);
      else tooLong = true;
      yield take();
      buf = buf.subarray(nl + 1);
    }
    if (!tooLong && pendingBytes + buf.length <= MAX_BEIR_LINE_BYTES) {
      pending.push(buf);
      pendingBytes += buf.length;
    } else {
      tooLong = true;
      pending = [];
    }
  }
  if (pendingBytes > 0 || tooLong) yield take();
}

function fileKind(filename: string): 'queries' | 'qrels' | 'corpus' | null {
  // The base name, whatever folder the client put in front (qrels/test.tsv).
  const slash = Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\'));
  const base = filename.slice(slash + 1).toLowerCase();
  if (base === 'queries.jsonl') return 'queries';
  if (base === 'corpus.jsonl') return 'corpus';
  if (base.endsWith('.tsv')) return 'qrels';
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads the parts of a BEIR upload: fields name, description, import_corpus; files queries.jsonl, qrels *.tsv, corpus.jsonl. */
export async function readBeirUpload(parts: AsyncIterable<BeirPart>): Promise<BeirUpload> {
  const bad: BadLine[] = [];
  let badCount = 0;
  const report = (b: BadLine) => {
    badCount++;
    if (bad.length < SHOWN_BAD_LINES) bad.push(b);
  };
  const fields = new Map<string, string>();
  const queries = new Map<string, string>();
  const qrels: QrelLine[] = [];
  let corpus: CorpusDoc[] | null = null;
  let sawQueries = false;
  let sawQrels = false;

  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        fields.set(part.fieldname, String(part.value));
        continue;
      }
      const kind = fileKind(part.filename);
      const file = part.filename;
      if (kind === null) {
        part.file.resume();
        throw new Unprocessable(
          `${file}: not a file of the BEIR layout (queries.jsonl, qrels/*.tsv, corpus.jsonl)`,
        );
      }
      if (kind === 'queries') {
        sawQueries = true;
        for await (const { line, text } of linesOf(part.file)) {
          if (text === null) {
            report({ file, line, field: 'line', message: 'longer than 1 MB' });
            continue;
          }
          if (text.trim() === '') continue;
          const parsed = QueryLine.safeParse(parseJson(text));
          if (!parsed.success) {
            const issue = parsed.error.issues[0]!;
            report({ file, line, field: issue.path.join('.') || 'line', message: issue.message });
            continue;
          }
          if (queries.has(parsed.data._id))
            report({ file, line, field: '_id', message: `repeats ${parsed.data._id}` });
          queries.set(parsed.data._id, parsed.data.text);
        }
      } else if (kind === 'corpus') {
        corpus ??= [];
        for await (const { line, text } of linesOf(part.file)) {
          if (text === null) {
            report({ file, line, field: 'line', message: 'longer than 1 MB' });
            continue;
          }
          if (text.trim() === '') continue;
          const parsed = CorpusLine.safeParse(parseJson(text));
          if (!parsed.success) {
            const issue = parsed.error.issues[0]!;
            report({ file, line, field: issue.path.join('.') || 'line', message: issue.message });
            continue;
          }
          const { _id, title, text: body } = parsed.data;
          corpus.push({ id: _id, title: title.trim(), text: body });
        }
      } else {
        sawQrels = true;
        for await (const { line, text } of linesOf(part.file)) {
          if (text === null) {
            report({ file, line, field: 'line', message: 'longer than 1 MB' });
            continue;
          }
          const cells = text.split('\t');
          if (line === 1) {
            if (cells.map((c) => c.trim()).join('\t') !== QRELS_HEADER.join('\t'))
              report({
                file,
                line,
                field: 'header',
                message: 'must be query-id, corpus-id, score (tab-separated)',
              });
            continue;
          }
          if (text.trim() === '') continue;
          if (cells.length !== 3) {
            report({ file, line, field: 'line', message: 'must hold 3 tab-separated fields' });
            continue;
          }
          const [queryId, corpusId, score] = cells.map((c) => c.trim()) as [string, string, string];
          if (!queryId || queryId.length > 500) {
            report({ file, line, field: 'query-id', message: 'must be 1 to 500 characters' });
            continue;
          }
          if (!corpusId || corpusId.length > 2048) {
            report({ file, line, field: 'corpus-id', message: 'must be 1 to 2048 characters' });
            continue;
          }
          const grade = Number(score);
          if (
            score === '' ||
            !Number.isInteger(grade) ||
            grade < 0 ||
            grade > EVALUATION_GRADE_MAX
          ) {
            report({ file, line, field: 'score', message: 'must be an integer from 0 to 3' });
            continue;
          }
          qrels.push({ queryId, corpusId, grade });
        }
      }
    }
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 413)
      throw new PayloadTooLarge(
        `The upload is too large: ${(e as Error).message} (each file at most 64 MB)`,
      );
    throw e;
  }

  if (!sawQueries) throw new Unprocessable('queries.jsonl is missing');
  if (!sawQrels) throw new Unprocessable('No qrels file (qrels/test.tsv or another .tsv) was sent');
  for (const q of qrels) {
    if (!queries.has(q.queryId))
      report({
        file: 'qrels',
        line: 0,
        field: 'query-id',
        message: `${q.queryId} is not in queries.jsonl`,
      });
  }
  if (badCount) {
    const named = bad.map((b) =>
      b.line
        ? `${b.file} line ${b.line}: ${b.field} ${b.message}`
        : `${b.file}: ${b.field} ${b.message}`,
    );
    const more = badCount > bad.length ? `; and ${badCount - bad.length} more` : '';
    throw new Unprocessable(
      `${badCount} bad lines, nothing was imported: ${named.join('; ')}${more}`,
      bad.map((b) => ({
        field: b.line ? `${b.file} line ${b.line}: ${b.field}` : `${b.file}: ${b.field}`,
        message: b.message,
      })),
    );
  }
  const judged = new Set(qrels.map((q) => q.queryId));
  if (judged.size > MAX_EVALUATION_QUERIES)
    throw new Unprocessable(
      `The qrels judge ${judged.size} queries, more than ${MAX_EVALUATION_QUERIES} (the limit of a set)`,
    );
  if (qrels.length === 0) throw new Unprocessable('The qrels hold no judgments');
  const importCorpus = (fields.get('import_corpus') ?? 'false').trim().toLowerCase();
  if (!['true', 'false', '1', '0', ''].includes(importCorpus))
    throw new Unprocessable('import_corpus must be true or false', [
      { field: 'import_corpus', message: 'must be true or false' },
    ]);
  const wantsCorpus = importCorpus === 'true' || importCorpus === '1';
  if (wantsCorpus && !corpus)
    throw new Unprocessable('import_corpus is true but no corpus.jsonl was sent');
  const name = (fields.get('name') ?? '').trim();
  if (!name || name.length > 200)
    throw new Unprocessable('name must be 1 to 200 characters', [
      { field: 'name', message: 'must be 1 to 200 characters' },
    ]);
  const description = (fields.get('description') ?? '').trim();
  if (description.length > 2000)
    throw new Unprocessable('description must be at most 2000 characters', [
      { field: 'description', message: 'must be at most 2000 characters' },
    ]);
  return { name, description, importCorpus: wantsCorpus, queries, qrels, corpus };
}
