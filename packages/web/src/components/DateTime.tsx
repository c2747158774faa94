import { formatDate, formatUtc } from '../lib/format';

/**
 * A date as every screen shows it: the viewer's local time with its zone, and the same instant
 * in UTC on hover. A missing or invalid date shows `-`.
 */
export function DateTime({
  value,
  seconds = false,
}: {
  value: string | number | Date | null | undefined;
  seconds?: boolean;
}) {
  const text = formatDate(value, { seconds });
  if (text === '-') return <>{text}</>;
  const iso = new Date(value as string | number | Date).toISOString();
  return (
    <time dateTime={iso} title={formatUtc(value)} style={{ whiteSpace: 'nowrap' }}>
      {text}
    </time>
  );
}
