import { BarsList } from '@mantine/charts';
import { Paper, Skeleton, Stack, Text, Title, type MantineColor } from '@mantine/core';
import { formatNumber, formatPercent, ratioPercent } from '../../lib/format';
import { OVERVIEW_MESSAGES as M } from './messages';

/** Spec 002 §3 themes; a theme the server adds later shows in gray. */
const THEME_COLORS: Record<string, MantineColor> = {
  science: 'blue.6',
  technology: 'cyan.7',
  philosophy: 'grape.6',
  general: 'gray.6',
};

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Snippets per theme, largest first, with their share. */
export function ThemesPanel({
  themes,
  loading,
}: {
  themes: Record<string, number> | undefined;
  loading: boolean;
}) {
  const entries = Object.entries(themes ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = entries.reduce((sum, [, n]) => sum + n, 0);

  return (
    <Paper withBorder radius="md" p="md" h="100%">
      <Stack gap={2} mb="md">
        <Title order={4}>{M.themesTitle}</Title>
        <Text size="xs" c="dimmed">
          Snippets per theme
        </Text>
      </Stack>
      {loading ? (
        <Stack gap={6}>
          {[0, 1, 2, 3].map((i) => (
            <Skeleton key={i} height={32} radius="sm" />
          ))}
        </Stack>
      ) : entries.length === 0 ? (
        <Text size="sm" c="dimmed">
          {M.themesEmpty}
        </Text>
      ) : (
        <BarsList
          aria-label="Snippets per theme"
          barsLabel="Theme"
          valueLabel="Snippets"
          autoContrast
          data={entries.map(([theme, n]) => ({
            name: capitalise(theme),
            value: n,
            color: THEME_COLORS[theme] ?? 'indigo.6',
          }))}
          valueFormatter={(n) => `${formatNumber(n)} · ${formatPercent(ratioPercent(n, total), 0)}`}
        />
      )}
    </Paper>
  );
}
