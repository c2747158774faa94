import type { ReactNode } from 'react';
import { Group, Paper, Skeleton, Stack, Text, ThemeIcon, type MantineColor } from '@mantine/core';

/**
 * One real figure of the overview: a title, the value and a caption line. While the first
 * answer loads a skeleton of the same height holds the place.
 */
export function MetricCard({
  title,
  value,
  caption,
  icon,
  color = 'indigo',
  loading = false,
}: {
  title: string;
  value: ReactNode;
  caption?: ReactNode;
  icon: ReactNode;
  color?: MantineColor;
  loading?: boolean;
}) {
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={title}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <Stack gap={4} miw={0}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {title}
          </Text>
          {loading ? (
            <Skeleton height={30} width={96} my={2} />
          ) : (
            <Text fz={26} fw={700} className="tabular-nums" lh={1.3} data-testid="metric-value">
              {value}
            </Text>
          )}
          {/* One line; the whole caption on hover when a narrow card cuts it. */}
          <Text
            size="xs"
            c="dimmed"
            className="tabular-nums"
            lineClamp={1}
            mih={18}
            title={typeof caption === 'string' ? caption : undefined}
          >
            {loading ? '' : caption}
          </Text>
        </Stack>
        <ThemeIcon size={36} radius="md" variant="light" color={color}>
          {icon}
        </ThemeIcon>
      </Group>
    </Paper>
  );
}
