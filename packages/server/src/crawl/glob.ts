/**
 * A `*`-only glob matcher shared by robots.txt rules and crawl URL patterns, without regular
 * expressions: patterns come from outside (a site's robots.txt, an operator's form).
 *
 * A pattern is split at its `*`s into literal parts. The first part must be a prefix of the
 * text, each middle part is found at its leftmost place after the previous one (greedy leftmost
 * placement is optimal for `*`-only globs: if the leftmost place fails, every later one does),
 * and the last part must be a suffix when the pattern is anchored at the end. Every part is
 * searched once from a position that only moves forward, so a match costs O(text + pattern);
 * runs of `*` collapse to one.
 */

export interface Glob {
  /** Literal parts between the `*`s; length 1 when the pattern has no `*`. */
  readonly parts: readonly string[];
  /** The text must end where the pattern ends (robots `$`; every crawl URL pattern). */
  readonly anchoredEnd: boolean;
}

/** A pattern where every `*` is a wildcard and every other character literal. */
export function compileGlob(pattern: string, anchoredEnd: boolean): Glob {
  return globFromParts(pattern.split('*'), anchoredEnd);
}

/**
 * A glob from literal parts that `*`s separate (a caller that rewrites the parts, e.g. decoding
 * percent escapes, builds it from them so that a decoded `*` stays literal).
 */
export function globFromParts(split: readonly string[], anchoredEnd: boolean): Glob {
  // Empty middle parts (from `**`) match anywhere: dropping them changes nothing.
  const parts =
    split.length <= 2
      ? [...split]
      : [split[0]!, ...split.slice(1, -1).filter((p) => p !== ''), split[split.length - 1]!];
  return { parts, anchoredEnd };
}

/** The pattern's length with runs of `*` counted once: how specific it is. */
export function globLength(glob: Glob): number {
  let n = glob.parts.length - 1;
  for (const p of glob.parts) n += p.length;
  return n + (glob.anchoredEnd ? 1 : 0);
}

/** Whether `text` matches from its start (and to its end when the glob is anchored there). */
export function globMatches(glob: Glob, text: string): boolean {
  const { parts, anchoredEnd } = glob;
  const first = parts[0]!;
  if (parts.length === 1) return anchoredEnd ? text === first : text.startsWith(first);
  if (!text.startsWith(first)) return false;
  let pos = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const at = text.indexOf(parts[i]!, pos);
    if (at < 0) return false;
    pos = at + parts[i]!.length;
  }
  const last = parts[parts.length - 1]!;
  if (last === '') return true;
  if (anchoredEnd) return text.length - last.length >= pos && text.endsWith(last);
  return text.indexOf(last, pos) >= 0;
}
