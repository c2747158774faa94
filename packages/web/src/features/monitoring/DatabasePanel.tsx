import { SimpleGrid, Stack, Text } from '@mantine/core';
import { IconBolt, IconDatabase, IconVectorTriangle } from '@tabler/icons-react';
import type { DatabaseMetrics } from '@adam/contracts';
import { LoadingPanel } from '../../components/QueryState';
import { RatioBar } from '../../components/RatioBar';
import { formatNumber, formatPercent } from '../../lib/format';
import { ErrorLine, FigureList, MonitoringCard } from './MonitoringCard';
import { MONITORING_MESSAGES as M } from './messages';
import { withUnit } from './monitoringRules';

/** A 0–1 ratio as a percentage; `-` when unknown. */
const ratio = (value: number | null) => formatPercent(value === null ? null : value * 100);

const sizeCaption = (size: number | null, max: number | null) =>
  `${formatNumber(size, 1)} / ${withUnit(max, 'MB', 0)}`;

function RedisCard({ redis }: { redis: DatabaseMetrics['redis'] }) {
  if (!redis) {
    return (
      <MonitoringCard title="Redis" subtitle={M.redisNotConfigured} icon={<IconBolt size={18} />}>
        <Text size="sm" c="dimmed">
          {M.redisNotConfiguredHint}
        </Text>
      </MonitoringCard>
    );
  }
  return (
    <MonitoringCard title="Redis" subtitle={redis.engine} icon={<IconBolt size={18} />}>
      <RatioBar
        label="Memory"
        value={redis.memory_usage_mb}
        total={redis.max_memory_mb}
        caption={sizeCaption(redis.memory_usage_mb, redis.max_memory_mb)}
      />
      <FigureList
        rows={[
          ['Connections', formatNumber(redis.connections)],
          ['Ops/s', formatNumber(redis.ops_per_sec, 1)],
          ['Hit rate', ratio(redis.hit_rate)],
          ['Evicted keys', formatNumber(redis.evicted_keys)],
          ['Expired keys', formatNumber(redis.expired_keys)],
        ]}
      />
    </MonitoringCard>
  );
}

function FaissCard({ faiss }: { faiss: DatabaseMetrics['faiss'] }) {
  return (
    <MonitoringCard title="FAISS" subtitle={faiss.engine} icon={<IconVectorTriangle size={18} />}>
      <RatioBar
        label="Index size"
        value={faiss.index_size_mb}
        total={faiss.max_size_mb}
        caption={sizeCaption(faiss.index_size_mb, faiss.max_size_mb)}
      />
      <FigureList
        rows={[
          ['Vectors', formatNumber(faiss.total_vectors)],
          ['Searches/s', formatNumber(faiss.searches_per_sec, 2)],
          ['Build time', withUnit(faiss.build_time, 's', 1)],
          ['Dimensions', formatNumber(faiss.dimensions)],
          ['Accuracy (recall@10)', ratio(faiss.accuracy)],
        ]}
      />
    </MonitoringCard>
  );
}

function LmdbCard({ lmdb }: { lmdb: DatabaseMetrics['lmdb'] }) {
  return (
    <MonitoringCard title="LMDB" subtitle={lmdb.engine} icon={<IconDatabase size={18} />}>
      <RatioBar
        label="Size"
        value={lmdb.size_mb}
        total={lmdb.max_size_mb}
        caption={sizeCaption(lmdb.size_mb, lmdb.max_size_mb)}
      />
      <FigureList
        rows={[
          ['Entries', formatNumber(lmdb.entries)],
          ['Read latency', withUnit(lmdb.read_latency, 'ms', 2)],
          ['Write latency', withUnit(lmdb.write_latency, 'ms', 2)],
          ['Transactions', formatNumber(lmdb.transactions)],
          [
            'Disk per text byte',
            lmdb.compression === null ? '-' : `${formatNumber(lmdb.compression, 2)}×`,
            'Bytes the snippets table takes on disk for each byte of snippet text: a row also holds its embedding vector (4 bytes a dimension), hash and metadata, so several times the text is normal; space freed in its pages by deletions counts until a vacuum.',
          ],
        ]}
      />
    </MonitoringCard>
  );
}

export interface DatabaseQuery {
  data: DatabaseMetrics | undefined;
  isError: boolean;
}

/**
 * The spec's three stores under their names; each card's subtitle is the real engine behind it
 * (the job queue's Redis, the vector index, the SQLite store).
 */
export function DatabasePanel({ database }: { database: DatabaseQuery }) {
  const d = database.data;
  return (
    <Stack gap="sm" component="section" aria-label="Databases">
      <Text fw={700} size="lg">
        Databases
      </Text>
      {database.isError ? <ErrorLine>{M.databaseError}</ErrorLine> : null}
      {d ? (
        <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
          <RedisCard redis={d.redis} />
          <FaissCard faiss={d.faiss} />
          <LmdbCard lmdb={d.lmdb} />
        </SimpleGrid>
      ) : database.isError ? null : (
        <LoadingPanel />
      )}
    </Stack>
  );
}
