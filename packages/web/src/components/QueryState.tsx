import type { ReactNode } from 'react';
import {
  Alert,
  Button,
  Center,
  Loader,
  Paper,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
} from '@mantine/core';
import { IconAlertTriangle, IconInbox } from '@tabler/icons-react';

/** Loading state of a list or panel: skeleton rows keep the layout from jumping. */
export function LoadingState({
  rows = 5,
  label = 'Loading...',
}: {
  rows?: number;
  label?: string;
}) {
  return (
    <Stack gap="xs" aria-busy="true" aria-label={label}>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} height={28} radius="sm" />
      ))}
    </Stack>
  );
}

/** Centred spinner for a whole panel. */
export function LoadingPanel({ label = 'Loading...' }: { label?: string }) {
  return (
    <Center mih={160} aria-busy="true" aria-label={label}>
      <Loader />
    </Center>
  );
}

/** Nothing to show yet: what is missing and, when useful, what to do about it. */
export function EmptyState({
  title,
  description,
  action,
}: {
  title: string;
  description?: ReactNode;
  action?: ReactNode;
}) {
  return (
    <Paper withBorder radius="md" p="xl" style={{ borderStyle: 'dashed' }}>
      <Stack align="center" gap={6}>
        <ThemeIcon size={40} radius="xl" variant="light" color="gray">
          <IconInbox size={22} />
        </ThemeIcon>
        <Text fw={600}>{title}</Text>
        {description ? (
          <Text size="sm" c="dimmed" ta="center" maw={460}>
            {description}
          </Text>
        ) : null}
        {action}
      </Stack>
    </Paper>
  );
}

/** A failed load: the message and a retry. */
export function ErrorState({
  title = 'Could not load',
  message,
  onRetry,
}: {
  title?: string;
  message?: ReactNode;
  onRetry?: () => void;
}) {
  return (
    <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title={title}>
      <Stack gap="xs" align="flex-start">
        {message ? <Text size="sm">{message}</Text> : null}
        {onRetry ? (
          <Button size="xs" variant="light" color="red" onClick={onRetry}>
            Retry
          </Button>
        ) : null}
      </Stack>
    </Alert>
  );
}
