import { Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconClockHour4 } from '@tabler/icons-react';
import { PageHeader } from './PageHeader';

/** What a tab shows until its screen is built: its title and a plain statement, no made-up data. */
export function NotAvailableYet({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <Paper withBorder radius="md" p="xl">
        <Stack align="center" gap="xs" py="xl">
          <ThemeIcon size={48} radius="xl" variant="light" color="gray">
            <IconClockHour4 size={26} />
          </ThemeIcon>
          <Text fw={600}>This screen is not available yet.</Text>
          <Text c="dimmed" size="sm" ta="center" maw={420}>
            {title} will be available in a later version of the console.
          </Text>
        </Stack>
      </Paper>
    </>
  );
}
