import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { tabPath, DEFAULT_TAB_ID } from '../navigation/tabRegistry';

/** An unknown tab under /dashboard. */
export function PageNotFound() {
  return (
    <Center mih="60vh">
      <Stack align="center" gap="sm">
        <Title order={1} c="dimmed" fz={64}>
          404
        </Title>
        <Title order={2}>Page not found</Title>
        <Text c="dimmed">The page you are looking for does not exist.</Text>
        <Button component={Link} to={tabPath(DEFAULT_TAB_ID)} variant="light" mt="sm">
          Back to overview
        </Button>
      </Stack>
    </Center>
  );
}
