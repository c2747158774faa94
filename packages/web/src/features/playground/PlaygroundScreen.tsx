import { Grid, Paper, Stack, Title } from '@mantine/core';
import { PageHeader } from '../../components/PageHeader';
import { AnalysisResults, AnalyzeForm } from './AnalyzePanel';
import { ModelWarningBanner } from './ModelWarningBanner';
import { useAnalysis } from './useAnalysis';

/**
 * Playground (spec 001 §2.8): analyse a pasted context against a question; the three closest
 * sentences with their scores, the named entities, and the latest model warning.
 */
export function PlaygroundScreen() {
  const analysis = useAnalysis();
  return (
    <Stack gap="lg">
      <PageHeader
        title="Playground"
        description="Paste a text and ask a question: the sentences that answer it best and the named entities of the text."
      />
      <ModelWarningBanner />
      <Grid gap="lg" align="stretch">
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Paper withBorder radius="md" p="md" h="100%">
            <Stack gap="sm">
              <Title order={4}>Input</Title>
              <AnalyzeForm analysis={analysis} contextRows={14} />
            </Stack>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Paper withBorder radius="md" p="md" h="100%">
            <AnalysisResults analysis={analysis} />
          </Paper>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
