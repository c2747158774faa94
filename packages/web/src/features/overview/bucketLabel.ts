/** Axis labels of time buckets, in local time: 14:05 (minute), 14:00 (hour), Mar 04 (day). */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

export function bucketLabel(iso: string, bucket: 'minute' | 'hour' | 'day'): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (bucket === 'day') return `${MONTHS[date.getMonth()]} ${pad2(date.getDate())}`;
  const minutes = bucket === 'minute' ? pad2(date.getMinutes()) : '00';
  return `${pad2(date.getHours())}:${minutes}`;
}
