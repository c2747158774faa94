import { Group, Progress, Stack, Text, type MantineColor } from '@mantine/core';
import { formatPercent, ratioPercent } from '../lib/format';

/**
 * A labelled bar of `value / total`, capped at 100% and empty when the total is 0 or non-finite
 * (spec 000 §5). `caption` replaces the percentage on the right when given.
 */
export function RatioBar({
  label,
  value,
  total,
  caption,
  color = 'indigo',
  size = 'sm',
  dimmed = false,
}: {
  label: string;
  value: number | null | undefined;
  total: number | null | undefined;
  caption?: string;
  color?: MantineColor;
  size?: 'xs' | 'sm' | 'md' | 'lg';
  dimmed?: boolean;
}) {
  const percent = ratioPercent(value, total);
  const known = typeof value === 'number' && Number.isFinite(value);
  return (
    <Stack gap={4} opacity={dimmed ? 0.55 : 1}>
      <Group justify="space-between" gap="xs">
        <Text size="xs" c="dimmed">
          {label}
        </Text>
        <Text size="xs" fw={600} className="tabular-nums">
          {caption ?? (known ? formatPercent(percent) : '-')}
        </Text>
      </Group>
      <Progress value={percent} color={color} size={size} radius="xl" aria-label={label} />
    </Stack>
  );
}
