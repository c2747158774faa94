/** `x` rounded to `digits` decimals (figures shown to operators and stored in reports). */
export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
