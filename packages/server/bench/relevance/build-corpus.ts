/**
 * Builds the README relevance corpus (not a test; run once, then commit the JSON):
 *
 *   cd packages/server && npx tsx bench/relevance/build-corpus.ts
 *
 * Reads the README of each package listed below from the repository's node_modules, keeps the
 * prose (code blocks, tables, badges, images, HTML, link targets and short option lists go),
 * cuts it into passages of 40–220 words within one section, and writes readme-docs.json with
 * the package versions it came from. The output depends only on those README files, so the
 * same versions always give the same passages; readme-queries.ts labels passages by id, so
 * re-running after an upgrade can invalidate labels — check-set.ts reports missing ids.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadmeCorpus, ReadmeDoc } from './readme-set.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const NODE_MODULES = resolve(HERE, '../../../../node_modules');
const OUT = join(HERE, 'readme-docs.json');

/** Packages with substantial prose; several cover the same ground so distractors are real. */
const PACKAGES: readonly string[] = [
  // HTTP servers, clients and their plumbing
  'fastify',
  'find-my-way',
  'avvio',
  'light-my-request',
  'fast-json-stringify',
  'secure-json-parse',
  '@fastify/static',
  '@fastify/cookie',
  '@fastify/websocket',
  '@fastify/swagger',
  'fastify-type-provider-zod',
  'undici',
  'ws',
  'cookie',
  'tough-cookie',
  'http-errors',
  'fast-uri',
  'tldts',
  // Data stores, queues, workers, caches
  'better-sqlite3',
  'ioredis',
  'bullmq',
  'piscina',
  'fastq',
  'p-limit',
  'lru-cache',
  'keyv',
  'usearch',
  'msgpackr',
  'cron-parser',
  // Logging and diagnostics
  'pino',
  'sonic-boom',
  '@pinojs/redact',
  'debug',
  'depd',
  'chalk',
  // Natural-language processing
  'compromise',
  'wink-nlp',
  'franc',
  'trigram-utils',
  'n-gram',
  // Validation, parsing, serialisation
  'zod',
  'js-yaml',
  'yaml',
  'semver',
  'decimal.js',
  'safe-stable-stringify',
  'rfdc',
  'iconv-lite',
  'buffer',
  'safe-buffer',
  'bl',
  'minipass',
  '@noble/hashes',
  'qrcode',
  'pngjs',
  // Files and globbing
  'glob',
  'minimatch',
  'picomatch',
  'path-scurry',
  'ignore',
  // DOM, HTML, CSS
  'jsdom',
  'linkedom',
  'saxes',
  'symbol-tree',
  'css-select',
  'tabbable',
  '@mozilla/readability',
  'lightningcss',
  // JavaScript tooling
  'acorn',
  'espree',
  'es-module-lexer',
  'magic-string',
  'yargs-parser',
  'optionator',
  '@eslint/config-array',
  'ret',
  // Testing and benchmarking
  '@testing-library/react',
  '@testing-library/dom',
  '@testing-library/jest-dom',
  'pretty-format',
  'expect-type',
  'tinybench',
  'tinyexec',
  'chai',
  'playwright',
  // UI state
  'redux',
  '@reduxjs/toolkit',
  'redux-thunk',
  'reselect',
  'immer',
  '@tanstack/react-query',
];

/** At most this many passages per package, taken evenly across its README. */
const PER_PACKAGE = 9;
const MIN_WORDS = 40;
const MAX_WORDS = 220;

/** Sections that are never technical prose. */
const SKIP_SECTION =
  /^(licen[cs]e|contributors?|contributing|authors?|maintainers?|team|sponsors?|backers|acknowledge?ments?|credits|donate|donations|support|changelog|table of contents|contents|toc|security|code of conduct|related|see also|thanks|legal)/i;

function readmeOf(pkg: string): string | null {
  const dir = join(NODE_MODULES, pkg);
  if (!existsSync(dir)) return null;
  const name = readdirSync(dir)
    .filter((f) => /^readme\.md$/i.test(f))
    .sort()[0];
  return name ? readFileSync(join(dir, name), 'utf8') : null;
}

function versionOf(pkg: string): string {
  const json = JSON.parse(readFileSync(join(NODE_MODULES, pkg, 'package.json'), 'utf8')) as {
    version?: string;
  };
  return json.version ?? 'unknown';
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
};

/** Inline markdown to plain text: keeps link and code text, drops images, URLs and markup. */
function cleanInline(line: string): string {
  // Code spans keep their text verbatim (`<audio>` is a name, not a tag to strip).
  return line
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .split(/(`[^`]*`)/)
    .map((part) => (/^`[^`]*`$/.test(part) ? part.slice(1, -1) : cleanMarkup(part)))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
}

function cleanMarkup(text: string): string {
  return text
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/!\[[^\]]*\]\[[^\]]*\]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/https?:\/\/\S+/g, '')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/&([a-z]+);/gi, (m, e: string) => ENTITIES[e.toLowerCase()] ?? m)
    .replace(/&#(\d+);/g, (_m, n: string) => String.fromCodePoint(Number(n)))
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1');
}

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** Share of whitespace tokens that look like code rather than words. */
function codeShare(text: string): number {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.length === 0) return 1;
  const codey = tokens.filter(
    (t) =>
      /[{}();=<>[\]$|\\]|=>|\w\.\w+\(|^--?\w|[a-z][A-Z]|\w_\w|^\W+$/.test(t) &&
      !/^\(?[A-Za-z'’-]+[),.;:]*$/.test(t),
  );
  return codey.length / tokens.length;
}

interface Block {
  section: string;
  text: string;
}

/** Splits a README into cleaned prose blocks, each tagged with its nearest heading. */
function proseBlocks(markdown: string): Block[] {
  const lines = markdown
    .replace(/\r\n?/g, '\n')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(details|table|pre|picture|svg)[\s\S]*?<\/\1>/gi, '')
    .split('\n');
  const blocks: Block[] = [];
  let section = '';
  let skip = false;
  let fence: string | null = null;
  let para: string[] = [];

  const flush = (): void => {
    const raw = para;
    para = [];
    if (skip || raw.length === 0) return;
    if (raw.every((l) => /^( {4}|\t)/.test(l))) return; // indented code
    if (raw.some((l) => /^\s*\|/.test(l) || /^\s*:?-{3,}:?\s*\|/.test(l))) return; // table
    if (raw.every((l) => /^\s*(<[^>]*>\s*)+$/.test(l))) return; // bare HTML
    const isItem = (l: string): boolean => /^\s*([-*+]|\d+[.)])\s+/.test(l);
    let text: string;
    if (raw.some(isItem)) {
      // A list: keep it only when its items are sentences, not names of options or links.
      const items: string[] = [];
      for (const l of raw) {
        if (isItem(l)) items.push(l.replace(/^\s*([-*+]|\d+[.)])\s+/, ''));
        else if (items.length > 0) items[items.length - 1] += ` ${l.trim()}`;
        else items.push(l.trim());
      }
      const cleaned = items.map(cleanInline).filter(Boolean);
      const meanWords = cleaned.reduce((n, i) => n + wordCount(i), 0) / (cleaned.length || 1);
      if (meanWords < 12) return;
      text = cleaned.map((i) => (/[.!?:]$/.test(i) ? i : `${i}.`)).join(' ');
    } else {
      text = cleanInline(raw.map((l) => l.replace(/^\s*>\s?/, '')).join(' '));
    }
    if (wordCount(text) < 8 || codeShare(text) > 0.2) return;
    if (!/[.!?:]["')]?$/.test(text) && wordCount(text) < 20) return; // a caption or a label
    blocks.push({ section, text });
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^\s*(```|~~~)/.exec(line);
    if (fence !== null) {
      if (fenceMatch && fenceMatch[1] === fence) fence = null;
      continue;
    }
    if (fenceMatch) {
      flush();
      fence = fenceMatch[1]!;
      continue;
    }
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    const next = lines[i + 1] ?? '';
    const setext = line.trim() !== '' && /^\s*(=+|-+)\s*$/.test(next) && !/^\s*[-*+]\s/.test(line);
    if (heading || setext) {
      flush();
      section = cleanInline(heading ? heading[1]! : line).replace(/[:.]$/, '');
      skip = SKIP_SECTION.test(section);
      if (setext) i++;
      continue;
    }
    if (line.trim() === '' || /^\s*([-*_]\s*){3,}$/.test(line)) {
      flush();
      continue;
    }
    para.push(line);
  }
  flush();
  return blocks;
}

/** Splits text into sentences (crudely: after . ! ? followed by a capital or a quote). */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=["'“(A-Z0-9])/).filter(Boolean);
}

/** Groups blocks of one section into passages of MIN_WORDS..MAX_WORDS words. */
function passages(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  let current: Block | null = null;
  const emit = (): void => {
    if (current && wordCount(current.text) >= MIN_WORDS) out.push(current);
    current = null;
  };
  for (const block of blocks) {
    // Over-long blocks are cut at sentence boundaries into near-equal parts.
    const pieces: string[] = [];
    const words = wordCount(block.text);
    if (words > MAX_WORDS) {
      const parts = Math.ceil(words / MAX_WORDS);
      const target = words / parts;
      let piece = '';
      for (const s of sentences(block.text)) {
        if (piece && wordCount(piece) + wordCount(s) > target * 1.15) {
          pieces.push(piece);
          piece = '';
        }
        piece = piece ? `${piece} ${s}` : s;
      }
      if (piece) pieces.push(piece);
    } else {
      pieces.push(block.text);
    }
    for (const piece of pieces) {
      if (wordCount(piece) > MAX_WORDS) continue; // one unbreakable run-on: not prose
      const c = current as Block | null;
      if (c && c.section === block.section && wordCount(c.text) + wordCount(piece) <= MAX_WORDS) {
        c.text = `${c.text} ${piece}`;
        continue;
      }
      emit();
      current = { section: block.section, text: piece };
    }
  }
  emit();
  return out;
}

/** Picks `n` items spread evenly over `items` (all of them when there are fewer). */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor(((i + 0.5) * items.length) / n)]!);
}

const slug = (pkg: string): string =>
  pkg
    .replace(/^@/, '')
    .replace(/[/.]/g, '-')
    .replace(/[^a-z0-9-]/gi, '');

const docs: ReadmeDoc[] = [];
const versions: Record<string, string> = {};
const seen = new Set<string>();
for (const pkg of PACKAGES) {
  const readme = readmeOf(pkg);
  if (readme === null) {
    console.warn(`skipped ${pkg}: no README in node_modules`);
    continue;
  }
  const chosen = spread(
    passages(proseBlocks(readme)).filter((p) => !seen.has(p.text)),
    PER_PACKAGE,
  );
  if (chosen.length === 0) continue;
  versions[pkg] = versionOf(pkg);
  chosen.forEach((p, i) => {
    seen.add(p.text);
    docs.push({
      id: `${slug(pkg)}-${String(i + 1).padStart(3, '0')}`,
      package: pkg,
      section: p.section,
      text: p.text,
    });
  });
}

const json: ReadmeCorpus = {
  description:
    'Prose passages from npm package READMEs, for the README relevance set (see build-corpus.ts).',
  source: versions,
  docs,
};
writeFileSync(OUT, `${JSON.stringify(json, null, 2)}\n`);
console.log(
  `${docs.length} passages from ${Object.keys(versions).length} packages -> ${OUT}` +
    ` (mean ${(docs.reduce((n, d) => n + wordCount(d.text), 0) / docs.length).toFixed(0)} words)`,
);
