import { Badge } from '@mantine/core';
import { formatNumber } from '../lib/format';
import { qualityColor } from '../lib/quality';

/** A quality score (0–1) coloured by the spec's thresholds: ≥0.8 green, ≥0.5 yellow, else red. */
export function QualityBadge({ score }: { score: number | null | undefined }) {
  return (
    <Badge
      variant="light"
      color={qualityColor(score)}
      className="tabular-nums"
      radius="sm"
      miw="max-content"
    >
      {formatNumber(score, 2)}
    </Badge>
  );
}
