import { Link } from 'react-router';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Group,
  List,
  Paper,
  Stack,
  Text,
  ThemeIcon,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconChartLine, IconTrendingDown } from '@tabler/icons-react';
import type { EvaluationTrigger, QualityAlert } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { formatNumber } from '../../lib/format';
import { useCan } from '../../session/useCan';
import { useDismissQualityAlert, useOpenQualityAlerts } from './quality-alerts.api';
import { DateTime } from '../../components/DateTime';

/** Lost queries named in the panel; the rest are counted and shown on the Quality screen. */
const SHOWN_LOST = 5;

const TRIGGER_TEXT: Record<EvaluationTrigger, string> = {
  manual: 'a run started by hand',
  rebuild: 'a rebuild of the index',
  model_switch: 'a switch of the embedding model',
  settings: 'a change of the search settings',
  schedule: 'the scheduled run',
};

const MODE_LABEL: Record<string, string> = {
  keyword: 'Keyword',
  vector: 'Vector',
  hybrid: 'Hybrid',
  hybrid_rerank: 'Hybrid + rerank',
};

const score = (n: number) => formatNumber(n, 3);

function AlertRow({ alert, canDismiss }: { alert: QualityAlert; canDismiss: boolean }) {
  const dismiss = useDismissQualityAlert();
  const shown = alert.lost_queries.slice(0, SHOWN_LOST);
  const more = alert.lost_count - shown.length;
  return (
    <Paper
      withBorder
      radius="sm"
      p="sm"
      role="listitem"
      aria-label={`Search quality fell on ${alert.set_name} (${alert.mode})`}
    >
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
        <Stack gap={6} miw={0} style={{ flex: 1 }}>
          <Group gap="xs" wrap="wrap">
            <Text fw={600} size="sm">
              {alert.set_name}
            </Text>
            <Badge size="sm" variant="light" color="gray">
              {MODE_LABEL[alert.mode] ?? alert.mode}
            </Badge>
            <Text size="sm" c="red.4" className="tabular-nums">
              nDCG@10 {score(alert.base_ndcg_10)} → {score(alert.head_ndcg_10)} (−
              {score(alert.fall)})
            </Text>
          </Group>
          <Text size="xs" c="dimmed">
            Run #{alert.run_id} after {TRIGGER_TEXT[alert.trigger]}, against run #
            {alert.base_run_id} · threshold {formatNumber(alert.threshold, 3)} ·{' '}
            <span className="tabular-nums">
              <DateTime value={alert.created_at} />
            </span>
          </Text>
          {alert.lost_count === 0 ? (
            <Text size="sm" c="dimmed">
              No single query fell by more than noise: the mean fell across many.
            </Text>
          ) : (
            <div>
              <Text size="sm">
                {alert.lost_count === 1 ? '1 query lost' : `${alert.lost_count} queries lost`}:
              </Text>
              <List size="sm" spacing={2} mt={2}>
                {shown.map((q) => (
                  <List.Item key={q.key}>
                    <Text span size="sm" lineClamp={1}>
                      “{q.text}”{' '}
                      <Text span size="xs" c="dimmed" className="tabular-nums">
                        {score(q.base_ndcg_10)} → {score(q.head_ndcg_10)}
                      </Text>
                    </Text>
                  </List.Item>
                ))}
              </List>
              {more > 0 ? (
                <Text size="xs" c="dimmed" mt={2}>
                  and {more} more
                </Text>
              ) : null}
            </div>
          )}
        </Stack>
        <Stack gap="xs" align="flex-end" style={{ flexShrink: 0 }}>
          <Button
            component={Link}
            to={tabHref('index-quality', { set: alert.set_id, run: alert.run_id })}
            size="xs"
            variant="light"
            leftSection={<IconChartLine size={14} />}
          >
            Open in Quality
          </Button>
          {canDismiss ? (
            <Tooltip label="Hide this alert; it stays in the run's history" withArrow>
              <Button
                size="xs"
                variant="default"
                loading={dismiss.isPending}
                onClick={() => dismiss.mutate(alert.id)}
              >
                Dismiss
              </Button>
            </Tooltip>
          ) : null}
        </Stack>
      </Group>
    </Paper>
  );
}

/**
 * The evaluation watch's open drop alerts (issue 27): a watched set's nDCG@10 fell beyond the
 * quality settings' threshold. Shown only while there are some (or they cannot be read).
 */
export function QualityAlertsPanel() {
  const alerts = useOpenQualityAlerts();
  const canDismiss = useCan('operator');
  if (alerts.isError) {
    return (
      <Alert color="red" variant="light" title="Search quality alerts could not be loaded">
        <Group gap="sm">
          <Text size="sm">{alerts.error.message}</Text>
          <Anchor component="button" size="sm" onClick={() => void alerts.refetch()}>
            Retry
          </Anchor>
        </Group>
      </Alert>
    );
  }
  const list = alerts.data?.alerts ?? [];
  if (list.length === 0) return null;
  return (
    <Paper withBorder radius="md" p="md" style={{ borderColor: 'var(--mantine-color-red-8)' }}>
      <Group gap="sm" mb="sm" wrap="nowrap">
        <ThemeIcon size={30} radius="xl" variant="light" color="red">
          <IconTrendingDown size={18} />
        </ThemeIcon>
        <div>
          <Title order={4}>Search quality</Title>
          <Text size="xs" c="dimmed">
            Watched evaluation sets whose nDCG@10 fell beyond the drop threshold, newest first
          </Text>
        </div>
      </Group>
      <Stack gap="sm" role="list" aria-label="Search quality alerts">
        {list.map((a) => (
          <AlertRow key={a.id} alert={a} canDismiss={canDismiss} />
        ))}
      </Stack>
    </Paper>
  );
}
