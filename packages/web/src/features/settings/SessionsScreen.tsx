import { Button } from '@mantine/core';
import { IconLogout } from '@tabler/icons-react';
import type { Session } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { QueryTable } from '../../components/QueryTable';
import { toast } from '../../layout/toasts';
import { SessionTable } from './AccessTables';
import { useOwnSessions, useRevokeOtherSessions, useRevokeOwnSession } from './access.api';
import { describeUserAgent } from './userAgent';

const reason = (error: unknown) => (isApiError(error) ? error.message : 'Unexpected error');

/** Settings → Sessions: where the signed-in user is logged in, and signing the others out. */
export function SessionsScreen() {
  const sessions = useOwnSessions();
  const revokeOne = useRevokeOwnSession();
  const revokeOthers = useRevokeOtherSessions();
  const others = sessions.data?.items.filter((session) => !session.current).length ?? 0;

  const askRevoke = (session: Session) =>
    confirmAction({
      title: 'Sign out session',
      message: `Sign out ${describeUserAgent(session.user_agent)} from ${session.last_used_address ?? session.created_address ?? 'an unknown address'}? It must log in again.`,
      confirmLabel: 'Sign out',
      danger: true,
      onConfirm: () =>
        revokeOne.mutate(session.id, {
          onSuccess: () => toast.success('Session signed out'),
          onError: (error) => toast.error(`Could not sign out the session: ${reason(error)}`),
        }),
    });

  const askRevokeOthers = () =>
    confirmAction({
      title: 'Sign out all other sessions',
      message: `Sign out ${others === 1 ? 'the other session' : `all ${others} other sessions`}? This browser stays signed in.`,
      confirmLabel: 'Sign out others',
      danger: true,
      onConfirm: () =>
        revokeOthers.mutate(undefined, {
          onSuccess: ({ revoked }) =>
            toast.success(
              revoked === 1 ? '1 session signed out' : `${revoked} sessions signed out`,
            ),
          onError: (error) => toast.error(`Could not sign out the sessions: ${reason(error)}`),
        }),
    });

  return (
    <>
      <PageHeader
        title="Sessions"
        description="Where you are logged in. Sign out a browser you no longer use or do not recognise."
        actions={
          <Button
            color="red"
            variant="light"
            leftSection={<IconLogout size={16} />}
            disabled={others === 0}
            loading={revokeOthers.isPending}
            onClick={askRevokeOthers}
          >
            Sign out all other sessions
          </Button>
        }
      />
      <QueryTable
        query={sessions}
        count={(data) => data.items.length}
        loading={{ rows: 3, label: 'Loading sessions' }}
        errorTitle="Could not load the sessions"
        empty={{
          title: 'No sessions',
          description: 'Logins from a browser appear here; API keys are listed under API keys.',
        }}
      >
        {(data) => (
          <SessionTable
            sessions={data.items}
            onRevoke={askRevoke}
            busy={revokeOne.isPending || revokeOthers.isPending}
          />
        )}
      </QueryTable>
    </>
  );
}
