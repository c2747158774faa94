/** Spec 002 §9 quality colours: 0.8 or above green, 0.5 or above yellow, otherwise red. */
const QUALITY_GREEN_FROM = 0.8;
const QUALITY_YELLOW_FROM = 0.5;

export function qualityColor(
  score: number | null | undefined,
): 'green' | 'yellow' | 'red' | 'gray' {
  if (typeof score !== 'number' || !Number.isFinite(score)) return 'gray';
  if (score >= QUALITY_GREEN_FROM) return 'green';
  if (score >= QUALITY_YELLOW_FROM) return 'yellow';
  return 'red';
}
