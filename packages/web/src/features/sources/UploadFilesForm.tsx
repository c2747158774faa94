import { useRef, useState } from 'react';
import { Button, CloseButton, Paper, Stack, Table, Text, ThemeIcon } from '@mantine/core';
import { IconCloudUpload, IconUpload } from '@tabler/icons-react';
import { DOCUMENT_EXTENSIONS, UPLOAD_LIMITS, uploadLimitsOf } from '@adam/contracts';
import { formatBytes } from '../../lib/format';
import { useUploadSettings } from '../settings/settings.api';
import { sourceOptionsBody, SourceOptionsFields, useSourceOptions } from './SourceOptionsFields';
import { useUploadDocuments } from './sources.api';
import { FormProblem } from './FormProblem';
import { JobForm, useQueueJob, type JobFormProps } from './JobForm';

const EXTENSIONS = Object.values(DOCUMENT_EXTENSIONS).flat();
const ACCEPT = EXTENSIONS.join(',');

const extensionOf = (name: string) => {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot).toLowerCase();
};

type ClientLimits = ReturnType<typeof uploadLimitsOf>;

/**
 * The files that can join the chosen ones, and why each other cannot: the server's own limits
 * (its `uploads` settings), checked before a byte is sent. The server checks them again.
 */
function checkUploadFiles(
  chosen: readonly File[],
  added: readonly File[],
  limits: ClientLimits,
): { accepted: File[]; refused: string[] } {
  const accepted: File[] = [];
  const refused: string[] = [];
  let total = chosen.reduce((sum, f) => sum + f.size, 0);
  let count = chosen.length;
  for (const file of added) {
    if (chosen.some((f) => f.name === file.name && f.size === file.size)) continue;
    if (!EXTENSIONS.includes(extensionOf(file.name))) {
      refused.push(`${file.name}: not a PDF, DOCX, Markdown, HTML or text file`);
    } else if (file.size > limits.max_file_bytes) {
      refused.push(
        `${file.name} is ${formatBytes(file.size)}: a file may be at most ${formatBytes(limits.max_file_bytes)}`,
      );
    } else if (file.size === 0) {
      refused.push(`${file.name} is empty`);
    } else if (count + 1 > limits.max_files) {
      refused.push(`${file.name}: at most ${limits.max_files} files in one upload`);
    } else if (total + file.size > limits.max_total_bytes) {
      refused.push(
        `${file.name}: one upload may hold at most ${formatBytes(limits.max_total_bytes)} in all`,
      );
    } else {
      accepted.push(file);
      count += 1;
      total += file.size;
    }
  }
  return { accepted, refused };
}

/** Add Sources, "Upload files" (issue 24): documents become file sources through one job. */
export function UploadFilesForm({ onQueued }: JobFormProps) {
  const [files, setFiles] = useState<File[]>([]);
  const [refused, setRefused] = useState<string[]>([]);
  const [serverError, setServerError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [options, setOptions] = useSourceOptions();
  const input = useRef<HTMLInputElement>(null);
  const upload = useQueueJob(useUploadDocuments(), onQueued, {
    queued: (r) =>
      `Job ${r.job_id} queued with ${r.files.length} file${r.files.length === 1 ? '' : 's'}`,
    failed: 'Upload refused',
  });
  const limits = uploadLimitsOf(useUploadSettings());

  const total = files.reduce((sum, f) => sum + f.size, 0);

  const add = (list: FileList | null) => {
    if (!list) return;
    const { accepted, refused: notAdded } = checkUploadFiles(files, Array.from(list), limits);
    setFiles((prev) => [...prev, ...accepted]);
    setRefused(notAdded);
    setServerError(null);
  };

  const submit = () => {
    setServerError(null);
    if (files.length === 0) {
      setRefused(['Please choose at least one file']);
      return;
    }
    upload.queue(
      { files, options: sourceOptionsBody(options) },
      {
        onQueued: () => {
          setFiles([]);
          setRefused([]);
        },
        onError: (error) => setServerError(error.message),
      },
    );
  };

  return (
    <JobForm
      onSubmit={submit}
      summary={
        upload.pending
          ? `Sending ${formatBytes(total)}…`
          : `${files.length} file${files.length === 1 ? '' : 's'}, ${formatBytes(total)}`
      }
      submitLabel="Upload files"
      submitIcon={<IconUpload size={16} />}
      pending={upload.pending}
      disabled={files.length === 0}
    >
      <Paper
        withBorder
        radius="md"
        p="xl"
        data-testid="upload-drop-zone"
        style={{
          borderStyle: 'dashed',
          borderWidth: 2,
          borderColor: dragging ? 'var(--mantine-primary-color-filled)' : undefined,
          background: dragging ? 'var(--mantine-primary-color-light)' : undefined,
        }}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          add(e.dataTransfer.files);
        }}
      >
        <Stack align="center" gap={6}>
          <ThemeIcon size={44} radius="xl" variant="light">
            <IconCloudUpload size={24} />
          </ThemeIcon>
          <Text fw={600}>Drop files here</Text>
          <Text size="sm" c="dimmed" ta="center">
            PDF, DOCX, Markdown, HTML or plain text ({EXTENSIONS.join(' ')}).
            <br />
            Up to {limits.max_files} files, {formatBytes(limits.max_file_bytes)} each,{' '}
            {formatBytes(limits.max_total_bytes)} in all; a PDF up to{' '}
            {UPLOAD_LIMITS.max_pages.toLocaleString('en')} pages.
          </Text>
          <Button variant="light" size="xs" onClick={() => input.current?.click()}>
            Choose files
          </Button>
          <input
            ref={input}
            type="file"
            multiple
            accept={ACCEPT}
            aria-label="Files"
            style={{ display: 'none' }}
            onChange={(e) => {
              add(e.currentTarget.files);
              // The same file can be chosen again after being removed.
              e.currentTarget.value = '';
            }}
          />
        </Stack>
      </Paper>
      {refused.length > 0 ? (
        <FormProblem title="Not added" label="Files not added" color="orange" items={refused} />
      ) : null}
      {files.length > 0 ? (
        <Table striped withTableBorder fz="sm" aria-label="Chosen files">
          <Table.Tbody>
            {files.map((f, i) => (
              <Table.Tr key={`${f.name}-${i}`}>
                <Table.Td style={{ wordBreak: 'break-all' }}>{f.name}</Table.Td>
                <Table.Td ta="right" className="tabular-nums" w={100}>
                  {formatBytes(f.size)}
                </Table.Td>
                <Table.Td w={40}>
                  <CloseButton
                    size="sm"
                    aria-label={`Remove ${f.name}`}
                    disabled={upload.pending}
                    onClick={() => setFiles((prev) => prev.filter((_, j) => j !== i))}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
      <SourceOptionsFields value={options} onChange={setOptions} />
      {serverError ? <FormProblem title="Upload refused">{serverError}</FormProblem> : null}
    </JobForm>
  );
}
