import { FetchError } from './fetch-error.js';

/**
 * The shape of a page's markup, measured before anything builds a DOM from it. The parser behind
 * extraction (htmlparser2 in linkedom) keeps its open elements in an array it shifts and
 * searches, and Readability walks every node's ancestors: both cost depth × nodes, so a page
 * nesting 40,000 elements (or leaving a few thousand <div>s unclosed) takes minutes. This scan
 * reads the raw HTML once, left to right, without a regular expression, and follows the same
 * tree-building rules as that parser (void elements, raw-text elements, the start tags that close
 * an open one, self-closing tags only inside <svg> and <math>), so what it counts is the tree
 * the parser would build.
 */

export const MARKUP_LIMITS = {
  /**
   * Extraction cost grows faster than depth (Readability walks each node's ancestors): one chain
   * of nested <div>s took 0.6 s at 128 levels, 1.5 s at 256, 6 s at 512 and 47 s at 1024 here.
   * Real pages stay far below 256 (Lighthouse already flags a depth past 32).
   */
  depth: 256,
  /**
   * 50,000 paragraphs took 8.5 s to extract here: 100,000 elements stay inside the default task
   * budget, and hold any real article (a long encyclopedia page has a few tens of thousands).
   */
  elements: 100_000,
} as const;

export interface MarkupShape {
  /** The most elements open at once. */
  depth: number;
  /** Elements the parser would create (start tags, and the <p> a stray </p> implies). */
  elements: number;
}

const VOID = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Their content is text up to their end tag, whatever it looks like. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp']);

const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const DD_DT = new Set(['dd', 'dt']);
const RT_RP = new Set(['rt', 'rp']);
const SECTIONS = new Set(['thead', 'tbody']);
/** A start tag closes the open elements on top of the stack that it names (as the parser does). */
const IMPLIES_CLOSE = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DD_DT],
  ['dt', DD_DT],
  ['rt', RT_RP],
  ['rp', RT_RP],
  ['tbody', SECTIONS],
  ['tfoot', SECTIONS],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((t) => [t, FORM] as const),
  ...[
    ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote'],
    ...['details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header'],
    ...['hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'],
  ].map((t) => [t, P] as const),
]);
const FOREIGN = new Set(['svg', 'math']);
const HTML_INTEGRATION = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Depth and element count of the tree `html` parses into. Linear in the length of `html`: every
 * character is read a bounded number of times, and every element is pushed and popped once.
 */
export function measureMarkup(html: string): MarkupShape {
  const names: string[] = [];
  /** Whether each open element's children are foreign content (SVG, MathML). */
  const foreign: boolean[] = [];
  const open = new Map<string, number>();
  let depth = 0;
  let elements = 0;
  const n = html.length;

  const push = (name: string, inForeign: boolean) => {
    names.push(name);
    foreign.push(inForeign);
    open.set(name, (open.get(name) ?? 0) + 1);
    if (names.length > depth) depth = names.length;
  };
  const pop = () => {
    const name = names.pop()!;
    foreign.pop();
    open.set(name, open.get(name)! - 1);
  };

  /** The index after the tag name starting at `i`, and the name in lower case. */
  const readName = (i: number): [number, string] => {
    let j = i;
    while (j < n) {
      const c = html.charCodeAt(j);
      if (isSpace(c) || c === 47 /* / */ || c === 62 /* > */) break;
      j++;
    }
    return [j, html.slice(i, j).toLowerCase()];
  };

  /**
   * From just after a tag name to just after its `>` (attributes read as the tokenizer reads
   * them: a quote only opens a value right after `=`). Answers that index and whether the tag
   * ended with `/>`.
   */
  const skipAttributes = (i: number): [number, boolean] => {
    let j = i;
    while (j < n) {
      const c = html.charCodeAt(j);
      if (c === 62) return [j + 1, false];
      if (c === 47) {
        if (html.charCodeAt(j + 1) === 62) return [j + 2, true];
        j++;
        continue;
      }
      if (isSpace(c)) {
        j++;
        continue;
      }
      // An attribute name, up to =, space, / or >.
      while (j < n) {
        const d = html.charCodeAt(j);
        if (d === 61 || d === 47 || d === 62 || isSpace(d)) break;
        j++;
      }
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      if (html.charCodeAt(j) !== 61 /* = */) continue;
      j++;
      while (j < n && isSpace(html.charCodeAt(j))) j++;
      const q = html.charCodeAt(j);
      if (q === 34 || q === 39) {
        const close = html.indexOf(q === 34 ? '"' : "'", j + 1);
        j = close === -1 ? n : close + 1;
      } else {
        while (j < n) {
          const d = html.charCodeAt(j);
          if (d === 62 || isSpace(d)) break;
          j++;
        }
      }
    }
    return [n, false];
  };

  /** Just after the end tag `</name ...>` that ends a raw-text element's content from `i`. */
  const skipRawText = (i: number, name: string): number => {
    for (let j = html.indexOf('</', i); j !== -1; j = html.indexOf('</', j + 2)) {
      const after = j + 2 + name.length;
      if (html.slice(j + 2, after).toLowerCase() !== name) continue;
      const c = html.charCodeAt(after);
      if (after >= n || isSpace(c) || c === 47 || c === 62) {
        const end = html.indexOf('>', after);
        return end === -1 ? n : end + 1;
      }
    }
    return n;
  };

  let i = html.indexOf('<');
  while (i !== -1 && i < n) {
    const c = html.charCodeAt(i + 1);
    let next: number;
    if (isLetter(c)) {
      const [afterName, name] = readName(i + 1);
      const implied = IMPLIES_CLOSE.get(name);
      if (implied) {
        while (names.length > 0 && implied.has(names[names.length - 1]!)) pop();
      }
      elements++;
      const [afterTag, selfClosing] = skipAttributes(afterName);
      next = afterTag;
      // A void or self-closed element is a level too, with no children.
      if (names.length + 1 > depth) depth = names.length + 1;
      if (!VOID.has(name)) {
        const parentForeign = foreign[foreign.length - 1] ?? false;
        const inForeign = FOREIGN.has(name)
          ? true
          : HTML_INTEGRATION.has(name)
            ? false
            : parentForeign;
        // The parser honours `/>` in foreign content only: <div/> opens a <div>.
        if (!(selfClosing && inForeign)) {
          push(name, inForeign);
          if (RAW_TEXT.has(name) && !inForeign) {
            next = skipRawText(afterTag, name);
            pop();
          }
        }
      }
    } else if (c === 47 /* / */ && isLetter(html.charCodeAt(i + 2))) {
      const [afterName, name] = readName(i + 2);
      if ((open.get(name) ?? 0) > 0) {
        while (names[names.length - 1] !== name) pop();
        pop();
      } else if (name === 'p') {
        elements++; // a stray </p> makes an empty <p>
      }
      const end = html.indexOf('>', afterName);
      next = end === -1 ? n : end + 1;
    } else if (html.startsWith('!--', i + 1)) {
      const end = html.indexOf('-->', i + 4);
      next = end === -1 ? n : end + 3;
    } else if (c === 33 /* ! */ || c === 63 /* ? */ || c === 47 /* / */) {
      const end = html.indexOf('>', i + 2);
      next = end === -1 ? n : end + 1;
    } else {
      next = i + 1; // a '<' in text
    }
    i = html.indexOf('<', next);
  }
  return { depth, elements };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/**
 * Refuses a page whose tree would be deeper or larger than `limits` (a per-URL error that names
 * the figure and the limit), before any DOM is built from it.
 */
export function assertMarkupBounded(
  html: string,
  url: string,
  limits: { depth: number; elements: number } = MARKUP_LIMITS,
): void {
  const shape = measureMarkup(html);
  if (shape.depth > limits.depth) {
    throw new FetchError(
      'unsupported_content',
      `${url}: the page nests elements ${fmt(shape.depth)} levels deep; the limit is ${fmt(limits.depth)}`,
      url,
    );
  }
  if (shape.elements > limits.elements) {
    throw new FetchError(
      'unsupported_content',
      `${url}: the page holds ${fmt(shape.elements)} elements; the limit is ${fmt(limits.elements)}`,
      url,
    );
  }
}
