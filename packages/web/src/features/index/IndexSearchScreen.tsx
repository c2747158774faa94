import { Paper, Stack } from '@mantine/core';
import { PageHeader } from '../../components/PageHeader';
import { IndexSearchPanel } from './IndexSearchPanel';

/** Index Search (spec 002 §2): similarity search straight on the vector index, k 10 by default. */
export function IndexSearchScreen() {
  return (
    <Stack gap="lg">
      <PageHeader
        title="Index Search"
        description="Nearest snippets to a query by vector similarity."
      />
      <Paper withBorder radius="md" p="md">
        <IndexSearchPanel />
      </Paper>
    </Stack>
  );
}
