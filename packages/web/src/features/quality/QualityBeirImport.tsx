/** Importing a set from the BEIR file layout, and the summary the server answers. */
import { useState } from 'react';
import { Link } from 'react-router';
import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Code,
  FileInput,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import { IconFileImport } from '@tabler/icons-react';
import { MAX_BEIR_FILE_BYTES, type BeirImportSummary } from '@adam/contracts';
import { tabPath } from '../../navigation/tabRegistry';
import { formatBytes, formatNumber } from '../../lib/format';
import { useBeirImport } from './quality.api';

function Count({ label, value }: { label: string; value: number }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} className="tabular-nums">
        {formatNumber(value)}
      </Text>
    </Stack>
  );
}

function BeirSummary({ summary }: { summary: BeirImportSummary }) {
  const { mapped, unmapped, corpus } = summary;
  return (
    <Stack gap="sm" aria-label="Import summary">
      <Alert color="teal" variant="light" title={`Set “${summary.set.name}” created`}>
        <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="xs">
          <Count label="Queries" value={summary.queries} />
          <Count label="Judgments" value={summary.judgments} />
          <Count label="Queries left out (no judgment)" value={summary.queries_without_judgments} />
        </SimpleGrid>
      </Alert>
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Corpus ids matched
        </Text>
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="xs">
          <Count label="To snippet ids" value={mapped.snippet} />
          <Count label="To source ids" value={mapped.source} />
          <Count label="To source URLs" value={mapped.source_url} />
          <Count label="To source titles" value={mapped.source_title} />
        </SimpleGrid>
      </Stack>
      {unmapped.count > 0 ? (
        <Alert
          color="yellow"
          variant="light"
          title={`${formatNumber(unmapped.count)} unmapped id(s)`}
        >
          <Stack gap={4}>
            <Text size="sm">
              No snippet or source matched these corpus ids: their judgments count as relevant
              results the search cannot find until the documents are imported.
            </Text>
            <Text size="xs" style={{ wordBreak: 'break-all' }} data-testid="unmapped-ids">
              {unmapped.ids.join(', ')}
              {unmapped.count > unmapped.ids.length
                ? ` … and ${formatNumber(unmapped.count - unmapped.ids.length)} more`
                : ''}
            </Text>
          </Stack>
        </Alert>
      ) : null}
      {corpus ? (
        <Text size="sm">
          The corpus ({formatNumber(corpus.records)} records) is being imported as snippets by{' '}
          <Anchor component={Link} to={`${tabPath('sources-queue')}?job=${corpus.job_id}`}>
            job #{corpus.job_id}
          </Anchor>
          . Judgments by title or URL match its documents once it is done.
        </Text>
      ) : null}
    </Stack>
  );
}

function ImportForm({
  onDone,
  onCancel,
}: {
  onDone: (summary: BeirImportSummary) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [queries, setQueries] = useState<File | null>(null);
  const [qrels, setQrels] = useState<File[]>([]);
  const [corpus, setCorpus] = useState<File | null>(null);
  const [importCorpus, setImportCorpus] = useState(true);
  const importer = useBeirImport();

  const files = [queries, ...qrels, corpus].filter((f): f is File => f !== null);
  const tooLarge = files.find((f) => f.size > MAX_BEIR_FILE_BYTES);
  const missing =
    name.trim() === ''
      ? 'Name the set.'
      : queries === null
        ? 'Choose queries.jsonl.'
        : qrels.length === 0
          ? 'Choose at least one qrels .tsv file.'
          : tooLarge
            ? `${tooLarge.name} is larger than ${formatBytes(MAX_BEIR_FILE_BYTES)}.`
            : null;

  const submit = () => {
    if (missing || !queries) return;
    importer.mutate(
      { name, description, queries, qrels, corpus, importCorpus },
      { onSuccess: onDone },
    );
  };

  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        The BEIR layout: <Code>queries.jsonl</Code> (one <Code>{'{"_id", "text"}'}</Code> a line),
        qrels <Code>.tsv</Code> files (header <Code>query-id corpus-id score</Code>, scores 0–3) and
        optionally <Code>corpus.jsonl</Code>. Corpus ids are matched to snippet ids, source ids,
        URLs or titles. Every line is checked first: a bad one is named and nothing is stored.
      </Text>
      <TextInput
        label="Set name"
        required
        value={name}
        onChange={(e) => setName(e.currentTarget.value)}
        maxLength={200}
      />
      <Textarea
        label="Description"
        value={description}
        onChange={(e) => setDescription(e.currentTarget.value)}
        maxLength={2000}
        rows={2}
      />
      <FileInput
        label="Queries (queries.jsonl)"
        placeholder="Choose queries.jsonl"
        accept=".jsonl,application/jsonl,application/x-ndjson"
        leftSection={<IconFileImport size={16} />}
        value={queries}
        onChange={setQueries}
        clearable
        required
      />
      <FileInput
        label="Judgments (qrels .tsv, one or more)"
        placeholder="Choose test.tsv, dev.tsv…"
        accept=".tsv,text/tab-separated-values"
        leftSection={<IconFileImport size={16} />}
        multiple
        value={qrels}
        onChange={setQrels}
        clearable
        required
      />
      <FileInput
        label="Corpus (corpus.jsonl, optional)"
        placeholder="Choose corpus.jsonl"
        accept=".jsonl,application/jsonl,application/x-ndjson"
        leftSection={<IconFileImport size={16} />}
        value={corpus}
        onChange={setCorpus}
        clearable
      />
      <Checkbox
        label="Import the corpus as snippets"
        description="Without it the corpus is only used to match ids to the sources already stored by title."
        checked={importCorpus && corpus !== null}
        disabled={corpus === null}
        onChange={(e) => setImportCorpus(e.currentTarget.checked)}
      />
      {importer.error ? (
        <Alert color="red" variant="light" title="Import refused">
          {importer.error.message}
        </Alert>
      ) : null}
      <Group justify="space-between" wrap="nowrap">
        <Text size="sm" c="dimmed">
          {missing ?? ''}
        </Text>
        <Group gap="sm" wrap="nowrap">
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={missing !== null} loading={importer.isPending}>
            Import
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

export function QualityBeirImportModal({
  opened,
  onClose,
  onImported,
}: {
  opened: boolean;
  onClose: () => void;
  /** The new set, to select it. */
  onImported: (setId: number) => void;
}) {
  const [summary, setSummary] = useState<BeirImportSummary | null>(null);
  const close = () => {
    setSummary(null);
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title="Import a BEIR set" size="lg">
      {summary ? (
        <Stack gap="md">
          <BeirSummary summary={summary} />
          <Group justify="flex-end">
            <Button onClick={close}>Done</Button>
          </Group>
        </Stack>
      ) : opened ? (
        <ImportForm
          onCancel={close}
          onDone={(s) => {
            setSummary(s);
            onImported(s.set.id);
          }}
        />
      ) : null}
    </Modal>
  );
}
