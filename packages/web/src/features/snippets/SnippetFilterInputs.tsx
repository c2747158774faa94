import { NumberInput, Select } from '@mantine/core';
import { SCORE_BOUNDS, THEMES, type Theme } from '@adam/contracts';

/** The theme filter of the snippet browser and search: any of the four themes, or all. */
export function ThemeFilterSelect({
  value,
  onChange,
}: {
  value: Theme | null;
  onChange: (theme: Theme | null) => void;
}) {
  return (
    <Select
      label="Theme"
      placeholder="All themes"
      data={[...THEMES]}
      value={value}
      onChange={(v) => onChange(v as Theme | null)}
      clearable
      w={160}
    />
  );
}

/** The minimum-quality filter (spec 002 §2: 0 to 1, step 0.01); empty means no minimum. */
export function MinQualityInput({
  value,
  onChange,
}: {
  value: number | string;
  onChange: (value: number | string) => void;
}) {
  return (
    <NumberInput
      label="Min quality"
      placeholder="0 – 1"
      min={SCORE_BOUNDS.min}
      max={SCORE_BOUNDS.max}
      step={0.01}
      decimalScale={2}
      clampBehavior="strict"
      value={value}
      onChange={onChange}
      w={130}
    />
  );
}
