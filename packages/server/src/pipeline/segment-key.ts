import { createHash } from 'node:crypto';

/** Hex characters of a segment key: 64 bits, a collision between a page's segments is ~never. */
export const SEGMENT_KEY_CHARS = 16;

/**
 * The key that makes two texts the same snippet (a snippet's stored text_hash): case, spacing
 * and Unicode form do not count. NFKC, lower case, spacing folded, SHA-256 in hex.
 */
export function textHash(text: string): string {
  const normal = text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(normal).digest('hex');
}

/**
 * The start of a snippet's textHash, small enough to send a page's known segments with a sync
 * job. Kept here, in a module the worker threads load, because the analysis skips the embedding
 * of known segments.
 */
export function segmentKey(text: string): string {
  return textHash(text).slice(0, SEGMENT_KEY_CHARS);
}
