import { useState } from 'react';
import { Alert, Button, FileInput, Group, List, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconChecklist, IconFileImport } from '@tabler/icons-react';
import { MAX_IMPORT_BYTES, type ImportSummary } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { toast } from '../../layout/toasts';
import { formatBytes, formatNumber } from '../../lib/format';
import { useImportSnippets } from './sources.api';

interface BadLine {
  line: string;
  message: string;
}

/** "3 of 10 lines are not valid records, nothing was imported" (and how many are not listed). */
function badLinesSummary(detail: string): string {
  const head = detail.split(': ')[0] ?? detail;
  const more = /; and (\d+) more$/.exec(detail);
  return more ? `${head} (${more[1]} more not listed)` : head;
}

function Count({ label, value }: { label: string; value: number }) {
  return (
    <Stack gap={0}>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600} className="tabular-nums" aria-label={label}>
        {formatNumber(value)}
      </Text>
    </Stack>
  );
}

/**
 * Add Sources, "Import" (issue 24): a JSON Lines file is checked first (a dry run: nothing is
 * written), then imported as one import_snippets job.
 */
export function ImportSnippetsForm({ onQueued }: { onQueued: (jobId: number) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [checked, setChecked] = useState<ImportSummary | null>(null);
  const [badLines, setBadLines] = useState<BadLine[]>([]);
  const [error, setError] = useState<string | null>(null);
  const importer = useImportSnippets();
  const checking = importer.isPending && importer.variables?.dryRun === true;
  const importing = importer.isPending && importer.variables?.dryRun === false;

  const choose = (next: File | null) => {
    setFile(next);
    setChecked(null);
    setBadLines([]);
    setError(
      next && next.size > MAX_IMPORT_BYTES
        ? `${next.name} is ${formatBytes(next.size)}: an import may be at most ${formatBytes(MAX_IMPORT_BYTES)}`
        : null,
    );
  };

  const send = (dryRun: boolean) => {
    if (!file) return;
    setBadLines([]);
    setError(null);
    importer.mutate(
      { file, dryRun },
      {
        onSuccess: (summary) => {
          if (summary.dry_run) {
            setChecked(summary);
            return;
          }
          if (summary.job_id !== null) onQueued(summary.job_id);
          toast.success(
            `Import job ${summary.job_id} queued with ${formatNumber(summary.records)} records`,
          );
          setFile(null);
          setChecked(null);
        },
        onError: (e) => {
          setChecked(null);
          setError(e.message);
          if (isApiError(e)) {
            setBadLines(
              e.fieldErrors
                .filter((f) => f.field.startsWith('line '))
                .map((f) => ({ line: f.field, message: f.message })),
            );
          }
          toast.error(`${dryRun ? 'Check' : 'Import'} failed: ${e.message}`);
        },
      },
    );
  };

  const tooLarge = file !== null && file.size > MAX_IMPORT_BYTES;

  return (
    <Stack gap="md">
      <FileInput
        label="JSON Lines file"
        description="One snippet or document a line, as an export to JSON Lines writes them (.jsonl)."
        placeholder="Choose a .jsonl file"
        accept=".jsonl,.ndjson,application/x-ndjson,application/jsonl"
        leftSection={<IconFileImport size={16} />}
        value={file}
        onChange={choose}
        clearable
        disabled={importer.isPending}
        error={tooLarge ? error : undefined}
      />
      <Text size="xs" c="dimmed">
        A record with a theme and a quality score is restored as it is; any other is analysed like
        pasted text. An export made with <code>include_embeddings</code> carries each snippet’s
        vector: when the active embedding model made it, the import reuses it instead of embedding
        again. Texts already stored count as duplicates. Nothing is imported if a line is bad.
      </Text>
      {checked ? (
        <Alert color="teal" variant="light" title="Ready to import" aria-label="Check result">
          <SimpleGrid cols={{ base: 3, sm: 6 }} spacing="xs">
            <Count label="Records" value={checked.records} />
            <Count label="Restored" value={checked.restored} />
            <Count label="Analysed" value={checked.analysed} />
            <Count label="Duplicates" value={checked.duplicates} />
            <Count label="Vectors reused" value={checked.vectors_reused} />
            <Count label="To embed" value={checked.to_embed} />
          </SimpleGrid>
          <Text size="xs" c="dimmed" mt="xs">
            Embedded by {checked.embedder}. Counted now: a snippet added meanwhile can still turn a
            record into a duplicate.
          </Text>
        </Alert>
      ) : null}
      {error && !tooLarge ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={16} />}
          title={badLines.length > 0 ? 'Bad lines' : 'Refused'}
          aria-label="Import refused"
        >
          {badLines.length > 0 ? (
            <Text size="sm" mb={4}>
              {badLinesSummary(error)}
            </Text>
          ) : null}
          {badLines.length > 0 ? (
            <List size="sm" spacing={2}>
              {badLines.map((b, i) => (
                <List.Item key={i}>
                  <Text span fw={600} size="sm">
                    {b.line.replace(/^line/, 'Line')}:
                  </Text>{' '}
                  {b.message}
                </List.Item>
              ))}
            </List>
          ) : (
            error
          )}
        </Alert>
      ) : null}
      <Group justify="flex-end">
        <Button
          variant="default"
          leftSection={<IconChecklist size={16} />}
          onClick={() => send(true)}
          loading={checking}
          disabled={!file || tooLarge || importing}
        >
          Check file
        </Button>
        <Button
          leftSection={<IconFileImport size={16} />}
          onClick={() => send(false)}
          loading={importing}
          disabled={!checked || checking}
        >
          Import
        </Button>
      </Group>
    </Stack>
  );
}
