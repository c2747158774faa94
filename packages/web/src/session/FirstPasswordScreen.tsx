import { useState, type FormEvent } from 'react';
import {
  Alert,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { IconKey, IconLogout } from '@tabler/icons-react';
import { ChangePasswordRequest } from '@adam/contracts';
import { isApiError } from '../api/client';
import { toast } from '../layout/toasts';
import { useChangePassword } from './auth.api';
import { useSession } from './useSession';

interface Errors {
  current?: string;
  next?: string;
  confirm?: string;
}

/**
 * Shown instead of the dashboard while the user still has the one-time password an administrator
 * gave them: the server refuses every other call (403) until it is changed.
 */
export function FirstPasswordScreen() {
  const { user, updateUser, logout } = useSession();
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<Errors>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ChangePasswordRequest.safeParse({
      current_password: current,
      new_password: next,
    });
    const found: Errors = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.path[0] === 'current_password')
          found.current ??= `One-time password ${issue.message}`;
        else found.next ??= `New password ${issue.message}`;
      }
    }
    if (!found.next && next !== confirm) found.confirm = 'Passwords do not match';
    setErrors(found);
    if (Object.keys(found).length > 0 || !parsed.success) return;

    change.mutate(parsed.data, {
      onSuccess: () => {
        if (user) updateUser({ ...user, must_change_password: false });
        toast.success('Password changed');
      },
      onError: (error) => {
        if (!isApiError(error)) return;
        if (error.status === 401) setErrors({ current: error.message });
        else
          setErrors({
            current: error.fieldError('current_password'),
            next: error.fieldError('new_password') ?? error.message,
          });
      },
    });
  };

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="xl" radius="lg" p={36} w="100%" maw={460}>
        <form onSubmit={submit} noValidate aria-label="Choose your password">
          <Stack gap="md">
            <Title order={2}>Choose your password</Title>
            <Alert color="yellow" variant="light">
              {user?.email ?? 'This account'} was given a one-time password. Choose your own to
              continue; nothing else works until you do.
            </Alert>
            <PasswordInput
              label="One-time Password"
              autoComplete="current-password"
              value={current}
              onChange={(e) => setCurrent(e.currentTarget.value)}
              error={errors.current}
            />
            <PasswordInput
              label="New Password"
              description="At least 8 characters."
              autoComplete="new-password"
              value={next}
              onChange={(e) => setNext(e.currentTarget.value)}
              error={errors.next}
            />
            <PasswordInput
              label="Confirm New Password"
              autoComplete="new-password"
              value={confirm}
              onChange={(e) => setConfirm(e.currentTarget.value)}
              error={errors.confirm}
            />
            <Group justify="space-between">
              <Button
                variant="subtle"
                color="gray"
                leftSection={<IconLogout size={16} />}
                onClick={() => void logout()}
              >
                Log out
              </Button>
              <Button type="submit" loading={change.isPending} leftSection={<IconKey size={16} />}>
                Change Password
              </Button>
            </Group>
            <Text size="xs" c="dimmed">
              Your other sessions end when the password changes.
            </Text>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
