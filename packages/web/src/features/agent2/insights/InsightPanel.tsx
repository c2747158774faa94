import type { ReactNode } from 'react';
import { Box, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { ChartOverlay } from '../../overview/ChartOverlay';

/** A titled panel of an insight screen; `empty` lays a note over a chart that has no data. */
export function InsightPanel({
  title,
  subtitle,
  actions,
  empty,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  actions?: ReactNode;
  empty?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper withBorder radius="md" p="md" h="100%" role="region" aria-label={title}>
      <Group justify="space-between" align="flex-start" mb="md" gap="sm">
        <Stack gap={2}>
          <Title order={4}>{title}</Title>
          {subtitle ? (
            <Text size="xs" c="dimmed">
              {subtitle}
            </Text>
          ) : null}
        </Stack>
        {actions}
      </Group>
      <Box pos="relative">
        {children}
        {empty ? <ChartOverlay>{empty}</ChartOverlay> : null}
      </Box>
    </Paper>
  );
}

/** A headline figure with its caption (what it is computed over). */
export function FigureTile({
  title,
  value,
  caption,
  color,
}: {
  title: string;
  value: ReactNode;
  caption?: ReactNode;
  color?: string;
}) {
  return (
    <Paper withBorder radius="md" p="md" role="group" aria-label={title}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {title}
      </Text>
      <Text fz={26} fw={700} className="tabular-nums" lh={1.4} component="div" c={color}>
        {value}
      </Text>
      <Text size="xs" c="dimmed" mih={18} className="tabular-nums" component="div">
        {caption}
      </Text>
    </Paper>
  );
}
