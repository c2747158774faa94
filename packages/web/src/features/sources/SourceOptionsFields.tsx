import { useState } from 'react';
import { Group, NumberInput, Select } from '@mantine/core';
import { SCORE_BOUNDS, SOURCE_LANGUAGES, type JobPriority } from '@adam/contracts';

export type SourceLanguage = (typeof SOURCE_LANGUAGES)[number];

const LANGUAGE_LABELS: Record<SourceLanguage, string> = {
  auto: 'Auto-detect',
  en: 'English',
  fr: 'French',
  es: 'Spanish',
};
/** The spec's order (spec 002 §9): normal, high, low. */
const PRIORITIES: readonly JobPriority[] = ['normal', 'high', 'low'];

/** What every way in shares with the URL list: the analysis filters and the job's priority. */
export interface SourceOptions {
  minQuality: number | string;
  language: SourceLanguage;
  priority: JobPriority;
}

export function useSourceOptions() {
  return useState<SourceOptions>({ minQuality: '', language: 'auto', priority: 'normal' });
}

/** The request's fields; an empty min quality is left out (no minimum). */
export function sourceOptionsBody(o: SourceOptions) {
  return {
    language: o.language,
    min_quality: typeof o.minQuality === 'number' ? o.minQuality : undefined,
    priority: o.priority,
  };
}

/** Min quality, language and priority (spec 002 §2), the same on every Add Sources tab. */
export function SourceOptionsFields({
  value,
  onChange,
  errors = {},
}: {
  value: SourceOptions;
  onChange: (next: SourceOptions) => void;
  errors?: Partial<Record<'min_quality' | 'language' | 'priority', string>>;
}) {
  return (
    <Group grow align="flex-end">
      <NumberInput
        label="Min quality"
        description="0 to 1, optional"
        min={SCORE_BOUNDS.min}
        max={SCORE_BOUNDS.max}
        step={0.1}
        decimalScale={2}
        allowNegative={false}
        clampBehavior="strict"
        value={value.minQuality}
        onChange={(minQuality) => onChange({ ...value, minQuality })}
        placeholder="Default"
        error={errors.min_quality}
      />
      <Select
        label="Language"
        description="auto keeps every language"
        data={SOURCE_LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_LABELS[l] }))}
        value={value.language}
        onChange={(v) => v && onChange({ ...value, language: v as SourceLanguage })}
        allowDeselect={false}
        error={errors.language}
      />
      <Select
        label="Priority"
        description="High runs first"
        data={PRIORITIES.map((p) => ({ value: p, label: p }))}
        value={value.priority}
        onChange={(v) => v && onChange({ ...value, priority: v as JobPriority })}
        allowDeselect={false}
        error={errors.priority}
      />
    </Group>
  );
}

/**
 * A 422's field name split into the form field and the line it names: `start_urls[3]` and
 * `start_urls.3` (the schema's path) both give `{ name: 'start_urls', index: 3 }`.
 */
export function splitField(field: string): { name: string; index: number | null } {
  const match = /^([a-z_]+)(?:\[(\d+)\]|\.(\d+))?$/.exec(field);
  if (!match) return { name: field, index: null };
  const index = match[2] ?? match[3];
  return { name: match[1]!, index: index === undefined ? null : Number(index) };
}

/** Lines of a text box, trimmed, blank ones dropped, with the form line (1-based) each came from. */
export function readLines(text: string): { values: string[]; lines: number[] } {
  const values: string[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const value = raw.trim();
    if (!value) return;
    values.push(value);
    lines.push(i + 1);
  });
  return { values, lines };
}
