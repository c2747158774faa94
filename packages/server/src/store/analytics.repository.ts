import type { Db } from './db.js';

export interface EmotionSums {
  emotion: string;
  n_present: number;
  n_dominant: number;
  score_sum: number;
  present_sum: number;
}

interface BreakdownRow {
  theme: string;
  /** '' when the language was not detected. */
  language: string;
  quality_bucket: number;
  n: number;
  quality_sum: number;
  with_emotion: number;
}

interface HourRow {
  /** 'YYYY-MM-DDTHH', a prefix of created_at. */
  hour: string;
  n: number;
  with_emotion: number;
}

/**
 * The aggregate tables of migration 5, which triggers on `snippets` keep. Every read here
 * touches at most a row per hour (and emotion) of the window asked for, never the snippets,
 * except `snippetsPerMinute`, which counts the window's rows on the created_at index.
 */
export class AnalyticsRepository {
  constructor(private readonly db: Db) {}

  /** Every all-time (theme, language, quality decile) row: a few dozen. */
  breakdown(): BreakdownRow[] {
    return this.db
      .prepare(
        'SELECT theme, language, quality_bucket, n, quality_sum, with_emotion FROM snippet_stats',
      )
      .all() as BreakdownRow[];
  }

  /** Snippets per hour from the hour `sinceHour` on (all hours when null), oldest first. */
  hours(sinceHour: string | null): HourRow[] {
    return this.db
      .prepare(
        `SELECT hour, n, with_emotion FROM snippet_hourly ${sinceHour ? 'WHERE hour >= ?' : ''} ORDER BY hour`,
      )
      .all(...(sinceHour ? [sinceHour] : [])) as HourRow[];
  }

  /** Emotion sums over the hours from `sinceHour` on; all time when null. */
  emotionSums(sinceHour: string | null): EmotionSums[] {
    if (!sinceHour) {
      return this.db
        .prepare(
          'SELECT emotion, n_present, n_dominant, score_sum, present_sum FROM emotion_totals',
        )
        .all() as EmotionSums[];
    }
    return this.db
      .prepare(
        `SELECT emotion, SUM(n_present) AS n_present, SUM(n_dominant) AS n_dominant,
           SUM(score_sum) AS score_sum, SUM(present_sum) AS present_sum
         FROM emotion_hourly WHERE hour >= ? GROUP BY emotion`,
      )
      .all(sinceHour) as EmotionSums[];
  }

  /** Per hour and emotion from `sinceHour` on. */
  emotionHours(sinceHour: string): (EmotionSums & { hour: string })[] {
    return this.db
      .prepare(
        `SELECT hour, emotion, n_present, n_dominant, score_sum, present_sum
         FROM emotion_hourly WHERE hour >= ? ORDER BY hour`,
      )
      .all(sinceHour) as (EmotionSums & { hour: string })[];
  }

  /** Snippets per minute ('YYYY-MM-DDTHH:MM') created at or after `sinceIso`. */
  snippetsPerMinute(sinceIso: string): { key: string; n: number }[] {
    return this.db
      .prepare(
        `SELECT substr(created_at, 1, 16) AS key, COUNT(*) AS n FROM snippets
         WHERE created_at >= ? GROUP BY key`,
      )
      .all(sinceIso) as { key: string; n: number }[];
  }

  counter(name: string): number {
    return (
      (this.db.prepare('SELECT value FROM analytics_counters WHERE name = ?').pluck().get(name) as
        number | undefined) ?? 0
    );
  }

  addToCounter(name: string, n: number): void {
    this.db
      .prepare(
        `INSERT INTO analytics_counters (name, value) VALUES (?, ?)
         ON CONFLICT (name) DO UPDATE SET value = value + excluded.value`,
      )
      .run(name, n);
  }
}
