import type { FieldError } from './errors.js';

// NUL first; then a high surrogate not followed by a low one, or a low one not preceded by a high one.
const UNFAITHFUL = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface Node {
  value: unknown;
  key: string | null;
  parent: Node | null;
}

/**
 * The first string (or object key) of a parsed JSON value that the store could not keep as sent:
 * a NUL, which text pipelines and C libraries cut at, or an unpaired UTF-16 surrogate, which
 * UTF-8 cannot encode and SQLite would hand back as replacement characters. Refused rather than
 * cleaned, so that what the API stores is what the caller sent. A `__proto__` key (or a
 * `constructor` holding `prototype`) is refused too: no object could hold it as sent. Walks with its own stack: a body
 * nested a million deep must not overflow the call stack.
 */
export function findUnfaithfulText(value: unknown): FieldError | null {
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      const problem = describe(v);
      if (problem) return { field: pathOf(node), message: problem };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ value: v[i], key: String(i), parent: node });
    } else if (isPlainObject(v)) {
      const entries = Object.entries(v);
      for (const [k, child] of entries) {
        const problem = describe(k) ?? describeKey(k, child);
        // The key names the field, escaped: `a\u0000b contains a NUL character`.
        if (problem) return { field: pathOf({ value: k, key: k, parent: node }), message: problem };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        stack.push({ value: child, key: k, parent: node });
      }
    }
  }
  return null;
}

// A `__proto__` key cannot be held by a plain object (assigning it swaps the prototype), and
// `constructor.prototype` reaches Object.prototype through any merge that follows keys: refused,
// as the JSON parser Fastify ships refuses them.
function describeKey(k: string, child: unknown): string | null {
  if (k === '__proto__') return 'is a "__proto__" key, which is refused';
  if (k === 'constructor' && child !== null && typeof child === 'object' && 'prototype' in child) {
    return 'holds a "prototype" key, which is refused';
  }
  return null;
}

function describe(s: string): string | null {
  const m = UNFAITHFUL.exec(s);
  if (!m) return null;
  return m[0] === '\0' ? 'contains a NUL character' : 'contains an unpaired surrogate';
}

// Only what JSON.parse and the query-string parser make (the latter's objects have a prototype
// that itself has none); buffers and streams are not text.
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

/** `urls.3`, `settings.name`, like the validation errors; a bad key is shown escaped. */
function pathOf(node: Node): string {
  const keys: string[] = [];
  for (let n: Node | null = node; n?.key != null; n = n.parent) keys.push(n.key);
  keys.reverse();
  // A path hundreds deep would fill the answer: its two ends say where it is.
  const shown = keys.length > 20 ? [...keys.slice(0, 10), '…', ...keys.slice(-10)] : keys;
  return shown.map((k) => JSON.stringify(k).slice(1, -1)).join('.') || '(body)';
}
