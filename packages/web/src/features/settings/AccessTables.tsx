import { ActionIcon, Badge, Code, Group, Paper, Table, Text, Tooltip } from '@mantine/core';
import { IconLogout, IconTrash } from '@tabler/icons-react';
import type { ApiKey, ApiKeyScope, Session } from '@adam/contracts';
import { formatDate } from '../../lib/format';
import { describeUserAgent } from './userAgent';
import { DateTime } from '../../components/DateTime';

export const SCOPE_LABELS: Record<ApiKeyScope, string> = {
  read: 'Read',
  write: 'Write',
  admin: 'Admin',
};

const SCOPE_COLORS: Record<ApiKeyScope, string> = { read: 'gray', write: 'blue', admin: 'grape' };

export type KeyStatus = 'active' | 'expired' | 'revoked';

function keyStatus(key: ApiKey, now: number = Date.now()): KeyStatus {
  if (key.revoked_at) return 'revoked';
  return Date.parse(key.expires_at) <= now ? 'expired' : 'active';
}

const STATUS_BADGES: Record<KeyStatus, { label: string; color: string }> = {
  active: { label: 'Active', color: 'teal' },
  expired: { label: 'Expired', color: 'yellow' },
  revoked: { label: 'Revoked', color: 'gray' },
};

/** A time and, below it, the address it came from (either may be unknown). */
function WhenFrom({ at, address }: { at: string | null; address: string | null }) {
  if (!at) return <Text size="sm">Never</Text>;
  return (
    <>
      <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
        <DateTime value={at} />
      </Text>
      {address ? (
        <Text size="xs" c="dimmed">
          {address}
        </Text>
      ) : null}
    </>
  );
}

/** API keys with their state; `onRevoke` adds a revoke action to each live key. */
export function ApiKeyTable({
  keys,
  onRevoke,
  busy = false,
}: {
  keys: readonly ApiKey[];
  onRevoke?: (key: ApiKey) => void;
  busy?: boolean;
}) {
  const now = Date.now();
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={900}>
        <Table verticalSpacing="sm" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Scope</Table.Th>
              <Table.Th>Prefix</Table.Th>
              <Table.Th>Created</Table.Th>
              <Table.Th>Expires</Table.Th>
              <Table.Th>Last used</Table.Th>
              <Table.Th>Status</Table.Th>
              {onRevoke ? <Table.Th /> : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {keys.map((key) => {
              const status = keyStatus(key, now);
              return (
                <Table.Tr key={key.id} data-key={key.name}>
                  <Table.Td>
                    <Text size="sm" fw={500}>
                      {key.name}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={SCOPE_COLORS[key.scope]}>
                      {SCOPE_LABELS[key.scope]}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Code>{key.prefix}…</Code>
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <DateTime value={key.created_at} />
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <DateTime value={key.expires_at} />
                  </Table.Td>
                  <Table.Td>
                    <WhenFrom at={key.last_used_at} address={key.last_used_address} />
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={STATUS_BADGES[status].color}>
                      {STATUS_BADGES[status].label}
                    </Badge>
                  </Table.Td>
                  {onRevoke ? (
                    <Table.Td>
                      {status === 'revoked' ? null : (
                        <Group justify="flex-end">
                          <Tooltip label="Revoke">
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              disabled={busy}
                              onClick={() => onRevoke(key)}
                              aria-label={`Revoke ${key.name}`}
                            >
                              <IconTrash size={18} />
                            </ActionIcon>
                          </Tooltip>
                        </Group>
                      )}
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/** Login sessions, the asking one marked; `onRevoke` adds an end action to the others. */
export function SessionTable({
  sessions,
  onRevoke,
  busy = false,
}: {
  sessions: readonly Session[];
  onRevoke?: (session: Session) => void;
  busy?: boolean;
}) {
  return (
    <Paper withBorder radius="md">
      <Table.ScrollContainer minWidth={820}>
        <Table verticalSpacing="sm" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Browser</Table.Th>
              <Table.Th>Address</Table.Th>
              <Table.Th>Signed in</Table.Th>
              <Table.Th>Last seen</Table.Th>
              <Table.Th>Expires</Table.Th>
              {onRevoke ? <Table.Th /> : null}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sessions.map((session) => {
              const browser = describeUserAgent(session.user_agent);
              return (
                <Table.Tr key={session.id} data-session={session.id}>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Tooltip
                        label={session.user_agent ?? 'No user agent was sent'}
                        multiline
                        maw={420}
                      >
                        <Text size="sm" fw={500}>
                          {browser}
                        </Text>
                      </Tooltip>
                      {session.current ? (
                        <Badge variant="light" color="teal">
                          This session
                        </Badge>
                      ) : null}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {session.last_used_address ?? session.created_address ?? '-'}
                    </Text>
                    {session.created_address &&
                    session.last_used_address &&
                    session.created_address !== session.last_used_address ? (
                      <Text size="xs" c="dimmed">
                        signed in from {session.created_address}
                      </Text>
                    ) : null}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <DateTime value={session.created_at} />
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {session.last_used_at ? formatDate(session.last_used_at) : 'Not since'}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <DateTime value={session.expires_at} />
                  </Table.Td>
                  {onRevoke ? (
                    <Table.Td>
                      {session.current ? null : (
                        <Group justify="flex-end">
                          <Tooltip label="Sign out this session">
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              disabled={busy}
                              onClick={() => onRevoke(session)}
                              aria-label={`Sign out ${browser} from ${session.last_used_address ?? session.created_address ?? 'an unknown address'}`}
                            >
                              <IconLogout size={18} />
                            </ActionIcon>
                          </Tooltip>
                        </Group>
                      )}
                    </Table.Td>
                  ) : null}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}
