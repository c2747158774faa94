import { fold } from './text.js';

/**
 * A word list per label, matched against folded tokens: `word` matches exactly, `word*` matches
 * any token that starts with `word` (the longest matching prefix wins).
 */
export class Lexicon<L extends string> {
  private readonly exact = new Map<string, L[]>();
  private readonly prefixes = new Map<string, L[]>();
  private minPrefix = Infinity;
  private maxPrefix = 0;

  constructor(entries: Partial<Record<L, string>>) {
    for (const [label, words] of Object.entries(entries) as [L, string | undefined][]) {
      for (const raw of fold(words ?? '').split(/\s+/)) {
        if (!raw) continue;
        if (raw.endsWith('*')) {
          const p = raw.slice(0, -1);
          add(this.prefixes, p, label);
          this.minPrefix = Math.min(this.minPrefix, p.length);
          this.maxPrefix = Math.max(this.maxPrefix, p.length);
        } else {
          add(this.exact, raw, label);
        }
      }
    }
  }

  /** Labels of a folded token; empty when it is not in the lexicon. */
  lookup(token: string): readonly L[] {
    const hit = this.exact.get(token);
    if (hit) return hit;
    for (let n = Math.min(token.length, this.maxPrefix); n >= this.minPrefix; n--) {
      const p = this.prefixes.get(token.slice(0, n));
      if (p) return p;
    }
    return [];
  }
}

function add<L>(map: Map<string, L[]>, key: string, label: L): void {
  const list = map.get(key);
  if (!list) map.set(key, [label]);
  else if (!list.includes(label)) list.push(label);
}
