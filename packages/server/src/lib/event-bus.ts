import { EventEmitter } from 'node:events';
import type { CrawlSync, ServerMessageFields, SyncCounts, SyncOutcome } from '@adam/contracts';

/**
 * Every state change the console shows live; the WebSocket channel forwards those named like a
 * ServerMessage, whose payloads are that message's fields (job_created's `type` becomes
 * `job_type`).
 */
export interface BusEvents {
  job_created: { job_id: number; type: string; status: string; priority: string };
  job_progress: ServerMessageFields<'job_progress'>;
  job_completed: ServerMessageFields<'job_completed'>;
  job_failed: ServerMessageFields<'job_failed'>;
  job_cancelled: ServerMessageFields<'job_cancelled'>;
  job_deleted: ServerMessageFields<'job_deleted'>;
  segment_progress: ServerMessageFields<'segment_progress'>;
  model_warning: ServerMessageFields<'model_warning'>;
  model_progress: ServerMessageFields<'model_progress'>;
  'workers.changed': { running: number };
  'settings.updated': ServerMessageFields<'settings.updated'>;
  /** A watched evaluation set's run fell beyond the drop threshold (EvaluationWatchService). */
  quality_alert: ServerMessageFields<'quality_alert'> & { lost_texts: string[] };
  quality_alert_dismissed: ServerMessageFields<'quality_alert_dismissed'>;
  'auth.key_revoked': { key_id: number };
  'snippets.added': { ids: number[]; job_id: number | null };
  'snippets.deleted': { ids: number[] };
  // Operator actions, for the activity feed (not forwarded to the console as such).
  'auth.login': { user_id: number; email: string };
  /** An operator saved a section ('settings.updated' also follows restores). */
  'settings.saved': { section: string };
  'maintenance.done': { action: string; message: string; job_id: number | null };
  'backup.created': { id: string; reason: string; size_mb: number };
  'backup.restored': { id: string; snippets: number };
  /** A web source re-fetched by a sync job (see SourceSyncService.record). */
  'source.synced': {
    source_id: number;
    url: string;
    job_id: number;
    outcome: SyncOutcome;
    counts: SyncCounts;
    error: string | null;
  };
  /** A crawl synced by a sync_crawl job (see CrawlSyncService): its pages' counts summed. */
  'crawl.synced': { crawl_id: number; job_id: number; sync: CrawlSync };
}

export type BusEventName = keyof BusEvents;

export class EventBus {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends BusEventName>(type: K, payload: BusEvents[K]): void {
    this.emitter.emit(type, payload);
    this.emitter.emit('*', { type, payload });
  }

  on<K extends BusEventName>(type: K, fn: (payload: BusEvents[K]) => void): () => void {
    this.emitter.on(type, fn);
    return () => this.emitter.off(type, fn);
  }

  onAny(fn: (e: { type: BusEventName; payload: unknown }) => void): () => void {
    this.emitter.on('*', fn);
    return () => this.emitter.off('*', fn);
  }
}
