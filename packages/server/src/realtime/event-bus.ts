import { EventEmitter } from 'node:events';

/** Job progress as the console shows it (spec 002 §7 job_progress). */
export interface JobProgressEvent {
  job_id: number;
  progress: number;
  stage: string | null;
  stats: Record<string, unknown>;
  segmentation_method: string | null;
  last_fallback_reason: string | null;
}

/** Every state change the console shows live; the WebSocket channel forwards these. */
export interface BusEvents {
  job_created: { job_id: number; type: string; status: string; priority: string };
  job_progress: JobProgressEvent;
  job_completed: { job_id: number; segments_created: number };
  job_failed: { job_id: number; error: string | null };
  job_cancelled: { job_id: number };
  job_deleted: { job_id: number };
  segment_progress: { job_id: number | null; processed: number; total: number; stage: string };
  model_warning: { message: string };
  'workers.changed': { running: number };
  'settings.updated': { section: string };
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
