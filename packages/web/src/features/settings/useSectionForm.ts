import { useEffect, useState } from 'react';
import type { SectionSettings, SettingsSection } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { toast } from '../../layout/toasts';
import { useSaveSettingsSection, useSettingsSection } from './settings.api';

/** Number inputs hold a string while empty or half-typed. */
export type SectionForm<T> = { [K in keyof T]: T[K] extends number ? number | string : T[K] };
export type SectionFieldErrors<T> = Partial<Record<keyof T & string, string>>;

/** A whole-number input held to its bounds (clamped on blur), with thousands separated. */
export function wholeNumberProps(bounds: { min: number; max: number }) {
  return {
    min: bounds.min,
    max: bounds.max,
    step: 1,
    allowDecimal: false,
    allowNegative: false,
    clampBehavior: 'blur' as const,
    thousandSeparator: ',',
  };
}

/**
 * The form state of one settings section shown as a card with its own save: the stored values,
 * the fields' errors from a 422 (`errors[].field`), and the save itself.
 */
export function useSectionForm<S extends SettingsSection>(section: S, savedText: string) {
  type T = SectionSettings<S>;
  const query = useSettingsSection(section);
  const save = useSaveSettingsSection(section);
  const [form, setForm] = useState<SectionForm<T> | null>(null);
  const [errors, setErrors] = useState<SectionFieldErrors<T>>({});

  useEffect(() => {
    if (query.data) setForm(query.data as SectionForm<T>);
  }, [query.data]);

  const set = <K extends keyof T & string>(field: K, value: SectionForm<T>[K]) => {
    setForm((current) => (current ? { ...current, [field]: value } : current));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const submit = () => {
    if (!form || !query.data) return;
    const stored = query.data as Record<string, unknown>;
    // Numbers as numbers; an emptied number input is named at its field and nothing is sent.
    const payload: Record<string, unknown> = {};
    const empty: Record<string, string> = {};
    for (const [field, value] of Object.entries(form)) {
      const numeric = typeof stored[field] === 'number' && typeof value === 'string';
      if (numeric && value.trim() === '') empty[field] = 'is required';
      payload[field] = numeric ? Number(value) : value;
    }
    setErrors(empty as SectionFieldErrors<T>);
    if (Object.keys(empty).length > 0) return;
    save.mutate(payload, {
      onSuccess: (saved) => {
        setForm(saved as SectionForm<T>);
        toast.success(savedText);
      },
      // The request-error handler has already shown the detail as a toast.
      onError: (error) => {
        if (!isApiError(error)) return;
        const found: Record<string, string> = {};
        for (const field of Object.keys(stored)) {
          const message = error.fieldError(field);
          if (message) found[field] = message;
        }
        setErrors(found as SectionFieldErrors<T>);
      },
    });
  };

  return {
    form,
    errors,
    set,
    submit,
    saving: save.isPending,
    loading: query.isLoading,
    failed: query.isError,
  };
}
