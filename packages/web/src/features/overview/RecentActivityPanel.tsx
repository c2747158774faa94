import { Link } from 'react-router';
import { Anchor, Badge, Group, Paper, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import {
  IconAlertTriangle,
  IconCircleCheck,
  IconCircleX,
  IconInfoCircle,
} from '@tabler/icons-react';
import { RECENT_ACTIVITY_DEFAULT_LIMIT, type ActivityItem } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { ErrorState, LoadingState } from '../../components/QueryState';
import { OVERVIEW_MESSAGES as M } from './messages';
import { useRecentActivity } from './overview.api';
import { DateTime } from '../../components/DateTime';

/** The console's colour and icon for each level the server gives an activity item. */
const LEVEL_STYLE = {
  success: { color: 'teal', icon: IconCircleCheck },
  info: { color: 'blue', icon: IconInfoCircle },
  warning: { color: 'yellow', icon: IconAlertTriangle },
  error: { color: 'red', icon: IconCircleX },
} as const satisfies Record<ActivityItem['level'], unknown>;

const KIND_LABELS: Record<ActivityItem['kind'], string> = {
  job_created: 'job',
  job_completed: 'job',
  job_failed: 'job',
  job_cancelled: 'job',
  snippets_deleted: 'snippets',
  maintenance: 'maintenance',
  backup: 'backup',
  restore: 'restore',
  login: 'login',
  settings: 'settings',
  sync: 'sync',
  quality_alert: 'search quality',
};

function ActivityRow({ item }: { item: ActivityItem }) {
  const style = LEVEL_STYLE[item.level];
  const Icon = style.icon;
  return (
    <Group
      gap="sm"
      wrap="nowrap"
      align="flex-start"
      py={6}
      data-level={item.level}
      aria-label={`${item.level}: ${item.message}`}
      role="listitem"
    >
      <ThemeIcon size={26} radius="xl" variant="light" color={style.color}>
        <Icon size={16} />
      </ThemeIcon>
      <Stack gap={2} miw={0} style={{ flex: 1 }}>
        <Text size="sm" c={item.level === 'error' ? 'red.4' : undefined} lineClamp={2}>
          {item.message}
        </Text>
        <Group gap="xs">
          <Text size="xs" c="dimmed" className="tabular-nums">
            <DateTime value={item.created_at} />
          </Text>
          <Badge size="xs" variant="light" color={style.color}>
            {KIND_LABELS[item.kind]}
          </Badge>
          {item.job_id !== null ? (
            <>
              <Tooltip label="Open the job queue" withArrow>
                <Anchor component={Link} to={tabHref('sources-queue')} size="xs">
                  Job #{item.job_id}
                </Anchor>
              </Tooltip>
              <Anchor
                component={Link}
                to={tabHref('sources-snippets', { job_id: item.job_id })}
                size="xs"
              >
                Snippets
              </Anchor>
            </>
          ) : null}
        </Group>
      </Stack>
    </Group>
  );
}

/** The last events of the platform (jobs, deletions, maintenance, backups, logins), newest first. */
export function RecentActivityPanel({ limit = RECENT_ACTIVITY_DEFAULT_LIMIT }: { limit?: number }) {
  const activity = useRecentActivity(limit);
  return (
    <Paper withBorder radius="md" p="md" h="100%">
      <Stack gap={2} mb="sm">
        <Title order={4}>{M.activityTitle}</Title>
        <Text size="xs" c="dimmed">
          The last {limit} events, newest first
        </Text>
      </Stack>
      {activity.isError ? (
        <ErrorState message={activity.error.message} onRetry={() => void activity.refetch()} />
      ) : activity.isPending ? (
        <LoadingState rows={6} label="Loading recent activity" />
      ) : activity.data.items.length === 0 ? (
        <Text size="sm" c="dimmed">
          {M.activityEmpty}
        </Text>
      ) : (
        <Stack gap={0} role="list" aria-label={M.activityTitle}>
          {activity.data.items.map((item) => (
            <ActivityRow key={item.id} item={item} />
          ))}
        </Stack>
      )}
    </Paper>
  );
}
