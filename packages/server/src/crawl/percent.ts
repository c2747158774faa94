/** Percent-escape pieces shared by robots.txt matching and URL normalisation. */

/** Upper-case hex digits, the form RFC 3986 §2.1 recommends for escapes. */
export const HEX = '0123456789ABCDEF';

/** The value of one hex digit's char code, or -1. */
export function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}
