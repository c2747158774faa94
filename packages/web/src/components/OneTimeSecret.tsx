import type { ReactNode } from 'react';
import { Alert, Button, Code, CopyButton, Group, Stack } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';

/**
 * A secret the server answers once (a one-time password, an API key): the warning that it will
 * not be shown again, the value and a copy button.
 */
export function OneTimeSecret({
  warning,
  value,
  label,
}: {
  warning: ReactNode;
  value: string;
  /** The accessible name of the value. */
  label: string;
}) {
  return (
    <Stack gap="md">
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />}>
        {warning}
      </Alert>
      <Group gap="xs" wrap="nowrap">
        <Code block style={{ flex: 1, fontSize: 14, wordBreak: 'break-all' }} aria-label={label}>
          {value}
        </Code>
        <CopyButton value={value}>
          {({ copied, copy }) => (
            <Button
              variant="light"
              color={copied ? 'teal' : undefined}
              leftSection={copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
              onClick={copy}
            >
              {copied ? 'Copied' : 'Copy'}
            </Button>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}
