import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import type { Role } from '@adam/contracts';
import { tabPath, DEFAULT_TAB_ID } from '../navigation/tabRegistry';

/** A tab the user's role may not open (its menu entry is hidden; this is for a typed URL). */
export function RoleRequired({ needed, held }: { needed: Role; held: Role }) {
  return (
    <Center mih="60vh">
      <Stack align="center" gap="sm">
        <Title order={2}>This page needs the {needed} role</Title>
        <Text c="dimmed">
          You are signed in as {held === 'administrator' ? 'an' : 'a'} {held}. Ask an administrator
          if you need access.
        </Text>
        <Button component={Link} to={tabPath(DEFAULT_TAB_ID)} variant="light" mt="sm">
          Back to overview
        </Button>
      </Stack>
    </Center>
  );
}
