import type { ReactNode } from 'react';
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';

export interface ConfirmOptions {
  title: string;
  message: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** Deletions, cleanups and restores: a red confirm button. */
  danger?: boolean;
  onConfirm: () => void;
  onCancel?: () => void;
}

/**
 * The one confirmation every destructive action asks for (spec 002 §5: deletions, cleanups,
 * restores, cancel-all-pending and job deletion). Nothing happens unless the operator confirms.
 */
export function confirmAction({
  title,
  message,
  confirmLabel = 'Confirm',
  cancelLabel = 'Cancel',
  danger = false,
  onConfirm,
  onCancel,
}: ConfirmOptions): void {
  modals.openConfirmModal({
    title,
    centered: true,
    children: typeof message === 'string' ? <Text size="sm">{message}</Text> : message,
    labels: { confirm: confirmLabel, cancel: cancelLabel },
    confirmProps: { color: danger ? 'red' : undefined, 'data-autofocus': true },
    onConfirm,
    onCancel,
  });
}
