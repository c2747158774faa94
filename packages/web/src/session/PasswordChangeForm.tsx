import type { ReactNode } from 'react';
import { Button, Group, PasswordInput, Stack } from '@mantine/core';
import { IconKey } from '@tabler/icons-react';
import { usePasswordChangeForm } from './usePasswordChangeForm';

/**
 * The password change form of Settings → Security and of the first login: current, new and
 * confirmation, with the submit button after `secondaryAction` (a Log out, say).
 */
export function PasswordChangeForm({
  currentLabel,
  currentName,
  newDescription,
  ariaLabel,
  header,
  footer,
  secondaryAction,
  gap = 'sm',
  maw,
  onChanged,
}: {
  currentLabel: string;
  /** How messages name the current password. */
  currentName: string;
  newDescription?: string;
  ariaLabel?: string;
  /** Above the fields (a title, an explanation). */
  header?: ReactNode;
  /** Below the buttons. */
  footer?: ReactNode;
  secondaryAction?: ReactNode;
  gap?: 'sm' | 'md';
  maw?: number;
  onChanged?: () => void;
}) {
  const form = usePasswordChangeForm({ currentName, onChanged });
  return (
    <form onSubmit={form.submit} noValidate aria-label={ariaLabel}>
      <Stack gap={gap} maw={maw}>
        {header}
        <PasswordInput
          label={currentLabel}
          autoComplete="current-password"
          value={form.current}
          onChange={(e) => form.setCurrent(e.currentTarget.value)}
          error={form.errors.current}
        />
        <PasswordInput
          label="New Password"
          description={newDescription}
          autoComplete="new-password"
          value={form.next}
          onChange={(e) => form.setNext(e.currentTarget.value)}
          error={form.errors.next}
        />
        <PasswordInput
          label="Confirm New Password"
          autoComplete="new-password"
          value={form.confirm}
          onChange={(e) => form.setConfirm(e.currentTarget.value)}
          error={form.errors.confirm}
        />
        <Group justify={secondaryAction ? 'space-between' : 'flex-start'}>
          {secondaryAction}
          <Button type="submit" loading={form.pending} leftSection={<IconKey size={16} />}>
            Change Password
          </Button>
        </Group>
        {footer}
      </Stack>
    </form>
  );
}
