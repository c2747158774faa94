/**
 * Static demo data of the Agent 2 overview (spec 000 §2, §9: its stat cards and chart are static
 * demo data, not server figures).
 */
export interface StatCardSample {
  title: string;
  value: string;
  trend: string;
  trendUp: boolean;
  color: string;
}

export const AGENT2_STAT_CARDS: StatCardSample[] = [
  { title: 'Active Digital Babies', value: '247', trend: '+12%', trendUp: true, color: 'violet' },
  {
    title: 'Generation Rate per minute',
    value: '18.4',
    trend: '+5.2%',
    trendUp: true,
    color: 'indigo',
  },
  { title: 'Innovation Score', value: '0.87', trend: '+0.04', trendUp: true, color: 'teal' },
  { title: 'Experience Pool', value: '12,847', trend: '+324', trendUp: true, color: 'orange' },
];

export const EVOLUTION_TIMELINE: { time: string; quality: number; innovation: number }[] = [
  { time: '00:00', quality: 0.62, innovation: 0.48 },
  { time: '02:00', quality: 0.65, innovation: 0.51 },
  { time: '04:00', quality: 0.64, innovation: 0.55 },
  { time: '06:00', quality: 0.7, innovation: 0.58 },
  { time: '08:00', quality: 0.73, innovation: 0.61 },
  { time: '10:00', quality: 0.76, innovation: 0.66 },
  { time: '12:00', quality: 0.75, innovation: 0.7 },
  { time: '14:00', quality: 0.8, innovation: 0.72 },
  { time: '16:00', quality: 0.83, innovation: 0.77 },
  { time: '18:00', quality: 0.85, innovation: 0.8 },
  { time: '20:00', quality: 0.88, innovation: 0.83 },
  { time: '22:00', quality: 0.9, innovation: 0.87 },
];
