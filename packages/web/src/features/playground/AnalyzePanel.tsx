/**
 * The analyse inputs and results the Playground and Playground URL share (spec 001 §2.8, §2.9):
 * context, question, language (Auto plus the playground languages) and Analyze; Top Sentences
 * with scores to 3 decimals and Named Entities as 'text - label'.
 */
import type { FormEvent, ReactNode } from 'react';
import type { AnalyzeResponse } from '@adam/contracts';
import {
  Alert,
  Badge,
  Button,
  Group,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconSearch } from '@tabler/icons-react';
import { entityText, formatScore } from './analysis';
import { PLAYGROUND_MESSAGES } from './messages';
import { usePlaygroundLanguages } from './playground.api';
import { AUTO_LANGUAGE, type Analysis } from './useAnalysis';

function useLanguageOptions() {
  const { data } = usePlaygroundLanguages();
  return [
    { value: AUTO_LANGUAGE, label: 'Auto' },
    ...(data ?? []).map((l) => ({ value: l.code, label: `${l.name} (${l.code})` })),
  ];
}

export function AnalyzeForm({
  analysis,
  contextDescription,
  contextRows = 10,
  children,
}: {
  analysis: Analysis;
  contextDescription?: ReactNode;
  contextRows?: number;
  /** Extra buttons beside Analyze. */
  children?: ReactNode;
}) {
  const languages = useLanguageOptions();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void analysis.analyze();
  };
  return (
    <form onSubmit={submit} noValidate aria-label="Analyze">
      <Stack gap="sm">
        <Textarea
          label="Context"
          description={contextDescription}
          placeholder="Paste the text to analyse."
          rows={contextRows}
          resize="vertical"
          value={analysis.context}
          onChange={(e) => analysis.setContext(e.currentTarget.value)}
          styles={{ input: { fontSize: 'var(--mantine-font-size-sm)' } }}
        />
        <TextInput
          label="Question"
          placeholder="What is the text about?"
          value={analysis.question}
          onChange={(e) => analysis.setQuestion(e.currentTarget.value)}
        />
        <Group align="flex-end" gap="sm" justify="space-between">
          <Select
            label="Language"
            data={languages}
            value={analysis.language}
            onChange={(v) => analysis.setLanguage(v ?? AUTO_LANGUAGE)}
            allowDeselect={false}
            w={200}
          />
          <Group gap="sm">
            {children}
            <Button
              type="submit"
              leftSection={<IconSearch size={16} />}
              disabled={!analysis.ready}
              loading={analysis.busy}
            >
              Analyze
            </Button>
          </Group>
        </Group>
      </Stack>
    </form>
  );
}

/** The answers of an analysis, numbered, with their scores (3 decimals here, 4 on the encyclopedia screen). */
export function TopSentencesTable({
  answers,
  scoreDigits = 3,
}: {
  answers: AnalyzeResponse['answers'];
  scoreDigits?: number;
}) {
  return (
    <Table striped verticalSpacing={6} aria-label="Top sentences">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={36}>#</Table.Th>
          <Table.Th>Sentence</Table.Th>
          <Table.Th w={90} ta="right">
            Score
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {answers.map((a, i) => (
          <Table.Tr key={i}>
            <Table.Td c="dimmed" className="tabular-nums">
              {i + 1}
            </Table.Td>
            <Table.Td>
              <Text size="sm">{a.sentence}</Text>
            </Table.Td>
            <Table.Td ta="right" className="tabular-nums" data-testid="sentence-score">
              {formatScore(a.score, scoreDigits)}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** Named entities as 'text - label' badges. */
export function EntityBadges({ entities }: { entities: AnalyzeResponse['entities'] }) {
  return (
    <Group gap={6} aria-label="Named entities">
      {entities.map((e, i) => (
        <Badge key={i} variant="light" color="grape" tt="none" radius="sm">
          {entityText(e)}
        </Badge>
      ))}
    </Group>
  );
}

export function AnalysisResults({ analysis }: { analysis: Analysis }) {
  const { result, failure } = analysis;
  return (
    <Stack gap="sm" aria-label="Analysis results">
      {failure !== null ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={PLAYGROUND_MESSAGES.analysisFailed}
        >
          {failure || null}
        </Alert>
      ) : null}
      <Group justify="space-between" align="baseline">
        <Title order={5}>Top Sentences</Title>
        {result ? (
          <Text size="xs" c="dimmed">
            Language: {result.language}
          </Text>
        ) : null}
      </Group>
      {!result ? (
        <Text size="sm" c="dimmed">
          The three sentences of the context closest to the question appear here, with their scores.
        </Text>
      ) : result.answers.length === 0 ? (
        <Text size="sm" c="dimmed">
          No sentence matches the question.
        </Text>
      ) : (
        <TopSentencesTable answers={result.answers} />
      )}
      {result && result.entities.length > 0 ? (
        <>
          <Title order={5}>Named Entities</Title>
          <EntityBadges entities={result.entities} />
        </>
      ) : null}
    </Stack>
  );
}
