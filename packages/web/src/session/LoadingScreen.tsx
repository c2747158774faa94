import { Center, Loader, Stack, Text } from '@mantine/core';

/** Shown while the start-up session check runs. */
export function LoadingScreen() {
  return (
    <Center h="100vh">
      <Stack align="center" gap="sm">
        <Loader />
        <Text c="dimmed">Loading...</Text>
      </Stack>
    </Center>
  );
}
