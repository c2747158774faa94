import { Text, type TextProps } from '@mantine/core';
import { formatNumber } from '../lib/format';

/** A right-aligned number for tables and stat strips; non-finite values display as `-`. */
export function NumberCell({
  value,
  fractionDigits,
  suffix,
  ...textProps
}: {
  value: number | null | undefined;
  fractionDigits?: number;
  suffix?: string;
} & TextProps) {
  const text = formatNumber(value, fractionDigits);
  return (
    <Text component="span" ta="right" className="tabular-nums" {...textProps}>
      {text}
      {suffix && text !== '-' ? suffix : null}
    </Text>
  );
}
