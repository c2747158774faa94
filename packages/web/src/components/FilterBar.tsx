/**
 * One filter bar for the list screens: a row of labelled fields that wraps (at 1024 px a wide
 * bar goes onto a second line instead of pushing the table sideways), with the usual fields as
 * small components and a "Reset filters" button shown once something is set.
 */
import type { ReactNode } from 'react';
import { Button, CloseButton, Group, Select, TextInput } from '@mantine/core';
import { IconFilterOff, IconSearch } from '@tabler/icons-react';

export function FilterBar({
  label,
  gap = 'sm',
  active = false,
  onReset,
  children,
}: {
  /** Names the bar for screen readers (role="search"). */
  label?: string;
  gap?: 'sm' | 'md';
  /** Whether any filter differs from its default: only then is the reset button shown. */
  active?: boolean;
  onReset?: () => void;
  children: ReactNode;
}) {
  return (
    <Group gap={gap} align="flex-end" wrap="wrap" role="search" aria-label={label}>
      {children}
      {onReset ? <ResetFiltersButton active={active} onReset={onReset} /> : null}
    </Group>
  );
}

/** Puts every filter back to its default; shown only while one is set. */
export function ResetFiltersButton({ active, onReset }: { active: boolean; onReset: () => void }) {
  return active ? (
    <Button variant="subtle" leftSection={<IconFilterOff size={16} />} onClick={onReset}>
      Reset filters
    </Button>
  ) : null;
}

/** A free-text filter; `grow` lets it take the row's spare width (never below `minWidth`). */
export function TextFilter({
  label,
  value,
  onChange,
  placeholder,
  search = false,
  clearLabel,
  onEnter,
  grow = false,
  w,
  minWidth,
  maw,
  maxLength,
  leftSection,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  /** Shows the magnifier. */
  search?: boolean;
  /** When given, a clear button with this label appears while there is text. */
  clearLabel?: string;
  onEnter?: () => void;
  grow?: boolean;
  w?: number;
  minWidth?: number;
  maw?: number;
  maxLength?: number;
  leftSection?: ReactNode;
}) {
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      leftSection={leftSection ?? (search ? <IconSearch size={16} /> : undefined)}
      rightSection={
        clearLabel && value ? (
          <CloseButton size="sm" aria-label={clearLabel} onClick={() => onChange('')} />
        ) : null
      }
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      onKeyDown={onEnter ? (e) => e.key === 'Enter' && onEnter() : undefined}
      maxLength={maxLength}
      w={grow ? undefined : w}
      maw={maw}
      style={grow ? { flex: 1, minWidth } : undefined}
    />
  );
}

export interface FilterOption<T extends string> {
  value: T;
  label: string;
}

/** A choice among fixed options; '' as an option's value stands for "any". */
export function SelectFilter<T extends string>({
  label,
  options,
  value,
  onChange,
  w,
  leftSection,
  ariaLabel,
}: {
  label?: string;
  options: readonly FilterOption<T>[];
  value: T;
  onChange: (value: T) => void;
  w?: number;
  leftSection?: ReactNode;
  ariaLabel?: string;
}) {
  return (
    <Select
      label={label}
      aria-label={ariaLabel}
      leftSection={leftSection}
      data={options as FilterOption<T>[]}
      value={value}
      onChange={(v) => v !== null && onChange(v as T)}
      allowDeselect={false}
      w={w}
    />
  );
}

/** From / To as local date-times (the screens turn them into ISO instants). */
export function DateRangeFilter({
  from,
  to,
  onFrom,
  onTo,
}: {
  from: string;
  to: string;
  onFrom: (value: string) => void;
  onTo: (value: string) => void;
}) {
  return (
    <>
      <TextInput
        label="From"
        type="datetime-local"
        value={from}
        onChange={(e) => onFrom(e.currentTarget.value)}
      />
      <TextInput
        label="To"
        type="datetime-local"
        value={to}
        onChange={(e) => onTo(e.currentTarget.value)}
      />
    </>
  );
}
