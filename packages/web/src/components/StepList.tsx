import { Group, List, Loader, Text, ThemeIcon } from '@mantine/core';
import { IconCheck, IconCircleDashed, IconPlayerSkipForward, IconX } from '@tabler/icons-react';

export const STEP_STATUSES = ['pending', 'running', 'success', 'error', 'skipped'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export interface Step {
  id: string;
  label: string;
  status: StepStatus;
  /** A short line under the label: the error, a count, a reason. */
  detail?: string;
}

const STATUS_COLOR: Record<StepStatus, string> = {
  pending: 'gray',
  running: 'blue',
  success: 'teal',
  error: 'red',
  skipped: 'gray',
};

function StepIcon({ status }: { status: StepStatus }) {
  if (status === 'running') return <Loader size={18} />;
  const icon =
    status === 'success' ? (
      <IconCheck size={12} />
    ) : status === 'error' ? (
      <IconX size={12} />
    ) : status === 'skipped' ? (
      <IconPlayerSkipForward size={12} />
    ) : (
      <IconCircleDashed size={12} />
    );
  return (
    <ThemeIcon
      size={18}
      radius="xl"
      color={STATUS_COLOR[status]}
      variant={status === 'pending' || status === 'skipped' ? 'light' : 'filled'}
    >
      {icon}
    </ThemeIcon>
  );
}

/** A stepwise progress list: each step pending, running, success, error or skipped. */
export function StepList({ steps, label }: { steps: readonly Step[]; label?: string }) {
  return (
    <List spacing={6} listStyleType="none" aria-label={label} m={0} p={0}>
      {steps.map((step) => (
        <List.Item key={step.id} data-step={step.id} data-status={step.status}>
          <Group gap="xs" wrap="nowrap" align="flex-start">
            <StepIcon status={step.status} />
            <div>
              <Text
                size="sm"
                c={step.status === 'skipped' ? 'dimmed' : undefined}
                td={step.status === 'skipped' ? 'line-through' : undefined}
              >
                {step.label}
                <Text span size="xs" c={STATUS_COLOR[step.status]} ml={6}>
                  {step.status}
                </Text>
              </Text>
              {step.detail ? (
                <Text size="xs" c={step.status === 'error' ? 'red' : 'dimmed'}>
                  {step.detail}
                </Text>
              ) : null}
            </div>
          </Group>
        </List.Item>
      ))}
    </List>
  );
}
