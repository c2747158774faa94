import type { ReactNode } from 'react';
import { Badge, Group, Paper, Stack, Text, ThemeIcon, type MantineColor } from '@mantine/core';
import { IconTrendingDown, IconTrendingUp } from '@tabler/icons-react';

/** A headline figure with an optional trend. */
export function StatCard({
  title,
  value,
  trend,
  trendUp = true,
  icon,
  color = 'indigo',
}: {
  title: string;
  value: string;
  trend?: string;
  trendUp?: boolean;
  icon?: ReactNode;
  color?: MantineColor;
}) {
  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4}>
          <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
            {title}
          </Text>
          <Text fz={28} fw={700} className="tabular-nums" lh={1.2}>
            {value}
          </Text>
        </Stack>
        {icon ? (
          <ThemeIcon size={38} radius="md" variant="light" color={color}>
            {icon}
          </ThemeIcon>
        ) : null}
      </Group>
      {trend ? (
        <Badge
          mt="sm"
          variant="light"
          color={trendUp ? 'teal' : 'red'}
          leftSection={trendUp ? <IconTrendingUp size={12} /> : <IconTrendingDown size={12} />}
        >
          {trend}
        </Badge>
      ) : null}
    </Paper>
  );
}
