import type { ReactNode } from 'react';
import { Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

/**
 * A spec §8 inline error line. The panel keeps showing its last figures beside it: a failed poll
 * loses nothing already on screen (spec 001 §4).
 */
export function ErrorLine({ children }: { children: ReactNode }) {
  return (
    <Group gap={6} wrap="nowrap" role="alert">
      <IconAlertTriangle size={16} color="var(--mantine-color-red-6)" />
      <Text size="sm" c="red" fw={600}>
        {children}
      </Text>
    </Group>
  );
}

/** A titled card of one monitoring panel: a section named by its title, for screen readers and tests. */
export function MonitoringCard({
  title,
  subtitle,
  icon,
  actions,
  error,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  icon?: ReactNode;
  actions?: ReactNode;
  /** The error line shown above the content, when set. */
  error?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Paper component="section" aria-label={title} withBorder radius="md" p="md" h="100%">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" gap="xs" wrap="nowrap">
          <Group gap={8} wrap="nowrap" align="flex-start">
            {icon}
            <Stack gap={0}>
              <Title order={5}>{title}</Title>
              {subtitle ? (
                <Text size="xs" c="dimmed">
                  {subtitle}
                </Text>
              ) : null}
            </Stack>
          </Group>
          {actions}
        </Group>
        {error ? <ErrorLine>{error}</ErrorLine> : null}
        {children}
      </Stack>
    </Paper>
  );
}

/** Label/value rows of a card; values are already formatted ('-' when unknown). */
export function FigureList({
  rows,
}: {
  /** A row's optional hint says what the figure means (on hover, and to screen readers). */
  rows: readonly [label: string, value: string, hint?: string][];
}) {
  return (
    <Stack gap={4} component="dl" m={0}>
      {rows.map(([label, value, hint]) => (
        <Group key={label} justify="space-between" gap="xs" wrap="nowrap">
          <Text
            component="dt"
            size="xs"
            c="dimmed"
            title={hint}
            style={hint ? { textDecoration: 'underline dotted', cursor: 'help' } : undefined}
          >
            {label}
          </Text>
          <Text component="dd" m={0} size="sm" fw={600} className="tabular-nums" ta="right">
            {value}
          </Text>
        </Group>
      ))}
    </Stack>
  );
}
