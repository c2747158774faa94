import { useState, type FormEvent } from 'react';
import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Tooltip,
} from '@mantine/core';
import { IconKey, IconTrash, IconUserOff, IconUserCheck, IconUserPlus } from '@tabler/icons-react';
import { CreateUser, ROLES, type CreatedUser, type Role, type UserAccount } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { confirmAction } from '../../components/ConfirmDialog';
import { OneTimeSecret } from '../../components/OneTimeSecret';
import { PageHeader } from '../../components/PageHeader';
import { QueryTable } from '../../components/QueryTable';
import { toast } from '../../layout/toasts';
import { useSession } from '../../session/useSession';
import { UserAccessModal } from './UserAccessModal';
import { useCreateUser, useDeleteUser, useUpdateUser, useUsers } from './users.api';
import { DateTime } from '../../components/DateTime';

const ROLE_LABELS: Record<Role, string> = {
  administrator: 'Administrator',
  operator: 'Operator',
  viewer: 'Viewer',
};
const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }));

const reason = (error: unknown) => (isApiError(error) ? error.message : 'Unexpected error');

function StatusBadge({ user }: { user: UserAccount }) {
  if (user.disabled_at) return <Badge color="gray">Disabled</Badge>;
  if (user.must_change_password) return <Badge color="yellow">Must change password</Badge>;
  return <Badge color="teal">Active</Badge>;
}

interface FormErrors {
  email?: string;
  name?: string;
}

/** The create form, then the one-time password, shown once. */
function CreateUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const create = useCreateUser();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [errors, setErrors] = useState<FormErrors>({});
  const [created, setCreated] = useState<CreatedUser | null>(null);

  const close = () => {
    // The password is gone once the dialog closes: it is never fetched again.
    setCreated(null);
    setEmail('');
    setName('');
    setRole('viewer');
    setErrors({});
    onClose();
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = CreateUser.safeParse({ email, name, role });
    if (!parsed.success) {
      const found: FormErrors = {};
      for (const issue of parsed.error.issues) {
        if (issue.path[0] === 'email') found.email ??= `Email ${issue.message}`;
        if (issue.path[0] === 'name') found.name ??= `Name ${issue.message}`;
      }
      setErrors(found);
      return;
    }
    setErrors({});
    create.mutate(parsed.data, {
      onSuccess: (answer) => setCreated(answer),
      onError: (error) => {
        if (isApiError(error) && error.fieldErrors.length > 0) {
          setErrors({ email: error.fieldError('email'), name: error.fieldError('name') });
        }
        toast.error(`Could not create the user: ${reason(error)}`);
      },
    });
  };

  return (
    <Modal
      opened={opened}
      onClose={close}
      title={created ? 'User created' : 'Add user'}
      centered
      closeOnClickOutside={!created}
    >
      {created ? (
        <Stack gap="md">
          <OneTimeSecret
            label="One-time password"
            value={created.one_time_password}
            warning={
              <>
                This one-time password is shown only now. Copy it and give it to{' '}
                {created.user.email} through a safe channel; they must change it at first login.
              </>
            }
          />
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Add user">
          <Stack gap="sm">
            <TextInput
              label="Email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={errors.email}
            />
            <TextInput
              label="Name"
              required
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
              error={errors.name}
            />
            <Select
              label="Role"
              data={ROLE_OPTIONS}
              value={role}
              onChange={(value) => value && setRole(value as Role)}
              allowDeselect={false}
            />
            <Group justify="flex-end" mt="xs">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending}>
                Create user
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}

/** The destructive changes of a user, each asked before it is made. */
const CONFIRMS = {
  disable: {
    title: 'Disable user',
    message: (email: string) => `Disable ${email}? Their sessions and keys stop working at once.`,
    confirmLabel: 'Disable',
  },
  delete: {
    title: 'Delete user',
    message: (email: string) => `Delete ${email}? This cannot be undone.`,
    confirmLabel: 'Delete',
  },
} as const;

function confirmUserChange(kind: keyof typeof CONFIRMS, user: UserAccount, onConfirm: () => void) {
  const { title, message, confirmLabel } = CONFIRMS[kind];
  confirmAction({ title, message: message(user.email), confirmLabel, danger: true, onConfirm });
}

/** The toasts of a user change: what was done, or what failed and why. */
const outcome = (success: string, failure: string) => ({
  onSuccess: () => toast.success(success),
  onError: (error: unknown) => toast.error(`${failure}: ${reason(error)}`),
});

function UserRow({
  user,
  isSelf,
  onShowAccess,
}: {
  user: UserAccount;
  isSelf: boolean;
  onShowAccess: (user: UserAccount) => void;
}) {
  const update = useUpdateUser();
  const remove = useDeleteUser();
  const busy = update.isPending || remove.isPending;

  const changeRole = (role: Role) =>
    update.mutate(
      { id: user.id, change: { role } },
      outcome(
        `${user.email} is now ${ROLE_LABELS[role].toLowerCase()}`,
        'Could not change the role',
      ),
    );

  const setDisabled = (disabled: boolean) =>
    update.mutate(
      { id: user.id, change: { disabled } },
      outcome(
        `${user.email} ${disabled ? 'disabled' : 'enabled'}`,
        `Could not ${disabled ? 'disable' : 'enable'} the user`,
      ),
    );

  const askDisable = () => confirmUserChange('disable', user, () => setDisabled(true));
  const askDelete = () =>
    confirmUserChange('delete', user, () =>
      remove.mutate(user.id, outcome(`${user.email} deleted`, 'Could not delete the user')),
    );

  return (
    <Table.Tr data-user={user.email}>
      <Table.Td>
        <Text size="sm" fw={500}>
          {user.email}
          {isSelf ? (
            <Text span c="dimmed" size="xs">
              {' '}
              (you)
            </Text>
          ) : null}
        </Text>
      </Table.Td>
      <Table.Td>{user.name}</Table.Td>
      <Table.Td>
        <Select
          size="xs"
          w={150}
          data={ROLE_OPTIONS}
          value={user.role}
          onChange={(value) => value && value !== user.role && changeRole(value as Role)}
          allowDeselect={false}
          disabled={busy}
          aria-label={`Role of ${user.email}`}
        />
      </Table.Td>
      <Table.Td>
        {user.totp_enabled ? <Badge color="teal">On</Badge> : <Badge color="gray">Off</Badge>}
      </Table.Td>
      <Table.Td>
        <StatusBadge user={user} />
      </Table.Td>
      <Table.Td>
        <DateTime value={user.created_at} />
      </Table.Td>
      <Table.Td>
        <Group gap={4} wrap="nowrap" justify="flex-end">
          <Tooltip label="Sessions and API keys">
            <ActionIcon
              variant="subtle"
              color="gray"
              onClick={() => onShowAccess(user)}
              aria-label={`Sessions and API keys of ${user.email}`}
            >
              <IconKey size={18} />
            </ActionIcon>
          </Tooltip>
          {user.disabled_at ? (
            <Tooltip label="Enable">
              <ActionIcon
                variant="subtle"
                onClick={() => setDisabled(false)}
                disabled={busy}
                aria-label={`Enable ${user.email}`}
              >
                <IconUserCheck size={18} />
              </ActionIcon>
            </Tooltip>
          ) : (
            <Tooltip label="Disable">
              <ActionIcon
                variant="subtle"
                color="orange"
                onClick={askDisable}
                disabled={busy}
                aria-label={`Disable ${user.email}`}
              >
                <IconUserOff size={18} />
              </ActionIcon>
            </Tooltip>
          )}
          <Tooltip label="Delete">
            <ActionIcon
              variant="subtle"
              color="red"
              onClick={askDelete}
              disabled={busy}
              aria-label={`Delete ${user.email}`}
            >
              <IconTrash size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

/** Settings → Users (administrator only): who may use ADAM and with which role. */
export function UsersScreen() {
  const users = useUsers();
  const { user: me } = useSession();
  const [creating, setCreating] = useState(false);
  const [showingAccess, setShowingAccess] = useState<UserAccount | null>(null);

  return (
    <>
      <PageHeader
        title="Users"
        description="Administrators do everything; operators run sources, jobs, snippets, the index, maintenance and models; viewers read."
        actions={
          <Button leftSection={<IconUserPlus size={16} />} onClick={() => setCreating(true)}>
            Add user
          </Button>
        }
      />
      <QueryTable
        query={users}
        count={(data) => data.items.length}
        loading={{ rows: 5, label: 'Loading users' }}
        errorTitle="Could not load the users"
        empty={{
          title: 'No users',
          description: 'Add a user to give them their own password, role and 2FA.',
        }}
      >
        {(data) => (
          <Paper withBorder radius="md">
            <Table.ScrollContainer minWidth={900}>
              <Table verticalSpacing="sm" highlightOnHover>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Email</Table.Th>
                    <Table.Th>Name</Table.Th>
                    <Table.Th>Role</Table.Th>
                    <Table.Th>2FA</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Created</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.items.map((user) => (
                    <UserRow
                      key={user.id}
                      user={user}
                      isSelf={user.email === me?.email}
                      onShowAccess={setShowingAccess}
                    />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
        )}
      </QueryTable>
      <UserAccessModal user={showingAccess} onClose={() => setShowingAccess(null)} />
      <CreateUserModal opened={creating} onClose={() => setCreating(false)} />
    </>
  );
}
