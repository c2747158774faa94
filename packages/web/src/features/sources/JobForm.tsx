import type { ReactNode } from 'react';
import { Button, Group, Stack, Text } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { toast } from '../../layout/toasts';

/** An Add Sources form: the job it queues is handed up to be followed beside the form. */
export interface JobFormProps {
  onQueued: (jobId: number) => void;
}

/**
 * Sends an Add Sources form's request. The queued job is handed up to be followed and a toast
 * says what was queued; a failure's toast says why. `after` is what the form itself does then.
 */
export function useQueueJob<V, R extends { job_id: number }>(
  mutation: UseMutationResult<R, Error, V>,
  onQueued: (jobId: number) => void,
  texts: { queued: (result: R) => string; failed: string },
) {
  const queue = (
    variables: V,
    after: { onQueued?: (result: R) => void; onError?: (error: Error) => void } = {},
  ) =>
    mutation.mutate(variables, {
      onSuccess: (result) => {
        onQueued(result.job_id);
        after.onQueued?.(result);
        toast.success(texts.queued(result));
      },
      onError: (error) => {
        toast.error(`${texts.failed}: ${error.message}`);
        after.onError?.(error);
      },
    });
  return { queue, pending: mutation.isPending };
}

/** An Add Sources form: its fields, then what will be sent beside the button that sends it. */
export function JobForm({
  onSubmit,
  summary,
  submitLabel,
  submitIcon,
  pending,
  disabled,
  children,
}: {
  onSubmit: () => void;
  summary: ReactNode;
  submitLabel: string;
  submitIcon: ReactNode;
  pending: boolean;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
      noValidate
    >
      <Stack gap="md">
        {children}
        <Group justify="space-between">
          <Text size="sm" c="dimmed" className="tabular-nums">
            {summary}
          </Text>
          <Button type="submit" leftSection={submitIcon} loading={pending} disabled={disabled}>
            {submitLabel}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
