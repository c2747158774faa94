import { useState, type FormEvent } from 'react';
import { ChangePasswordRequest } from '@adam/contracts';
import { isApiError } from '../api/client';
import { toast } from '../layout/toasts';
import { useChangePassword } from './auth.api';

export interface PasswordFormErrors {
  current?: string;
  next?: string;
  confirm?: string;
}

/**
 * The state and rules of a password change: the contract's checks, the confirmation match, and
 * the server's answer mapped to the fields (401: the current password is wrong).
 */
export function usePasswordChangeForm({
  currentName,
  onChanged,
}: {
  /** How messages name the current password ("Current password", "One-time password"). */
  currentName: string;
  onChanged?: () => void;
}) {
  const change = useChangePassword();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [errors, setErrors] = useState<PasswordFormErrors>({});

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = ChangePasswordRequest.safeParse({
      current_password: current,
      new_password: next,
    });
    const found: PasswordFormErrors = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        if (issue.path[0] === 'current_password')
          found.current ??= `${currentName} ${issue.message}`;
        else found.next ??= `New password ${issue.message}`;
      }
    }
    if (!found.next && next !== confirm) found.confirm = 'Passwords do not match';
    setErrors(found);
    if (Object.keys(found).length > 0 || !parsed.success) return;

    change.mutate(parsed.data, {
      onSuccess: () => {
        setCurrent('');
        setNext('');
        setConfirm('');
        toast.success('Password changed');
        onChanged?.();
      },
      onError: (error) => {
        if (!isApiError(error)) return;
        if (error.status === 401) setErrors({ current: error.message });
        else
          setErrors({
            current: error.fieldError('current_password'),
            // A refusal that names no field (a 403, say) still shows next to the form.
            next:
              error.fieldError('new_password') ??
              (error.fieldErrors.length === 0 ? error.message : undefined),
          });
      },
    });
  };

  return {
    current,
    setCurrent,
    next,
    setNext,
    confirm,
    setConfirm,
    errors,
    submit,
    pending: change.isPending,
  };
}
