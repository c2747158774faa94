import { Alert, Button, Center, Paper, Text, Title } from '@mantine/core';
import { IconLogout } from '@tabler/icons-react';
import { PasswordChangeForm } from './PasswordChangeForm';
import { useSession } from './useSession';

/**
 * Shown instead of the dashboard while the user still has the one-time password an administrator
 * gave them: the server refuses every other call (403) until it is changed.
 */
export function FirstPasswordScreen() {
  const { user, updateUser, logout } = useSession();
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="xl" radius="lg" p={36} w="100%" maw={460}>
        <PasswordChangeForm
          ariaLabel="Choose your password"
          currentLabel="One-time Password"
          currentName="One-time password"
          newDescription="At least 8 characters."
          gap="md"
          onChanged={() => {
            if (user) updateUser({ ...user, must_change_password: false });
          }}
          header={
            <>
              <Title order={2}>Choose your password</Title>
              <Alert color="yellow" variant="light">
                {user?.email ?? 'This account'} was given a one-time password. Choose your own to
                continue; nothing else works until you do.
              </Alert>
            </>
          }
          secondaryAction={
            <Button
              variant="subtle"
              color="gray"
              leftSection={<IconLogout size={16} />}
              onClick={() => void logout()}
            >
              Log out
            </Button>
          }
          footer={
            <Text size="xs" c="dimmed">
              Your other sessions end when the password changes.
            </Text>
          }
        />
      </Paper>
    </Center>
  );
}
