import { Button, Group, Modal, Stack, Tabs, Text } from '@mantine/core';
import { IconKey, IconLogout, IconDeviceDesktop } from '@tabler/icons-react';
import type { ApiKey, Session, UserAccount } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { confirmAction } from '../../components/ConfirmDialog';
import { QueryTable } from '../../components/QueryTable';
import { toast } from '../../layout/toasts';
import { ApiKeyTable, SessionTable } from './AccessTables';
import { describeUserAgent } from './userAgent';
import {
  useRevokeUserApiKey,
  useRevokeUserSession,
  useRevokeUserSessions,
  useUserApiKeys,
  useUserSessions,
} from './access.api';

const reason = (error: unknown) => (isApiError(error) ? error.message : 'Unexpected error');

function UserSessions({ user }: { user: UserAccount }) {
  const sessions = useUserSessions(user.id);
  const revokeAll = useRevokeUserSessions();
  const revokeOne = useRevokeUserSession();
  const count = sessions.data?.items.length ?? 0;
  // The server ends every session of the user, the asking one too when it is theirs.
  const includesMine = sessions.data?.items.some((session) => session.current) ?? false;

  const askRevokeAll = () =>
    confirmAction({
      title: 'Sign out everywhere',
      message: `Sign ${user.email} out of all ${count === 1 ? 'one session' : `${count} sessions`}? They must log in again; their API keys keep working.${includesMine ? ' This includes your own session: you will be logged out.' : ''}`,
      confirmLabel: 'Sign out',
      danger: true,
      onConfirm: () =>
        revokeAll.mutate(user.id, {
          onSuccess: ({ revoked }) =>
            toast.success(
              `${user.email}: ${revoked === 1 ? '1 session' : `${revoked} sessions`} signed out`,
            ),
          onError: (error) => toast.error(`Could not sign out the sessions: ${reason(error)}`),
        }),
    });

  const askRevoke = (session: Session) =>
    confirmAction({
      title: 'Sign out session',
      message: `Sign ${user.email} out of ${describeUserAgent(session.user_agent)} from ${session.last_used_address ?? session.created_address ?? 'an unknown address'}? That browser must log in again.`,
      confirmLabel: 'Sign out',
      danger: true,
      onConfirm: () =>
        revokeOne.mutate(
          { userId: user.id, sessionId: session.id },
          {
            onSuccess: () => toast.success(`${user.email}: session signed out`),
            onError: (error) => toast.error(`Could not sign out the session: ${reason(error)}`),
          },
        ),
    });

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          Where {user.email} is logged in. Sign out one browser, or every session at once.
        </Text>
        <Button
          size="xs"
          color="red"
          variant="light"
          leftSection={<IconLogout size={14} />}
          disabled={count === 0}
          loading={revokeAll.isPending}
          onClick={askRevokeAll}
        >
          Sign out all sessions
        </Button>
      </Group>
      <QueryTable
        query={sessions}
        count={(data) => data.items.length}
        loading={{ rows: 3, label: `Loading the sessions of ${user.email}` }}
        errorTitle="Could not load the sessions"
        empty={{ title: 'No sessions', description: `${user.email} is not logged in anywhere.` }}
      >
        {(data) => (
          <SessionTable
            sessions={data.items}
            onRevoke={askRevoke}
            busy={revokeOne.isPending || revokeAll.isPending}
          />
        )}
      </QueryTable>
    </Stack>
  );
}

function UserApiKeys({ user }: { user: UserAccount }) {
  const keys = useUserApiKeys(user.id);
  const revoke = useRevokeUserApiKey();

  const askRevoke = (key: ApiKey) =>
    confirmAction({
      title: 'Revoke API key',
      message: `Revoke “${key.name}” (${key.prefix}…) of ${user.email}? Programs using it are refused at once and its open connections close.`,
      confirmLabel: 'Revoke',
      danger: true,
      onConfirm: () =>
        revoke.mutate(
          { userId: user.id, keyId: key.id },
          {
            onSuccess: () => toast.success(`API key “${key.name}” of ${user.email} revoked`),
            onError: (error) => toast.error(`Could not revoke the API key: ${reason(error)}`),
          },
        ),
    });

  return (
    <QueryTable
      query={keys}
      count={(data) => data.items.length}
      loading={{ rows: 3, label: `Loading the API keys of ${user.email}` }}
      errorTitle="Could not load the API keys"
      empty={{ title: 'No API keys', description: `${user.email} has created no API key.` }}
    >
      {(data) => <ApiKeyTable keys={data.items} onRevoke={askRevoke} busy={revoke.isPending} />}
    </QueryTable>
  );
}

/** An administrator's view of one user's sessions and API keys, each revocable. */
export function UserAccessModal({
  user,
  onClose,
}: {
  user: UserAccount | null;
  onClose: () => void;
}) {
  return (
    <Modal
      opened={user !== null}
      onClose={onClose}
      title={user ? `Sessions and API keys of ${user.email}` : ''}
      size="80rem"
      centered
    >
      {user ? (
        <Tabs defaultValue="sessions" keepMounted={false}>
          <Tabs.List mb="md">
            <Tabs.Tab value="sessions" leftSection={<IconDeviceDesktop size={16} />}>
              Sessions
            </Tabs.Tab>
            <Tabs.Tab value="keys" leftSection={<IconKey size={16} />}>
              API keys
            </Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="sessions">
            <UserSessions user={user} />
          </Tabs.Panel>
          <Tabs.Panel value="keys">
            <UserApiKeys user={user} />
          </Tabs.Panel>
        </Tabs>
      ) : null}
    </Modal>
  );
}
