import { Link } from 'react-router';
import { Anchor, Group, Paper, Skeleton, Stack, Text } from '@mantine/core';
import { tabHref } from '../../navigation/tabRegistry';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { useIndexStats } from './index.api';
import { IndexSearchPanel } from './IndexSearchPanel';

/**
 * What the screen shows before the first search: what is searched and how, or, when the index
 * holds nothing yet, where snippets come from.
 */
function BeforeFirstSearch() {
  const stats = useIndexStats();
  if (stats.isPending) return <Skeleton height={96} radius="md" />;
  const s = stats.data;
  if (s && s.total_vectors === 0) {
    return (
      <EmptyState
        title="The index is empty"
        description="Searches have nothing to find until snippets are added and indexed."
        action={
          <Anchor component={Link} to={tabHref('sources-add')} size="sm">
            Add sources
          </Anchor>
        }
      />
    );
  }
  return (
    <EmptyState
      title="Search the index"
      description={
        <Stack gap={4} align="center">
          <span>
            Type a question or a few words. Hybrid ranks by meaning and by the words together;
            Vector by meaning only; Keyword by the words only.
          </span>
          {s ? (
            <Group gap="md" justify="center" className="tabular-nums">
              <Text span size="sm">
                {formatNumber(s.total_vectors)} vectors
              </Text>
              <Text span size="sm">
                embedder {s.embedder}
              </Text>
              <Text span size="sm">
                {s.index_type}, {s.storage}
              </Text>
            </Group>
          ) : null}
        </Stack>
      }
    />
  );
}

/** Index Search (spec 002 §2): similarity search straight on the vector index, k 10 by default. */
export function IndexSearchScreen() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="Index Search"
        description="Nearest snippets to a query by vector similarity."
      />
      <Paper withBorder radius="md" p="md">
        <IndexSearchPanel beforeFirstSearch={<BeforeFirstSearch />} />
      </Paper>
    </Stack>
  );
}
