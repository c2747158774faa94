import { useState } from 'react';
import { Button, Group, NumberInput, Paper, Stack, Text, Title } from '@mantine/core';
import type { MaintenanceRequest, MaintenanceResult } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { ActionResult } from './ActionResult';
import { useExecuteMaintenance } from './maintenance.api';
import { validThreshold, type MaintenanceTask } from './maintenanceTasks';
import { useCan } from '../../session/useCan';

/** One maintenance action: its controls, its run (confirmed first when destructive), its answer. */
export function TaskCard({ task }: { task: MaintenanceTask }) {
  const canRun = useCan('operator');
  const execute = useExecuteMaintenance();
  const [threshold, setThreshold] = useState<number | string>(task.threshold?.defaultValue ?? '');
  const [answer, setAnswer] = useState<{
    result: MaintenanceResult | null;
    error: string | null;
    dryRun: boolean;
  } | null>(null);
  const value = task.threshold ? validThreshold(task.threshold, threshold) : undefined;
  const invalid = value === null;

  const run = (dryRun: boolean) => {
    const params: NonNullable<MaintenanceRequest['params']> = { ...task.params };
    if (task.threshold && value !== null && value !== undefined) params.threshold = value;
    if (dryRun) params.dry_run = true;
    const request: MaintenanceRequest = { action: task.action };
    if (Object.keys(params).length) request.params = params;
    execute.mutate(request, {
      onSuccess: (result) => setAnswer({ result, error: null, dryRun }),
      onError: (error) => setAnswer({ result: null, error: error.message, dryRun }),
    });
  };

  const start = () => {
    if (!task.confirm) return run(false);
    confirmAction({
      title: task.confirm.title,
      message: task.confirm.message(value ?? undefined),
      confirmLabel: task.confirm.label,
      danger: true,
      onConfirm: () => run(false),
    });
  };

  return (
    <Paper withBorder radius="md" p="md" aria-label={task.title} data-action={task.action}>
      <Stack gap="sm" h="100%">
        <div>
          <Title order={4}>{task.title}</Title>
          <Text size="sm" c="dimmed" mt={2}>
            {task.description}
          </Text>
        </div>
        {task.threshold ? (
          <NumberInput
            label={task.threshold.label}
            description={task.threshold.description}
            value={threshold}
            onChange={setThreshold}
            min={task.threshold.min}
            max={task.threshold.max}
            step={task.threshold.step}
            decimalScale={2}
            allowNegative={false}
            clampBehavior="strict"
            error={invalid ? `Between ${task.threshold.min} and ${task.threshold.max}` : undefined}
            maw={360}
          />
        ) : null}
        <Group gap="xs" mt="auto" display={canRun ? undefined : 'none'}>
          <Button
            color={task.color}
            variant={task.confirm ? 'light' : 'filled'}
            onClick={start}
            disabled={invalid || execute.isPending}
            loading={execute.isPending && !execute.variables?.params?.dry_run}
          >
            {task.button}
          </Button>
          {task.preview ? (
            <Button
              variant="default"
              onClick={() => run(true)}
              disabled={invalid || execute.isPending}
              loading={execute.isPending && !!execute.variables?.params?.dry_run}
            >
              Preview
            </Button>
          ) : null}
        </Group>
        {answer ? (
          <Stack gap={4}>
            {answer.dryRun && answer.result ? (
              <Text size="xs" c="dimmed">
                Preview: nothing was deleted.
              </Text>
            ) : null}
            <ActionResult result={answer.result} error={answer.error} />
          </Stack>
        ) : null}
      </Stack>
    </Paper>
  );
}
