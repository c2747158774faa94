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

/** A Select's value narrowed to the field's own choices (null when it is none of them). */
export function choiceOf<C extends string>(choices: readonly C[], value: string | null): C | null {
  return choices.find((c) => c === value) ?? null;
}

/** The section's own field names (the stored values carry all of them). */
function fieldsOf<T extends object>(stored: T): (keyof T & string)[] {
  return Object.keys(stored).filter((k): k is keyof T & string => k in stored);
}

/** The stored values as the form holds them: a number is a valid number input's value. */
function toSectionForm<T extends object>(stored: T): SectionForm<T> {
  const form: Partial<SectionForm<T>> = {};
  for (const field of fieldsOf(stored)) form[field] = formValue(stored[field]);
  return form as SectionForm<T>;
}
function formValue<V>(value: V): V extends number ? number | string : V {
  // A stored value is always what its input holds (a number's input holds numbers or text).
  return value as V extends number ? number | string : V;
}

/**
 * The form as a save sends it: numbers as numbers (a number input holds text while empty or
 * half-typed). An emptied number input is named in `empty`, and then nothing is to be sent.
 */
export function toSectionChange<T extends object>(
  form: SectionForm<T>,
  stored: T,
): { change: Partial<T>; empty: SectionFieldErrors<T> } {
  const change: Partial<T> = {};
  const empty: SectionFieldErrors<T> = {};
  for (const field of fieldsOf(stored)) {
    const value: unknown = form[field];
    const was = stored[field];
    if (typeof was === 'number' && typeof value === 'string') {
      if (value.trim() === '') empty[field] = 'is required';
      else change[field] = sameType(was, Number(value));
    } else if (typeof value === typeof was) {
      change[field] = sameType(was, value);
    }
  }
  return { change, empty };
}
/** `value`, checked above to be of the stored value's type, as that type. */
function sameType<V>(_stored: V, value: unknown): V {
  return value as V;
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
    if (query.data) setForm(toSectionForm(query.data));
  }, [query.data]);

  const set = <K extends keyof T & string>(field: K, value: SectionForm<T>[K]) => {
    setForm((current) => (current ? { ...current, [field]: value } : current));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const submit = () => {
    if (!form || !query.data) return;
    const stored = query.data;
    const { change, empty } = toSectionChange(form, stored);
    setErrors(empty);
    if (Object.keys(empty).length > 0) return;
    save.mutate(change, {
      onSuccess: (saved) => {
        setForm(toSectionForm(saved));
        toast.success(savedText);
      },
      // The request-error handler has already shown the detail as a toast.
      onError: (error) => {
        if (!isApiError(error)) return;
        const found: SectionFieldErrors<T> = {};
        for (const field of fieldsOf(stored)) {
          const message = error.fieldError(field);
          if (message) found[field] = message;
        }
        setErrors(found);
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
